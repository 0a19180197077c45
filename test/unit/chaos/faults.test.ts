import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSchedule, FAULT_KINDS, parseFaults } from '../../../chaos/faults.ts';

describe('chaos fault schedule', () => {
  it('schedules every requested fault kind at least once, even in a run shorter than one slot per kind', () => {
    const s = buildSchedule([...FAULT_KINDS], 80_000, 11);
    assert.deepEqual([...new Set(s.map((f) => f.kind))].sort(), [...FAULT_KINDS].sort());
  });

  it('keeps every fault in order inside the first 85% of the run, leaving the end for recovery', () => {
    for (const seed of [1, 2, 3, 42]) {
      const s = buildSchedule([...FAULT_KINDS], 600_000, seed);
      assert.ok(s.length >= 11, `about one fault per 45 s (got ${s.length})`);
      for (const [i, f] of s.entries()) {
        assert.ok(f.atMs >= 0 && f.atMs <= 0.85 * 600_000, `${f.kind} at ${f.atMs}`);
        if (i > 0) assert.ok(f.atMs > (s[i - 1]?.atMs ?? 0), 'increasing times');
      }
    }
  });

  it('replays the same schedule for the same seed and another for another seed', () => {
    const kinds = [...FAULT_KINDS];
    assert.deepEqual(buildSchedule(kinds, 300_000, 5), buildSchedule(kinds, 300_000, 5));
    assert.notDeepEqual(buildSchedule(kinds, 300_000, 5), buildSchedule(kinds, 300_000, 6));
  });

  it('refuses an unknown fault name, naming it and the known ones', () => {
    assert.deepEqual(parseFaults('ingest-kill9, kafka-restart'), ['ingest-kill9', 'kafka-restart']);
    assert.throws(() => parseFaults('ingest-kill9,disk-full'), /disk-full.*known: ingest-kill9/);
  });
});
