import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startSchedule } from '../../../alerts/evaluator/schedule.ts';

const flush = () => new Promise<void>((r) => setImmediate(r));

/** A run that waits for release(): counts the runs started and finished. */
function heldRun() {
  const held = {
    runs: 0,
    finished: 0,
    release: () => {},
    run: async () => {
      held.runs++;
      await new Promise<void>((r) => {
        held.release = r;
      });
      held.finished++;
    },
  };
  return held;
}

describe('evaluator schedule', () => {
  it('runs at once, then every interval, never two runs at a time', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const held = heldRun();
    const s = startSchedule(held.run, { intervalMs: 1_000, onError: () => {} });
    assert.equal(held.runs, 1);
    t.mock.timers.tick(5_000);
    assert.equal(held.runs, 1, 'a slow run delays the next instead of overlapping it');
    held.release();
    await flush();
    t.mock.timers.tick(999);
    assert.equal(held.runs, 1);
    t.mock.timers.tick(1);
    assert.equal(held.runs, 2);
    held.release();
    await s.stop();
  });

  it('reports a failing run and keeps going; a failing reporter breaks nothing', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const errors: unknown[] = [];
    let runs = 0;
    const s = startSchedule(
      async () => {
        runs++;
        throw new Error(`run ${runs} failed`);
      },
      {
        intervalMs: 100,
        onError: (e) => {
          errors.push(e);
          throw new Error('the reporter fails too');
        },
      },
    );
    await flush();
    t.mock.timers.tick(100);
    await flush();
    assert.equal(runs, 2);
    assert.deepEqual(
      errors.map((e) => (e as Error).message),
      ['run 1 failed', 'run 2 failed'],
    );
    await s.stop();
  });

  it('stop() waits for the run in flight and nothing runs after it', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const held = heldRun();
    const s = startSchedule(held.run, { intervalMs: 10, onError: () => {} });
    const stopped = s.stop();
    held.release();
    await stopped;
    assert.equal(held.finished, 1);
    t.mock.timers.tick(1_000);
    await flush();
    assert.equal(held.runs, 1);
  });

  it('does not keep the process alive by itself (unref timers)', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const s = startSchedule(async () => {}, { intervalMs: 1_000_000, onError: () => {}, runImmediately: false });
    assert.equal(timers(), before);
    await s.stop();
  });
});
