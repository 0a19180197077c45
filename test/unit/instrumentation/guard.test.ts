import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Attr } from '../../../contract/index.ts';
import type { MutationOutcome, ReviewRequest } from '../../../instrumentation/index.ts';
import {
  collectAllPages,
  completeResult,
  createTooltrail,
  errorResult,
  partialResult,
} from '../../../instrumentation/index.ts';
import { memoryTracing } from './fixtures/otel.ts';

const tracing = memoryTracing();
after(() => tracing.shutdown());

const SCOPE = { resource: 'cloud_resources', visibility: 'readable by this credential', snapshot: 'inv-7' };

function setup(onUnsafeEvidence: 'refused' | 'review_requested' = 'refused', evidenceLedgerSize?: number) {
  const tt = createTooltrail({
    tracerProvider: tracing.provider,
    onUnsafeEvidence,
    ...(evidenceLedgerSize ? { evidenceLedgerSize } : {}),
  });
  const session = tt.session({ conversationId: 'conv-guard' });
  let runs = 0;
  const archive = tt.mutationTool('archive_resources', (args: { ids: string[] }) => {
    runs += 1;
    return completeResult({ items: args.ids, scope: { resource: 'cloud_resources' } });
  });
  return { tt, session, archive, runs: () => runs };
}

function review(out: MutationOutcome): ReviewRequest {
  assert.notEqual(out.decision, 'allowed');
  if (out.decision === 'allowed' || out.decision === 'not_checked') throw new Error('unreachable');
  return out.review;
}

function findingCodes(out: MutationOutcome): string[] {
  return out.findings.map((f) => f.code);
}

const ids = (n: number, prefix = 'res') => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

test('refuses a mutation that declares no evidence', async () => {
  const { session, archive, runs } = setup();
  const out = await archive(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [] });
  assert.equal(out.decision, 'refused');
  assert.deepEqual(findingCodes(out), ['NO_EVIDENCE']);
  assert.equal(runs(), 0);
});

test('refuses evidence the session never read (a forged or foreign call id)', async () => {
  const { tt, session, archive } = setup();
  const other = tt.session({ conversationId: 'someone-else' });
  const read = tt.readTool('inventory', () => completeResult({ items: [{ id: 'a' }], scope: SCOPE }));
  const foreign = await read(other, {});
  const out = await archive(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [foreign] });
  assert.deepEqual(findingCodes(out), ['EVIDENCE_NOT_FOUND']);
  const forged = await archive(
    session,
    { ids: ['a'] },
    { basis: 'presence', targets: ['a'], evidence: [{ callId: 'made-up' }] },
  );
  assert.equal(forged.decision, 'refused');
});

test('judges evidence by what the session recorded, not by what the caller claims about it', async () => {
  const { tt, session, archive } = setup();
  const read = tt.readTool('inventory', () =>
    partialResult({ items: [{ id: 'a' }], reasons: ['TIME_BUDGET_EXCEEDED'], scope: SCOPE }),
  );
  const outcome = await read(session, {});
  const doctored = { ...outcome, complete: true };
  const out = await archive(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [doctored] });
  assert.equal(out.decision, 'refused');
});

test('refuses an absence-based mutation on incomplete evidence', async () => {
  const { tt, session, archive } = setup();
  const read = tt.readTool('list_in_use', () =>
    partialResult({ items: [], reasons: ['VISIBILITY_RESTRICTED'], scope: SCOPE }),
  );
  const evidence = await read(session, {});
  const out = await archive(session, { ids: ['x'] }, { basis: 'absence', targets: ['x'], evidence: [evidence] });
  assert.equal(out.decision, 'refused');
  assert.deepEqual(findingCodes(out), ['EVIDENCE_INCOMPLETE']);
});

test('refuses a presence-based mutation on incomplete evidence too', async () => {
  const { tt, session, archive } = setup();
  const read = tt.readTool('list_inactive', () =>
    partialResult({ items: [{ id: 'p-1' }], reasons: ['RESULT_LIMIT_REACHED'], scope: SCOPE }),
  );
  const evidence = await read(session, {});
  const out = await archive(session, { ids: ['p-1'] }, { basis: 'presence', targets: ['p-1'], evidence: [evidence] });
  assert.equal(out.decision, 'refused');
});

test('refuses evidence whose read failed or threw', async () => {
  const { tt, session, archive } = setup();
  const failed = tt.readTool('inventory_failed', () => errorResult({ type: 'timeout', message: 'no answer' }));
  const thrown = tt.readTool('inventory_thrown', () => {
    throw new Error('boom');
  });
  const a = await failed(session, {}, { toolCallId: 'failed-1' });
  await assert.rejects(thrown(session, {}, { toolCallId: 'thrown-1' }));
  for (const evidence of [a, { callId: 'thrown-1' }]) {
    const out = await archive(session, { ids: [] }, { basis: 'absence', targets: ['z'], evidence: [evidence] });
    // A failed read returned no items either: the target cannot be checked against it.
    assert.deepEqual(findingCodes(out), ['EVIDENCE_INCOMPLETE', 'TARGETS_UNVERIFIABLE']);
    assert.deepEqual(
      review(out).options.map((o) => o.kind),
      ['retry_later', 'read_with_item_ids', 'abandon'],
    );
  }
});

