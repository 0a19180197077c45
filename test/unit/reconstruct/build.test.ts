import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSessionTimeline, instantOf } from '../../../reconstruct/build.ts';
import { renderSessionText } from '../../../reconstruct/render-terminal.ts';
import type { CallRow, KnownSpan, SessionData } from '../../../reconstruct/rows.ts';
import { type CallEntry, type GapEntry, SessionTimelineSchema } from '../../../reconstruct/timeline.ts';
import { call, ROOT, TRACE } from './fixtures.ts';

const rootSpan: KnownSpan = { trace_id: TRACE, span_id: ROOT, parent_span_id: '', name: 'invoke_agent ops-bot' };

function data(calls: CallRow[], over: Partial<SessionData> = {}): SessionData {
  const known = calls.map((c) => ({
    trace_id: c.trace_id,
    span_id: c.span_id,
    parent_span_id: c.parent_span_id,
    name: `execute_tool ${c.tool_name}`,
  }));
  return {
    tenant: 'acme',
    sessionId: 'sess-1',
    calls,
    truncated: false,
    knownSpans: [rootSpan, ...known],
    warnings: [],
    referencedReads: [],
    ...over,
  };
}

const calls = (t: ReturnType<typeof buildSessionTimeline>) =>
  t.entries.filter((e): e is CallEntry => e.kind === 'call');
const gaps = (t: ReturnType<typeof buildSessionTimeline>) => t.entries.filter((e): e is GapEntry => e.kind === 'gap');

