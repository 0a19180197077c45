import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { Attr, GenAi, GuardUnenforcedEvent, WarningEvent } from '../../../contract/index.ts';
import type { AgentRunSummary, ToolCallSummary } from '../../../demo/agent/index.ts';
import { runCarefulCleanupAgent, runCleanupAgent } from '../../../demo/agent/index.ts';
import { SEARCH_INDEX_SOURCE } from '../../../demo/world/index.ts';
import { memoryTracing } from './fixtures/tracing.ts';

const tracing = memoryTracing();
after(() => tracing.shutdown());

let sessions = 0;
const nextSession = (name: string) => `${name}-${++sessions}`;

function call(summary: AgentRunSummary, tool: string, nth = 0): ToolCallSummary {
  const found = summary.calls.filter((c) => c.tool === tool)[nth];
  assert.ok(found, `${tool} #${nth} was called`);
  return found;
}

function spanOf(spans: readonly ReadableSpan[], callId: string): ReadableSpan {
  const span = spans.find((s) => s.attributes[GenAi.TOOL_CALL_ID] === callId);
  assert.ok(span, `a span for call ${callId}`);
  return span;
}

test('refuses the absence-based cleanup after an empty incomplete search page', async () => {
  const sessionId = nextSession('naive-refused');
  const summary = await runCleanupAgent({ tooltrail: tracing.tooltrail('refused'), guard: 'on', sessionId });

  const search = call(summary, 'search_service_accounts');
  assert.equal(search.result?.state, 'incomplete_empty');
  const mark = call(summary, 'mark_control_compliant');
  assert.equal(mark.mutation?.basis, 'absence');
  assert.equal(mark.mutation?.guard, 'refused');
  assert.equal(mark.mutation?.ran, false);
  assert.deepEqual(
    mark.mutation?.findings.map((f) => [f.code, f.callId]),
    [['EVIDENCE_INCOMPLETE', search.callId]],
  );
  assert.equal(call(summary, 'close_ticket').mutation?.guard, 'refused');
  assert.deepEqual(summary.mutations.ran, []);
  assert.equal(summary.mutations.refused.length, 3);

  const { after: world } = summary.world;
  assert.equal(world.control.status, 'failing');
  assert.equal(world.ticket.status, 'open');
  assert.deepEqual(world.deleted, []);

  const spans = await tracing.sessionSpans(sessionId);
  const markSpan = spanOf(spans, mark.callId);
  assert.equal(markSpan.attributes[Attr.EFFECT], 'mutation');
  assert.equal(markSpan.attributes[Attr.MUTATION_BASIS], 'absence');
  assert.equal(markSpan.attributes[Attr.GUARD_DECISION], 'refused');
  assert.deepEqual(markSpan.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS], [search.callId]);
});

test('sends the deletion of an incompletely listed set for review, with recovery options', async () => {
  const summary = await runCleanupAgent({
    tooltrail: tracing.tooltrail('review_requested'),
    guard: 'on',
    sessionId: nextSession('naive-review'),
  });
  const listed = call(summary, 'list_service_accounts');
  assert.equal(listed.result?.state, 'incomplete_with_items');
  const del = call(summary, 'delete_service_accounts');
  assert.equal(del.mutation?.basis, 'presence');
  assert.equal(del.mutation?.guard, 'review_requested');
  const review = del.mutation?.review;
  assert.ok(review);
  assert.deepEqual([...new Set(review.incompleteReasons.map((r) => r.code))].sort(), [
    'COMPLETENESS_UNKNOWN',
    'TIME_BUDGET_EXCEEDED',
    'VISIBILITY_RESTRICTED',
  ]);
  // One option per reason (a longer deadline, a credential that sees the scope, a tool that states completeness).
  assert.deepEqual(
    review.options.map((o) => o.kind),
    [
      'retry_with_longer_deadline',
      'use_credential_that_sees_scope',
      'use_tool_that_states_completeness',
      'narrow_to_returned_ids',
      'abandon',
    ],
  );
  const retry = review.options[0];
  assert.equal(retry?.kind === 'retry_with_longer_deadline' ? retry.minimumSeconds : undefined, 2);
  assert.deepEqual(summary.mutations.reviewRequested.length, 3);
  assert.deepEqual(summary.world.after.deleted, []);
});