test('allows an absence-based mutation only on complete evidence that declares its scope', async () => {
  const { tt, session, archive, runs } = setup();
  const scoped = tt.readTool('list_in_use', () => completeResult({ items: [{ id: 'keep' }], scope: SCOPE }));
  const unscoped = tt.readTool('list_in_use_unscoped', () => completeResult({ items: [{ id: 'keep' }] }));
  const ok = await archive(
    session,
    { ids: ['gone'] },
    { basis: 'absence', targets: ['gone'], evidence: [await scoped(session, {})], resource: 'cloud_resources' },
  );
  assert.equal(ok.decision, 'allowed');
  assert.equal(runs(), 1);
  const bad = await archive(
    session,
    { ids: ['gone'] },
    { basis: 'absence', targets: ['gone'], evidence: [await unscoped(session, {})] },
  );
  assert.deepEqual(findingCodes(bad), ['EVIDENCE_SCOPE_UNDECLARED']);
  assert.equal(runs(), 1);
});

test('refuses a mutation whose evidence covered another resource', async () => {
  const { tt, session, archive } = setup();
  const read = tt.readTool('list_users', () => completeResult({ items: [], scope: { resource: 'users' } }));
  const out = await archive(
    session,
    { ids: ['x'] },
    { basis: 'absence', targets: ['x'], evidence: [await read(session, {})], resource: 'cloud_resources' },
  );
  assert.deepEqual(findingCodes(out), ['SCOPE_MISMATCH']);
});

test('refuses presence-based targets that no evidence returned', async () => {
  const { tt, session, archive } = setup();
  const read = tt.readTool('list_inactive', () => completeResult({ items: [{ id: 'p-1' }], scope: SCOPE }));
  const evidence = await read(session, {});
  const out = await archive(
    session,
    { ids: ['p-1', 'p-2'] },
    { basis: 'presence', targets: ['p-1', 'p-2'], evidence: [evidence] },
  );
  assert.deepEqual(findingCodes(out), ['TARGETS_NOT_IN_EVIDENCE']);
  const narrowed = review(out).options.find((o) => o.kind === 'narrow_to_returned_ids');
  assert.deepEqual(narrowed && 'targets' in narrowed ? narrowed.targets : undefined, ['p-1']);
});

test('requests review instead of refusing when configured, and never runs the mutation', async () => {
  const { tt, session, archive, runs } = setup('review_requested');
  const read = tt.readTool('list', () => partialResult({ items: [], reasons: ['MORE_PAGES_AVAILABLE'] }));
  const out = await archive(
    session,
    { ids: [] },
    { basis: 'absence', targets: ['a'], evidence: [await read(session, {})] },
  );
  assert.equal(out.decision, 'review_requested');
  assert.equal(runs(), 0);
  const span = (await tracing.spans()).at(-1);
  assert.equal(span?.attributes[Attr.GUARD_DECISION], 'review_requested');
});

test('a review request shows the action, targets and count, scope, incomplete reasons and the recovery options', async () => {
  // The article's case: the inventory timed out after returning 842 resources.
  const { tt, session, archive } = setup('review_requested');
  const returned = ids(842);
  const inventory = tt.readTool('inventory', () =>
    partialResult({
      items: returned.map((id) => ({ id })),
      reasons: [{ code: 'TIME_BUDGET_EXCEEDED', message: 'the inventory stopped at its deadline' }],
      continuation: { kind: 'retry_with_deadline', minimum_seconds: 30 },
      scope: SCOPE,
    }),
  );
  const evidence = await inventory(session, {}, { toolCallId: 'inv-call' });
  const targets = [...returned.slice(0, 10), 'res-9999'];
  const out = await archive(
    session,
    { ids: targets },
    { basis: 'presence', targets, evidence: [evidence], resource: 'cloud_resources' },
    { toolCallId: 'archive-call' },
  );
  const r = review(out);
  assert.equal(r.action, 'archive_resources');
  assert.equal(r.callId, 'archive-call');
  assert.equal(r.basis, 'presence');
  assert.deepEqual(r.targets, targets);
  assert.equal(r.targetCount, 11);
  assert.deepEqual(r.scope, {
    resource: 'cloud_resources',
    visibility: ['readable by this credential'],
    snapshots: ['inv-7'],
  });
  assert.deepEqual(r.incompleteReasons, [
    { code: 'TIME_BUDGET_EXCEEDED', message: 'the inventory stopped at its deadline', evidenceCallId: 'inv-call' },
  ]);
  assert.deepEqual(r.evidence, [
    {
      callId: 'inv-call',
      toolName: 'inventory',
      status: 'partial',
      complete: false,
      itemCount: 842,
      snapshot: 'inv-7',
      reasons: ['TIME_BUDGET_EXCEEDED'],
    },
  ]);
  assert.deepEqual(
    r.options.map((o) => o.kind),
    ['retry_with_longer_deadline', 'narrow_to_returned_ids', 'abandon'],
  );
  const retry = r.options[0];
  assert.equal(retry && 'minimumSeconds' in retry ? retry.minimumSeconds : undefined, 30);
  const narrow = r.options[1];
  assert.equal(narrow && 'targetCount' in narrow ? narrow.targetCount : undefined, 10);
});

