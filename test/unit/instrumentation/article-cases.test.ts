/**
 * The cases of the truncation article as a table: every reason code on a full list and on an empty list, the
 * "empty first page with more pages" fixture, and the cleanup that follows each of them.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { ReasonCode } from '../../../contract/index.ts';
import { Attr, REASON_CODES } from '../../../contract/index.ts';
import type { Continuation, ToolResult } from '../../../instrumentation/index.ts';
import {
  completenessState,
  completeResult,
  createTooltrail,
  isEvidenceOfAbsence,
  partialResult,
} from '../../../instrumentation/index.ts';
import { memoryTracing } from './fixtures/otel.ts';

const tracing = memoryTracing();
after(() => tracing.shutdown());

type AgentDecision = 'perform_cleanup' | 'refuse_or_request_review';

/** The continuation a well-behaved tool offers with each reason, and the next step the agent must take. */
const REASON_TABLE: Record<ReasonCode, { continuation: Continuation; next: string }> = {
  MORE_PAGES_AVAILABLE: { continuation: { kind: 'next_cursor', cursor: 'cursor-2' }, next: 'continue_search' },
  RESULT_LIMIT_REACHED: { continuation: { kind: 'narrow_query', hint: 'filter by team' }, next: 'narrow_query' },
  TIME_BUDGET_EXCEEDED: {
    continuation: { kind: 'retry_with_deadline', minimum_seconds: 30 },
    next: 'retry_with_longer_deadline',
  },
  SOURCE_UNAVAILABLE: { continuation: { kind: 'none' }, next: 'treat_as_partial' },
  VISIBILITY_RESTRICTED: { continuation: { kind: 'none' }, next: 'treat_as_partial' },
  CLIENT_LIMIT_REACHED: { continuation: { kind: 'next_cursor', cursor: 'cursor-11' }, next: 'continue_search' },
  CURSOR_EXPIRED: { continuation: { kind: 'none' }, next: 'treat_as_partial' },
  RATE_LIMITED: { continuation: { kind: 'retry_after', after_seconds: 20 }, next: 'retry_later' },
  COMPLETENESS_UNKNOWN: { continuation: { kind: 'none' }, next: 'treat_as_partial' },
};

const LISTS = {
  full: [
    { id: 'svc-184', owner: null },
    { id: 'svc-185', owner: null },
  ],
  empty: [],
} as const;

function toDecision(decision: string): AgentDecision {
  return decision === 'allowed' ? 'perform_cleanup' : 'refuse_or_request_review';
}

/** Read the result through a wrapped tool, then try a cleanup based on it. */
async function readThenCleanup(result: unknown, onUnsafeEvidence: 'refused' | 'review_requested' = 'refused') {
  const tt = createTooltrail({ tracerProvider: tracing.provider, onUnsafeEvidence });
  const session = tt.session({ conversationId: 'article' });
  const search = tt.readTool('find_unowned_service_accounts', () => result);
  const cleanup = tt.mutationTool('disable_unowned_service_accounts', () => completeResult({}));
  const read = await search(session, {});
  const readSpan = (await tracing.spans()).at(-1);
  const ids = read.items.map((i) => (i as { id: string }).id);
  const presence = await cleanup(session, {}, { basis: 'presence', targets: ids, evidence: [read] });
  const absence = await cleanup(session, {}, { basis: 'absence', targets: ['svc-1', 'svc-2'], evidence: [read] });
  return { read, readSpan, presence, absence };
}

for (const code of REASON_CODES) {
  for (const [listName, items] of Object.entries(LISTS)) {
    test(`${code} on a ${listName} list: not complete, not evidence of absence, no cleanup`, async () => {
      const { continuation, next } = REASON_TABLE[code];
      const result = partialResult({
        items: [...items],
        reasons: [{ code, message: `${code} in the article` }],
        continuation,
        scope: { resource: 'service_accounts', visibility: 'readable by this credential', snapshot: 'snap-1' },
      });
      const { read, readSpan, presence, absence } = await readThenCleanup(result);
      assert.equal(read.complete, false);
      assert.equal(read.state, items.length > 0 ? 'incomplete_with_items' : 'incomplete_empty');
      assert.equal(isEvidenceOfAbsence(read.result), false);
      assert.equal(read.nextStep, next);
      assert.equal(readSpan?.attributes[Attr.RESULT_COMPLETE], false);
      assert.deepEqual(readSpan?.attributes[Attr.RESULT_REASONS], [code]);
      assert.equal(readSpan?.attributes[Attr.RESULT_ITEM_COUNT], items.length);
      assert.equal(readSpan?.attributes[Attr.RESULT_CONTINUATION], continuation.kind);
      assert.equal(toDecision(presence.decision), 'refuse_or_request_review');
      assert.equal(toDecision(absence.decision), 'refuse_or_request_review');
    });
  }
}