test('an owners directory that says nothing about completeness is never evidence', async () => {
  const summary = await runCleanupAgent({
    tooltrail: tracing.tooltrail(),
    guard: 'on',
    sessionId: nextSession('naive-directory'),
  });
  const lookup = call(summary, 'lookup_owners');
  assert.equal(lookup.result?.recognized, 'unknown');
  assert.equal(lookup.result?.complete, false);
  assert.equal(lookup.result?.state, 'incomplete_empty');
  const findings = call(summary, 'delete_service_accounts').mutation?.findings ?? [];
  assert.ok(findings.some((f) => f.code === 'EVIDENCE_INCOMPLETE' && f.callId === lookup.callId));
});

test('without the guard the cleanup runs, and the spans still carry the incomplete read and the absence basis', async () => {
  const sessionId = nextSession('naive-unguarded');
  const summary = await runCleanupAgent({ tooltrail: tracing.tooltrail(), guard: 'off', sessionId });

  assert.equal(summary.mutations.ran.length, 3);
  for (const m of summary.calls.filter((c) => c.mutation)) assert.equal(m.mutation?.guard, 'not_checked');
  const { before, after: world } = summary.world;
  assert.equal(world.deleted.length, 3);
  assert.equal(world.control.status, 'compliant');
  assert.equal(world.ticket.status, 'closed');
  assert.ok(world.unowned.length > 0, 'unowned accounts remain although the control says compliant');
  assert.equal(world.unowned.length, before.unowned.length - 3);

  const spans = await tracing.sessionSpans(sessionId);
  const search = call(summary, 'search_service_accounts');
  const readSpan = spanOf(spans, search.callId);
  assert.equal(readSpan.attributes[Attr.EFFECT], 'read');
  assert.equal(readSpan.attributes[Attr.RESULT_COMPLETE], false);
  assert.deepEqual(readSpan.attributes[Attr.RESULT_REASONS], ['MORE_PAGES_AVAILABLE']);
  assert.equal(readSpan.attributes[Attr.RESULT_ITEM_COUNT], 0);
  assert.deepEqual(readSpan.attributes[Attr.WARNINGS], ['STALE_INDEX']);
  assert.deepEqual(
    readSpan.events.map((e) => e.attributes?.[WarningEvent.SOURCE]),
    [SEARCH_INDEX_SOURCE],
  );

  const mark = call(summary, 'mark_control_compliant');
  const markSpan = spanOf(spans, mark.callId);
  assert.equal(markSpan.attributes[Attr.EFFECT], 'mutation');
  assert.equal(markSpan.attributes[Attr.MUTATION_BASIS], 'absence');
  assert.equal(markSpan.attributes[Attr.MUTATION_TARGET_COUNT], 1);
  assert.deepEqual(markSpan.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS], [search.callId]);
  assert.deepEqual(markSpan.attributes[Attr.MUTATION_EVIDENCE_SNAPSHOTS], [readSpan.attributes[Attr.SCOPE_SNAPSHOT]]);
  assert.equal(markSpan.attributes[Attr.GUARD_DECISION], undefined, 'no guard ran, none is claimed');
  // What the guard would have said travels beside it, never as a decision.
  assert.equal(mark.mutation?.unenforced?.decision, 'refused');
  assert.deepEqual(
    markSpan.events.find((e) => e.name === GuardUnenforcedEvent.NAME)?.attributes?.[GuardUnenforcedEvent.FINDINGS],
    ['EVIDENCE_INCOMPLETE'],
  );

  const del = spanOf(spans, call(summary, 'delete_service_accounts').callId);
  assert.equal(del.attributes[Attr.MUTATION_BASIS], 'presence');
  assert.equal(del.attributes[Attr.SCOPE_RESOURCE], 'service_accounts');
});

test('every session numbers its spans 1..N without a gap, guarded or not', async () => {
  for (const guard of ['on', 'off'] as const) {
    const sessionId = nextSession(`sequence-${guard}`);
    const summary = await runCleanupAgent({ tooltrail: tracing.tooltrail(), guard, sessionId });
    const spans = await tracing.sessionSpans(sessionId);
    const seqs = spans.map((s) => s.attributes[Attr.SESSION_SEQUENCE]).sort((a, b) => Number(a) - Number(b));
    assert.deepEqual(
      seqs,
      summary.calls.map((_, i) => i + 1),
    );
  }
});