test('a snapshot token is evidence only if the session read that snapshot completely', async () => {
  const { tt, session, archive } = setup();
  const page = tt.readTool('first_page', () =>
    partialResult({
      items: [{ id: 'a' }],
      reasons: ['MORE_PAGES_AVAILABLE'],
      continuation: { kind: 'next_cursor', cursor: 'c2' },
      scope: SCOPE,
    }),
  );
  await page(session, {});
  const before = await archive(session, { ids: [] }, { basis: 'absence', targets: ['z'], evidence: ['inv-7'] });
  assert.deepEqual(findingCodes(before), ['EVIDENCE_INCOMPLETE']);
  const unknown = await archive(session, { ids: [] }, { basis: 'absence', targets: ['z'], evidence: ['inv-8'] });
  assert.deepEqual(findingCodes(unknown), ['EVIDENCE_NOT_FOUND']);

  // The all-pages collector then reads the same snapshot to the end: the token is now covered.
  const pages = [
    partialResult({
      items: [{ id: 'a' }],
      reasons: ['MORE_PAGES_AVAILABLE'],
      continuation: { kind: 'next_cursor', cursor: 'c2' },
      scope: SCOPE,
    }),
    completeResult({ items: [{ id: 'b' }], scope: SCOPE }),
  ];
  const all = tt.readTool('inventory_all', () =>
    collectAllPages({ fetchPage: async ({ pageIndex }) => pages[pageIndex], pageSize: 1 }),
  );
  const full = await all(session, {});
  assert.equal(full.complete, true);
  const after = await archive(session, { ids: [] }, { basis: 'absence', targets: ['z'], evidence: ['inv-7'] });
  assert.equal(after.decision, 'allowed');
  const span = (await tracing.spans()).at(-1);
  assert.deepEqual(span?.attributes[Attr.MUTATION_EVIDENCE_SNAPSHOTS], ['inv-7']);
  assert.deepEqual(span?.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS], [full.callId]);
});

test('forgets the oldest reads beyond the ledger size: their evidence becomes unknown', async () => {
  const { tt, session, archive } = setup('refused', 2);
  const read = tt.readTool('inventory', () => completeResult({ items: [], scope: SCOPE }));
  const first = await read(session, {});
  await read(session, {});
  await read(session, {});
  const out = await archive(session, { ids: [] }, { basis: 'absence', targets: ['z'], evidence: [first] });
  assert.deepEqual(findingCodes(out), ['EVIDENCE_NOT_FOUND']);
});

test('counts the guard decisions of a session', async () => {
  const { tt, session, archive } = setup();
  const read = tt.readTool('inventory', () => completeResult({ items: [{ id: 'a' }], scope: SCOPE }));
  const evidence = await read(session, {});
  await archive(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [evidence] });
  await archive(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [] });
  assert.deepEqual(session.decisions(), { allowed: 1, refused: 1, review_requested: 0 });
});

test('refuses absence-based targets that the evidence did return', async () => {
  const { tt, session, archive } = setup();
  const read = tt.readTool('list_in_use', () => completeResult({ items: [{ id: 'keep' }], scope: SCOPE }));
  const out = await archive(
    session,
    { ids: ['keep', 'gone'] },
    { basis: 'absence', targets: ['keep', 'gone'], evidence: [await read(session, {})] },
  );
  assert.deepEqual(findingCodes(out), ['TARGETS_PRESENT_IN_EVIDENCE']);
});

test("a mutation's own result is never evidence for another mutation", async () => {
  const { tt, session, archive } = setup();
  const read = tt.readTool('inventory', () => completeResult({ items: [{ id: 'a' }], scope: SCOPE }));
  const first = await archive(
    session,
    { ids: ['a'] },
    { basis: 'presence', targets: ['a'], evidence: [await read(session, {})] },
  );
  assert.equal(first.decision, 'allowed');
  const chained = await archive(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [first] });
  assert.deepEqual(findingCodes(chained), ['EVIDENCE_NOT_FOUND']);
});