test('the four states stay distinct: complete or not, with items or empty', () => {
  const scope = { resource: 'service_accounts' };
  const states = [
    completeResult({ items: [{ id: 'a' }], scope }),
    completeResult({ items: [], scope }),
    partialResult({ items: [{ id: 'a' }], reasons: ['RESULT_LIMIT_REACHED'], scope }),
    partialResult({ items: [], reasons: ['RESULT_LIMIT_REACHED'], scope }),
  ].map((r: ToolResult) => completenessState(r));
  assert.deepEqual(states, ['complete_with_items', 'complete_empty', 'incomplete_with_items', 'incomplete_empty']);
});

test('a complete empty list is evidence of absence and allows an absence-based cleanup', async () => {
  const { read, absence } = await readThenCleanup(
    completeResult({ items: [], scope: { resource: 'service_accounts', snapshot: 'snap-2' } }),
  );
  assert.equal(read.state, 'complete_empty');
  assert.equal(isEvidenceOfAbsence(read.result), true);
  assert.equal(read.nextStep, 'use_as_complete_evidence');
  assert.equal(toDecision(absence.decision), 'perform_cleanup');
});

test('a complete full list allows a presence-based cleanup of what it returned', async () => {
  const { presence } = await readThenCleanup(
    completeResult({ items: [...LISTS.full], scope: { resource: 'service_accounts' } }),
  );
  assert.equal(toDecision(presence.decision), 'perform_cleanup');
});

test('empty first page with more pages: continue_search, and a cleanup after it is refused', async () => {
  const fixture = {
    case: 'empty first page with more pages',
    response: {
      status: 'partial',
      items: [],
      completeness: {
        complete: false,
        reasons: [{ code: 'MORE_PAGES_AVAILABLE' }],
        continuation: { kind: 'next_cursor', cursor: 'cursor-2' },
      },
    },
    expected_agent_decision: 'continue_search',
  };
  const { read, absence } = await readThenCleanup(fixture.response);
  assert.equal(read.recognized, 'contract');
  assert.equal(read.nextStep, fixture.expected_agent_decision);
  assert.equal(toDecision(absence.decision), 'refuse_or_request_review');
  assert.equal(absence.decision, 'refused');
});

test('empty first page with more pages: a cleanup after it is sent for review when so configured', async () => {
  const { absence } = await readThenCleanup(
    partialResult({
      items: [],
      reasons: ['MORE_PAGES_AVAILABLE'],
      continuation: { kind: 'next_cursor', cursor: 'cursor-2' },
    }),
    'review_requested',
  );
  assert.equal(absence.decision, 'review_requested');
});

test("the article's flat shape is not this contract: recorded as unknown, and a cleanup after it is refused", async () => {
  const { read, absence } = await readThenCleanup({
    items: [],
    complete: false,
    truncated: false,
    incomplete_reasons: ['MORE_PAGES_AVAILABLE'],
    next_cursor: 'cursor-2',
  });
  assert.equal(read.complete, false);
  assert.deepEqual(
    read.result.completeness.reasons.map((r) => r.code),
    ['COMPLETENESS_UNKNOWN'],
  );
  assert.equal(toDecision(absence.decision), 'refuse_or_request_review');
});

test('an empty array with no contract at all (HTTP 200, []) is never evidence of absence', async () => {
  const { read, absence } = await readThenCleanup([]);
  assert.equal(read.state, 'incomplete_empty');
  assert.equal(toDecision(absence.decision), 'refuse_or_request_review');
});