test('allows the careful cleanup after a complete all-pages read', async () => {
  const sessionId = nextSession('careful');
  const summary = await runCarefulCleanupAgent({ tooltrail: tracing.tooltrail(), guard: 'on', sessionId });

  const mutations = summary.calls.filter((c) => c.mutation);
  assert.deepEqual(
    mutations.map((c) => [c.tool, c.mutation?.guard]),
    [
      ['delete_service_accounts', 'allowed'],
      ['mark_control_compliant', 'allowed'],
      ['close_ticket', 'allowed'],
    ],
  );
  const { before, after: world } = summary.world;
  assert.deepEqual(
    world.deleted.map((a) => a.id),
    before.unowned.map((a) => a.id),
  );
  assert.deepEqual(world.unowned, []);
  assert.equal(world.control.status, 'compliant');
  assert.ok(
    world.deleted.every((a) => a.owner === null),
    'no owned account was deleted',
  );

  // It followed the continuation: the first inventory read timed out on a shard, the retry was complete.
  assert.equal(call(summary, 'list_all_service_accounts', 0).result?.nextStep, 'retry_with_longer_deadline');
  assert.equal(call(summary, 'list_all_service_accounts', 1).result?.complete, true);
  assert.ok((call(summary, 'list_all_service_accounts', 1).result?.pages ?? 0) > 1);
});

test('the careful agent acts on nothing when its role cannot see every account', async () => {
  const summary = await runCarefulCleanupAgent({
    tooltrail: tracing.tooltrail(),
    guard: 'off',
    sessionId: nextSession('careful-blind'),
    role: 'cleanup-bot',
  });
  assert.equal(summary.calls.filter((c) => c.mutation).length, 0);
  const last = call(summary, 'list_all_service_accounts', 1);
  assert.ok(last.result?.reasons.some((r) => r.code === 'VISIBILITY_RESTRICTED'));
  assert.deepEqual(summary.world.after.deleted, []);
});

/** The detectors' rule, judged from spans only: a mutation must name evidence, and all of it must be complete. */
async function mutationsOnIncompleteEvidence(sessionId: string): Promise<string[]> {
  const spans = await tracing.sessionSpans(sessionId);
  const complete = new Map(spans.map((s) => [s.attributes[GenAi.TOOL_CALL_ID], s.attributes[Attr.RESULT_COMPLETE]]));
  return spans
    .filter((s) => s.attributes[Attr.EFFECT] === 'mutation')
    .filter((s) => {
      const evidence = (s.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS] ?? []) as string[];
      return evidence.length === 0 || evidence.some((id) => complete.get(id) !== true);
    })
    .map((s) => String(s.attributes[GenAi.TOOL_NAME]));
}

test('from its spans alone, every naive mutation rests on incomplete evidence and no careful one does', async () => {
  const naive = nextSession('spans-naive');
  await runCleanupAgent({ tooltrail: tracing.tooltrail(), guard: 'off', sessionId: naive });
  assert.deepEqual(await mutationsOnIncompleteEvidence(naive), [
    'delete_service_accounts',
    'mark_control_compliant',
    'close_ticket',
  ]);
  const careful = nextSession('spans-careful');
  await runCarefulCleanupAgent({ tooltrail: tracing.tooltrail(), guard: 'off', sessionId: careful });
  assert.deepEqual(await mutationsOnIncompleteEvidence(careful), []);
});

test('the same seed tells the same story', async () => {
  const strip = (s: AgentRunSummary) =>
    JSON.stringify({ ...s, sessionId: '', calls: s.calls.map((c) => ({ ...c, callId: '' })) }).replace(
      /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
      'ID',
    );
  const run = () =>
    runCleanupAgent({ tooltrail: tracing.tooltrail(), guard: 'on', sessionId: nextSession('same'), seed: 5 });
  assert.equal(strip(await run()), strip(await run()));
});

test('rejects bad options before doing anything', async () => {
  await assert.rejects(
    runCleanupAgent({
      tooltrail: tracing.tooltrail(),
      guard: 'maybe' as 'on',
      sessionId: '',
    }),
    (err: Error) => /guard/.test(err.message) && /sessionId/.test(err.message),
  );
});
