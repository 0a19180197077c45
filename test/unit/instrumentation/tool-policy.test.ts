/** Tool policies: a mutation called with arguments only is judged on the session's own reads of its resource. */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Attr, GenAi } from '../../../contract/index.ts';
import type { MutationPolicy } from '../../../instrumentation/index.ts';
import {
  completeResult,
  createTooltrail,
  parseToolPolicies,
  partialResult,
  readTargets,
} from '../../../instrumentation/index.ts';
import { memoryTracing } from './fixtures/otel.ts';

const tracing = memoryTracing();
after(() => tracing.shutdown());

const ACCOUNTS = { resource: 'service_accounts', visibility: 'all', snapshot: 's-1' };
type Args = { ids: string[] };

function setup(policy: MutationPolicy<Args> = { resource: 'service_accounts', basis: 'presence', targets: '/ids' }) {
  let now = 1_000_000;
  const tt = createTooltrail({ tracerProvider: tracing.provider, clock: () => now, evidenceMaxAgeMs: 60_000 });
  const session = tt.session({ conversationId: `conv-policy-${Math.random()}` });
  let ran = 0;
  const disable = tt.mutationTool<Args>({ name: 'disable_accounts', policy }, (a) => {
    ran += 1;
    return completeResult({ items: a.ids });
  });
  const complete = tt.readTool('list_accounts', () =>
    completeResult({ items: [{ id: 'a1' }, { id: 'a2' }], scope: ACCOUNTS }),
  );
  const partial = tt.readTool('list_accounts_page', () =>
    partialResult({
      items: [{ id: 'a1' }],
      reasons: ['MORE_PAGES_AVAILABLE'],
      continuation: { kind: 'next_cursor', cursor: 'p2' },
      scope: ACCOUNTS,
    }),
  );
  return { tt, session, disable, complete, partial, ran: () => ran, advance: (ms: number) => (now += ms) };
}

const codes = (out: { findings: readonly { code: string }[] }) => out.findings.map((f) => f.code);

test('a mutation called with arguments only is allowed on a complete read of its resource that returned its targets', async () => {
  const { session, disable, complete, ran } = setup();
  const read = await complete(session, {});
  const out = await disable(session, { ids: ['a1'] });
  assert.equal(out.decision, 'allowed');
  assert.equal(ran(), 1);
  const span = (await tracing.spans()).find(
    (s) => s.attributes[Attr.GUARD_DECISION] && s.name.endsWith('disable_accounts'),
  );
  assert.deepEqual(span?.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS], [read.callId]);
  assert.equal(span?.attributes[Attr.MUTATION_BASIS], 'presence');
  assert.equal(span?.attributes[Attr.SCOPE_RESOURCE], 'service_accounts');
});

test('a mutation called with arguments only after an incomplete read is refused with that read and its reasons', async () => {
  const { session, disable, partial, ran } = setup();
  const read = await partial(session, {});
  const out = await disable(session, { ids: ['a1'] });
  assert.equal(out.decision, 'refused');
  assert.deepEqual(codes(out), ['EVIDENCE_INCOMPLETE']);
  assert.equal(out.findings[0]?.callId, read.callId);
  assert.equal(ran(), 0);
  if (out.decision !== 'refused') throw new Error('unreachable');
  assert.deepEqual(
    out.review.incompleteReasons.map((r) => r.code),
    ['MORE_PAGES_AVAILABLE'],
  );
});

test('with no read of its resource in the session a policy mutation is refused as having no evidence', async () => {
  const { tt, session, disable } = setup();
  const other = tt.readTool('list_buckets', () =>
    completeResult({ items: [{ id: 'a1' }], scope: { resource: 'buckets' } }),
  );
  await other(session, {});
  const out = await disable(session, { ids: ['a1'] });
  assert.deepEqual(codes(out), ['NO_EVIDENCE']);
  assert.match(out.findings[0]?.message ?? '', /no read of service_accounts/);
});

test('presence targets read from the arguments by JSON pointer must have been returned by the read', async () => {
  const { session, disable, complete } = setup();
  await complete(session, {});
  const out = await disable(session, { ids: ['a1', 'zz-9'] });
  assert.deepEqual(codes(out), ['TARGETS_NOT_IN_EVIDENCE']);
});