describe('reconstruction timeline', () => {
  it('orders calls by start time and numbers entries from 1', () => {
    const t = buildSessionTimeline(data([call(2), call(1), call(3)]));
    assert.deepEqual(
      t.entries.map((e) => [e.position, e.kind === 'call' ? e.sequence : null]),
      [
        [1, 1],
        [2, 2],
        [3, 3],
      ],
    );
    assert.equal(t.reconstruction.complete, true);
    assert.equal(t.started_at, '2026-03-01T10:00:01.000000000Z');
    SessionTimelineSchema.parse(t);
  });

  it('shows a missing sequence number as a gap where the call would have been', () => {
    const t = buildSessionTimeline(data([call(1), call(2), call(5)]));
    assert.deepEqual(
      t.entries.map((e) => (e.kind === 'gap' ? `gap:${e.gap.type}` : `call:${e.sequence}`)),
      ['call:1', 'call:2', 'gap:missing_sequence', 'call:5'],
    );
    const g = gaps(t)[0]!;
    assert.deepEqual(g.gap, { type: 'missing_sequence', from_sequence: 3, to_sequence: 4, count: 2 });
    assert.match(g.statement, /sequence numbers 3-4 never arrived/);
    assert.equal(t.reconstruction.complete, false);
    assert.deepEqual(t.reconstruction.reasons, ['GAPS_IN_RECORD']);
    assert.ok(t.could_not_see.some((l) => l.startsWith('#3 gap:')));
  });

  it('shows calls missing before the first stored sequence number', () => {
    const t = buildSessionTimeline(data([call(3)]));
    assert.equal(t.entries[0]?.kind, 'gap');
    assert.deepEqual((t.entries[0] as GapEntry).gap, {
      type: 'missing_sequence',
      from_sequence: 1,
      to_sequence: 2,
      count: 2,
    });
  });

  it('says plainly that missing calls cannot be detected without sequence numbers', () => {
    const t = buildSessionTimeline(data([call(1, { sequence: null }), call(2, { sequence: null })]));
    assert.equal(gaps(t).length, 0);
    assert.deepEqual(t.reconstruction.reasons, ['SEQUENCE_NOT_RECORDED']);
    assert.ok(t.notes.some((n) => /cannot be detected/.test(n)));
  });

  it('shows a parent span that never arrived as a gap before the calls below it', () => {
    const orphan = call(2, { parent_span_id: 'ffffffffffffffff' });
    const t = buildSessionTimeline(data([call(1), orphan]));
    const g = gaps(t);
    assert.equal(g.length, 1);
    assert.equal(g[0]!.position, 2);
    assert.deepEqual(g[0]!.gap, {
      type: 'missing_parent',
      trace_id: TRACE,
      missing_span_id: 'ffffffffffffffff',
      children: [orphan.span_id],
      affected_calls: [orphan.span_id],
    });
    assert.equal(calls(t)[0]!.parent_name, 'invoke_agent ops-bot');
  });

  it('finds a missing ancestor further up the chain, once per missing span', () => {
    const mid: KnownSpan = {
      trace_id: TRACE,
      span_id: 'm000000000000000',
      parent_span_id: 'dddddddddddddddd',
      name: 'chat',
    };
    const a = call(1, { parent_span_id: mid.span_id });
    const b = call(2, { parent_span_id: mid.span_id });
    const t = buildSessionTimeline(data([a, b], { knownSpans: [mid] }));
    const g = gaps(t);
    assert.equal(g.length, 1);
    assert.equal(g[0]!.gap.type === 'missing_parent' && g[0]!.gap.missing_span_id, 'dddddddddddddddd');
    assert.equal(g[0]!.gap.type === 'missing_parent' && g[0]!.gap.affected_calls.length, 2);
  });

  it('links a mutation to the reads it relied on by call id and by snapshot', () => {
    const read = call(1, {
      result_complete: false,
      result_status: 'partial',
      result_reasons: ['MORE_PAGES_AVAILABLE'],
      result_continuation: 'next_cursor',
      scope_snapshot: 'snap-7',
    });
    const read2 = call(2, { tool_name: 'list_owners', scope_snapshot: 'snap-8' });
    const del = call(3, {
      tool_name: 'delete_service_accounts',
      effect: 'mutation',
      mutation_basis: 'absence',
      mutation_target_count: '4',
      evidence_call_ids: ['call-1'],
      evidence_snapshots: ['snap-8'],
      guard_decision: 'allowed',
    });
    const t = buildSessionTimeline(data([read, read2, del]));
    const m = calls(t)[2]!.mutation!;
    assert.deepEqual(
      m.evidence.map((l) => [l.via, l.ref, l.found, l.reads.map((r) => r.position)]),
      [
        ['call_id', 'call-1', true, [1]],
        ['snapshot', 'snap-8', true, [2]],
      ],
    );
    assert.deepEqual(
      m.concerns.map((c) => c.code),
      ['EVIDENCE_INCOMPLETE', 'ACTED_ON_ABSENCE_WITH_INCOMPLETE_EVIDENCE'],
    );
    assert.equal(m.target_count, 4);
    assert.equal(calls(t)[0]!.could_not_see[0]!.kind, 'pages_not_fetched');
    assert.match(calls(t)[0]!.could_not_see[0]!.statement, /more pages of "service_accounts".*next_cursor/);
  });

  it('does not take a read made after the mutation as its snapshot evidence', () => {
    const del = call(1, { effect: 'mutation', evidence_snapshots: ['snap-1'] });
    const later = call(2, { scope_snapshot: 'snap-1' });
    const t = buildSessionTimeline(data([del, later]));
    assert.equal(gaps(t)[0]?.gap.type, 'missing_evidence');
  });

  it('shows evidence that is not stored as a gap just before the mutation', () => {
    const del = call(2, { effect: 'mutation', mutation_basis: 'presence', evidence_call_ids: ['call-404'] });
    const t = buildSessionTimeline(data([call(1), del]));
    assert.deepEqual(
      t.entries.map((e) => e.kind),
      ['call', 'gap', 'call'],
    );
    assert.deepEqual(gaps(t)[0]!.gap, {
      type: 'missing_evidence',
      mutation_span_id: del.span_id,
      via: 'call_id',
      ref: 'call-404',
    });
    const m = calls(t)[1]!.mutation!;
    assert.deepEqual(m.evidence[0], { via: 'call_id', ref: 'call-404', found: false, reads: [], traversals: [] });
    assert.deepEqual(
      m.concerns.map((c) => c.code),
      ['EVIDENCE_NOT_STORED'],
    );
  });

  it('links evidence read in another session and marks it as such', () => {
    const other = call(9, { session_id: 'sess-0', tool_call_id: 'call-x', span_id: 'o000000000000009' });
    const del = call(1, { effect: 'mutation', evidence_call_ids: ['call-x'] });
    const t = buildSessionTimeline(data([del], { referencedReads: [other] }));
    const r = calls(t)[0]!.mutation!.evidence[0]!.reads[0]!;
    assert.equal(r.in_session, false);
    assert.equal(r.position, null);
    assert.equal(r.session_id, 'sess-0');
  });

  it('does not take a same-named call id from another session and trace as evidence', () => {
    const other = call(9, { session_id: 'sess-0', tool_call_id: 'call-x', trace_id: 'b'.repeat(32) });
    const del = call(1, { effect: 'mutation', evidence_call_ids: ['call-x'] });
    const t = buildSessionTimeline(data([del], { referencedReads: [other] }));
    assert.equal(calls(t)[0]!.mutation!.evidence[0]!.found, false);
    assert.equal(gaps(t)[0]?.gap.type, 'missing_evidence');
  });

  it('prefers a read of the mutation session over a same-id read elsewhere in the trace', () => {
    const other = call(9, { session_id: 'sess-0', tool_call_id: 'call-1', span_id: 'o000000000000009' });
    const del = call(2, { effect: 'mutation', evidence_call_ids: ['call-1'] });
    const t = buildSessionTimeline(data([call(1), del], { referencedReads: [other] }));
    assert.deepEqual(
      calls(t)[1]!.mutation!.evidence[0]!.reads.map((r) => r.position),
      [1],
    );
  });

  it('flags a mutation that declared no evidence', () => {
    const t = buildSessionTimeline(data([call(1, { effect: 'mutation', mutation_basis: 'absence' })]));
    assert.deepEqual(
      calls(t)[0]!.mutation!.concerns.map((c) => c.code),
      ['NO_EVIDENCE_DECLARED', 'ACTED_ON_ABSENCE_WITH_INCOMPLETE_EVIDENCE'],
    );
  });

  it('counts a result that said nothing about completeness as unknown, never complete', () => {
    const t = buildSessionTimeline(
      data([call(1, { complete_reported: false, result_complete: false, result_status: '' })]),
    );
    const e = calls(t)[0]!;
    assert.equal(e.completeness, 'unknown');
    assert.deepEqual(
      e.could_not_see.map((b) => b.kind),
      ['completeness_unknown'],
    );
    assert.equal(t.summary.unknown_reads, 1);
  });

  it('states visibility restrictions and failed sources', () => {
    const e = calls(
      buildSessionTimeline(
        data([
          call(1, {
            result_complete: false,
            result_reasons: ['VISIBILITY_RESTRICTED', 'SOURCE_UNAVAILABLE'],
            scope_visibility: 'readable by this credential',
          }),
        ]),
      ),
    )[0]!;
    assert.deepEqual(
      e.could_not_see.map((b) => b.kind),
      ['visibility_restricted', 'source_unavailable'],
    );
    assert.match(e.could_not_see[0]!.statement, /readable by this credential/);
  });

  it("does not list a mutation's own result as something it could not see", () => {
    const t = buildSessionTimeline(
      data([call(1, { effect: 'mutation', complete_reported: false, result_complete: false })]),
    );
    assert.deepEqual(calls(t)[0]!.could_not_see, []);
    assert.equal(calls(t)[0]!.completeness, 'unknown');
  });

  it('keeps warning details beside the codes without making the result incomplete', () => {
    const t = buildSessionTimeline(
      data([call(1, { warnings: ['STALE_INDEX', 'DEPRECATED_FIELD'] })], {
        warnings: [{ span_id: call(1).span_id, code: 'STALE_INDEX', source: 'idx-accounts', message: '2h old' }],
      }),
    );
    const e = calls(t)[0]!;
    assert.deepEqual(e.warnings, [
      { code: 'STALE_INDEX', source: 'idx-accounts', message: '2h old' },
      { code: 'DEPRECATED_FIELD', source: null, message: null },
    ]);
    assert.equal(e.completeness, 'complete');
    assert.equal(e.could_not_see.length, 0);
  });

  it('says when it loaded only part of the session', () => {
    const t = buildSessionTimeline(data([call(1)], { truncated: true }));
    assert.deepEqual(t.reconstruction.reasons, ['TRUNCATED']);
  });

  it('converts nanosecond times exactly', () => {
    assert.equal(instantOf('1772359200123456789'), '2026-03-01T10:00:00.123456789Z');
    assert.equal(instantOf('0'), '1970-01-01T00:00:00.000000000Z');
  });

  it('renders gaps, mutations, evidence and concerns in the terminal table', () => {
    const read = call(1, {
      result_complete: false,
      result_reasons: ['MORE_PAGES_AVAILABLE'],
      result_status: 'partial',
    });
    const del = call(3, {
      tool_name: 'delete_service_accounts',
      effect: 'mutation',
      mutation_basis: 'absence',
      evidence_call_ids: ['call-1'],
      guard_decision: 'allowed',
    });
    const text = renderSessionText(buildSessionTimeline(data([read, del])));
    assert.match(text, /GAP \(missing_sequence\): 1 call\(s\) missing: sequence number 2/);
    assert.match(text, /delete_service_accounts\s+mutation/);
    assert.match(
      text,
      /evidence call_id call-1 -> #1 list_service_accounts \(incomplete: MORE_PAGES_AVAILABLE, 3 items\)/,
    );
    assert.match(text, /! ACTED_ON_ABSENCE_WITH_INCOMPLETE_EVIDENCE/);
    assert.match(text, /What it could not see:\n {2}#1 list_service_accounts \(read\): pages not fetched/);
  });
});
