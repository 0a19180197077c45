/**
 * A cursor traversal in a reconstruction: its pages are one read, listed with where it stands as a whole ("3 pages,
 * complete over snapshot inv-77", "stopped at page 2"), and a mutation that relied on it is judged on it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSessionTimeline } from '../../../reconstruct/build.ts';
import { renderSessionText } from '../../../reconstruct/render-terminal.ts';
import type { CallRow, SessionData } from '../../../reconstruct/rows.ts';
import { type CallEntry, SessionTimelineSchema } from '../../../reconstruct/timeline.ts';
import { call } from './fixtures.ts';

/** Page n of the traversal `call-1` (the first page's call id), 2 items, more to come. */
function page(n: number, over: Partial<CallRow> = {}): CallRow {
  return call(n, {
    session_id: 'sess-t',
    parent_span_id: '',
    tool_name: 'list_unowned_accounts',
    agent_name: 'janitor',
    result_status: 'partial',
    result_complete: false,
    result_reasons: ['MORE_PAGES_AVAILABLE'],
    result_item_count: '2',
    result_continuation: 'next_cursor',
    scope_snapshot: 'inv-77',
    traversal_id: 'call-1',
    traversal_page: n,
    traversal_break: '',
    ...over,
  });
}

const last = (n: number, over: Partial<CallRow> = {}) =>
  page(n, {
    result_complete: true,
    result_status: 'complete',
    result_reasons: [],
    result_continuation: 'none',
    ...over,
  });

function deletion(n: number): CallRow {
  return page(n, {
    effect: 'mutation',
    tool_name: 'delete_accounts',
    tool_call_id: `call-${n}`,
    traversal_id: '',
    traversal_page: 0,
    result_reasons: [],
    mutation_basis: 'absence',
    evidence_call_ids: ['call-1'],
    evidence_snapshots: ['inv-77'],
    guard_decision: 'allowed',
  });
}

function session(calls: CallRow[]): SessionData {
  return {
    tenant: 'acme',
    sessionId: 'sess-t',
    calls,
    truncated: false,
    knownSpans: [],
    warnings: [],
    referencedReads: [],
  };
}

describe('cursor traversals in a reconstruction', () => {
  it('lists a traversal read to the end as one complete read over its snapshot', () => {
    const t = buildSessionTimeline(session([page(1), page(2), last(3), deletion(4)]));
    SessionTimelineSchema.parse(t);
    assert.deepEqual(
      t.traversals.map((x) => [x.statement, x.entries, x.complete]),
      [['3 pages, complete over snapshot inv-77', [1, 2, 3], true]],
    );
    assert.equal(t.summary.traversals, 1);
    assert.equal(t.summary.incomplete_reads, 0, 'its earlier pages are not incomplete reads');
    assert.deepEqual(t.could_not_see, [], 'the pages it went past were read');
    const m = (t.entries[3] as CallEntry).mutation;
    assert.deepEqual(m?.concerns, [], 'a mutation on the complete traversal has nothing to answer for');
    assert.equal(m?.evidence[0]?.traversals[0]?.statement, '3 pages, complete over snapshot inv-77');
  });

  it('says at which page a traversal that stopped short stopped, and concerns the mutation that relied on it', () => {
    const t = buildSessionTimeline(session([page(1), page(2), deletion(3)]));
    assert.equal(t.traversals[0]?.stopped_at, 2);
    assert.match(t.traversals[0]?.statement ?? '', /^2 pages, stopped at page 2 \(MORE_PAGES_AVAILABLE\)/);
    assert.equal(t.could_not_see.length, 1, 'only the page it stopped at left pages unread');
    assert.match(t.could_not_see[0] ?? '', /^#2 /);
    const concerns = (t.entries[2] as CallEntry).mutation?.concerns.map((c) => c.code);
    assert.deepEqual(concerns, ['EVIDENCE_INCOMPLETE', 'ACTED_ON_ABSENCE_WITH_INCOMPLETE_EVIDENCE']);
  });

  it('says where and why a traversal broke: a snapshot change', () => {
    const t = buildSessionTimeline(
      session([
        page(1),
        page(2, { scope_snapshot: 'inv-78', traversal_break: 'SNAPSHOT_CHANGED' }),
        last(3, { scope_snapshot: 'inv-78' }),
      ]),
    );
    assert.equal(t.traversals[0]?.break, 'SNAPSHOT_CHANGED');
    assert.match(
      t.traversals[0]?.statement ?? '',
      /broke at page 2: SNAPSHOT_CHANGED \(snapshot inv-77, then inv-78\)/,
    );
    assert.ok(t.could_not_see.some((l) => /SNAPSHOT_CHANGED/.test(l)));
  });

  it('judges a mutation on the traversal as it stood when it ran, not as it ended', () => {
    const t = buildSessionTimeline(session([page(1), page(2), deletion(3), last(4, { traversal_page: 3 })]));
    assert.equal(t.traversals[0]?.complete, true, 'it ended complete');
    const m = (t.entries[2] as CallEntry).mutation;
    assert.equal(m?.evidence[0]?.traversals[0]?.complete, false, 'but was not when the mutation ran');
    assert.ok(m?.concerns.some((c) => c.code === 'EVIDENCE_INCOMPLETE'));
  });

  it('shows the traversal in the terminal report', () => {
    const text = renderSessionText(buildSessionTimeline(session([page(1), page(2), last(3), deletion(4)])));
    assert.match(text, /Paged reads:\n {2}list_unowned_accounts #1-#3: 3 pages, complete over snapshot inv-77/);
  });
});