test('targets can be read from the arguments by a function', async () => {
  const { session, disable, complete } = setup({
    resource: 'service_accounts',
    basis: 'presence',
    targets: (a) => a.ids.map((id) => id.toLowerCase()),
  });
  await complete(session, {});
  assert.equal((await disable(session, { ids: ['A1', 'A2'] })).decision, 'allowed');
  assert.deepEqual(codes(await disable(session, { ids: ['B7'] })), ['TARGETS_NOT_IN_EVIDENCE']);
});

test('targets the policy cannot read from the arguments refuse the mutation (TARGETS_UNREADABLE), never an empty target list', async () => {
  const { session, disable, complete, ran } = setup();
  await complete(session, {});
  const missing = await disable(session, { targets: ['a1'] } as unknown as Args);
  assert.deepEqual(codes(missing), ['TARGETS_UNREADABLE']);
  assert.match(missing.findings[0]?.message ?? '', /nothing at \/ids/);
  const wrongType = await disable(session, { ids: [{ id: 'a1' }] } as unknown as Args);
  assert.deepEqual(codes(wrongType), ['TARGETS_UNREADABLE']);
  const {
    session: s2,
    disable: throwing,
    complete: c2,
  } = setup({
    resource: 'service_accounts',
    basis: 'presence',
    targets: () => {
      throw new Error('boom');
    },
  });
  await c2(s2, {});
  assert.deepEqual(codes(await throwing(s2, { ids: ['a1'] })), ['TARGETS_UNREADABLE']);
  assert.equal(ran(), 0);
});

test('reads older than the evidence window are not evidence: the mutation is refused as EVIDENCE_STALE', async () => {
  const { session, disable, complete, advance } = setup({
    resource: 'service_accounts',
    basis: 'presence',
    targets: '/ids',
    evidenceWindow: { maxAgeMs: 5_000 },
  });
  await complete(session, {});
  advance(4_000);
  assert.equal((await disable(session, { ids: ['a1'] })).decision, 'allowed');
  advance(2_000);
  const out = await disable(session, { ids: ['a1'] });
  assert.deepEqual(codes(out), ['EVIDENCE_STALE']);
});

test('a complete read within the window is the evidence even when an incomplete read of the resource came later', async () => {
  const { session, disable, complete, partial } = setup();
  await complete(session, {});
  await partial(session, {});
  assert.equal((await disable(session, { ids: ['a2'] })).decision, 'allowed');
});

test('an explicit plan wins over the policy', async () => {
  const { session, disable, complete, partial } = setup();
  await complete(session, {});
  const page = await partial(session, {});
  // The ledger holds a complete read, but the caller relies on the incomplete one: that is what is judged.
  const out = await disable(session, { ids: ['a1'] }, { basis: 'presence', targets: ['a1'], evidence: [page] });
  assert.deepEqual(codes(out), ['EVIDENCE_INCOMPLETE']);
  assert.equal(out.findings[0]?.callId, page.callId);
});

test("a read tool's policy resource makes its scope-less results evidence for that resource", async () => {
  const { tt, session } = setup();
  const bare = tt.readTool({ name: 'list_owned', policy: { resource: 'service_accounts' } }, () =>
    completeResult({ items: [{ id: 'a1' }] }),
  );
  const unscoped = tt.readTool('list_unscoped', () => completeResult({ items: [{ id: 'a1' }] }));
  const remove = tt.mutationTool<{ id: string }>(
    { name: 'delete_unlisted', policy: { resource: 'service_accounts', basis: 'absence', targets: '/id' } },
    () => completeResult({ items: [] }),
  );
  await unscoped(session, {});
  assert.deepEqual(codes(await remove(session, { id: 'x9' })), ['NO_EVIDENCE']);
  const read = await bare(session, {});
  const spans = await tracing.spans();
  assert.equal(
    spans.find((s) => s.attributes[GenAi.TOOL_CALL_ID] === read.callId)?.attributes[Attr.SCOPE_RESOURCE],
    'service_accounts',
  );
  assert.equal((await remove(session, { id: 'x9' })).decision, 'allowed');
  assert.deepEqual(codes(await remove(session, { id: 'a1' })), ['TARGETS_PRESENT_IN_EVIDENCE']);
});

test('a proxy records reads it saw and asks the guard about a mutation call without running anything', () => {
  const { tt, session } = setup();
  const policy: MutationPolicy<Args> = { resource: 'service_accounts', basis: 'presence', targets: '/ids' };
  const before = tt.judgeMutation(session, { toolName: 'disable_accounts', args: { ids: ['a1'] }, policy });
  assert.deepEqual(codes(before), ['NO_EVIDENCE']);
  const read = tt.recordRead(session, {
    toolName: 'list_accounts',
    callId: 'model-call-1',
    value: completeResult({ items: [{ id: 'a1' }], scope: ACCOUNTS }),
  });
  assert.equal(read.complete, true);
  const judged = tt.judgeMutation(session, { toolName: 'disable_accounts', args: { ids: ['a1'] }, policy });
  assert.equal(judged.decision, 'allowed');
  assert.deepEqual(judged.evidenceCallIds, ['model-call-1']);
  assert.deepEqual(judged.plan?.targets, ['a1']);
  assert.deepEqual(session.decisions(), { allowed: 1, refused: 1, review_requested: 0 });
});

test('a read recorded from outside with no contract is unknown completeness, never evidence of absence', () => {
  const { tt, session } = setup();
  const read = tt.recordRead(session, { toolName: 'list_raw', value: [], resource: 'service_accounts' });
  assert.equal(read.complete, false);
  const judged = tt.judgeMutation(session, {
    toolName: 'mark_compliant',
    args: {},
    policy: { resource: 'service_accounts', basis: 'absence' },
  });
  assert.deepEqual(codes(judged), ['EVIDENCE_INCOMPLETE']);
  assert.ok(judged.review);
});

test('a tool defined with an invalid policy fails when it is defined, naming the tool and the key', () => {
  const { tt } = setup();
  assert.throws(
    () =>
      tt.mutationTool(
        { name: 'bad', policy: { resource: '', basis: 'maybe', targets: 'ids' } as unknown as MutationPolicy },
        () => completeResult({ items: [] }),
      ),
    /tool bad: policy\.resource .*; policy\.basis .*; policy\.targets/,
  );
});

test('policies from a file are validated, every problem reported with its exact key', () => {
  const ok = parseToolPolicies({
    list_accounts: { effect: 'read', resource: 'service_accounts' },
    delete_accounts: {
      effect: 'mutation',
      resource: 'service_accounts',
      basis: 'presence',
      targets: '/ids',
      evidenceWindow: { maxAgeMs: 30_000 },
    },
  });
  assert.equal(ok.delete_accounts?.effect, 'mutation');
  assert.throws(
    () =>
      parseToolPolicies({
        a: { effect: 'mutation', resource: 'x', basis: 'sometimes' },
        b: { effect: 'mutation', resource: 'x', basis: 'presence', targets: 'ids', evidence: [] },
      }),
    (err: Error) =>
      /tools\.a\.basis/.test(err.message) && /tools\.b\.targets/.test(err.message) && /tools\.b/.test(err.message),
  );
});

test('a read policy from a file says where its cursor is; a cursor that is not a JSON pointer is refused by key', () => {
  const ok = parseToolPolicies({ list_issues: { effect: 'read', resource: 'issues', cursor: '/page/after' } });
  assert.deepEqual(ok.list_issues, { effect: 'read', resource: 'issues', cursor: '/page/after' });
  assert.throws(
    () => parseToolPolicies({ list_issues: { effect: 'read', resource: 'issues', cursor: 'after' } }),
    /tools\.list_issues\.cursor/,
  );
  const tt = createTooltrail();
  assert.throws(
    () => tt.readTool({ name: 'list', policy: { resource: 'x', cursor: 'after' } }, () => ({})),
    /tool list: policy\.cursor must be a JSON pointer/,
  );
});

test('JSON pointers follow RFC 6901 (escapes, array indices, the whole document)', () => {
  assert.deepEqual(readTargets('/a~1b/0', { 'a/b': ['x', 'y'] }), { ok: true, targets: ['x'] });
  assert.deepEqual(readTargets('/m~0n', { 'm~n': 7 }), { ok: true, targets: ['7'] });
  assert.deepEqual(readTargets('', ['p', 'q']), { ok: true, targets: ['p', 'q'] });
  assert.equal(readTargets('/ids/5', { ids: ['a'] }).ok, false);
  assert.equal(readTargets('/ids', { ids: null }).ok, false);
});
