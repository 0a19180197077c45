/** The guard's holes, each closed by a rule: no silent target check, an age limit, options that follow reasons,
 * warnings that can block, a re-check at execution, a tool listing that says when it stopped. */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ReasonCode } from '../../../contract/index.ts';
import type { MutationOutcome, RecoveryKind, ReviewRequest, TooltrailOptions } from '../../../instrumentation/index.ts';
import {
  completeResult,
  createTooltrail,
  instrumentMcpClient,
  partialResult,
  warning,
} from '../../../instrumentation/index.ts';
import { MAX_REMEMBERED_IDS } from '../../../instrumentation/session.ts';
import { memoryTracing } from './fixtures/otel.ts';

const tracing = memoryTracing();
after(() => tracing.shutdown());

const SCOPE = { resource: 'service_accounts', visibility: 'all accounts', snapshot: 'snap-1' };

function setup(options: Omit<TooltrailOptions, 'tracerProvider'> = {}) {
  const tt = createTooltrail({ tracerProvider: tracing.provider, ...options });
  const session = tt.session({ conversationId: `holes-${Math.random()}` });
  let runs = 0;
  const remove = tt.mutationTool('delete_accounts', (a: { ids: string[] }) => {
    runs += 1;
    return completeResult({ items: a.ids });
  });
  return { tt, session, remove, runs: () => runs };
}

const codes = (out: { findings: readonly { code: string }[] }) => out.findings.map((f) => f.code);
function review(out: MutationOutcome): ReviewRequest {
  if (out.decision === 'allowed' || out.decision === 'not_checked')
    throw new Error(`expected a refusal: ${out.decision}`);
  return out.review;
}
const kinds = (out: MutationOutcome): RecoveryKind[] => review(out).options.map((o) => o.kind);

test('presence targets that cannot be checked against the evidence (items without ids) give TARGETS_UNVERIFIABLE, never silence', async () => {
  const { tt, session, remove, runs } = setup();
  const list = tt.readTool('list_names', () => completeResult({ items: [{ name: 'a' }], scope: SCOPE }));
  const read = await list(session, {});
  const out = await remove(session, { ids: ['x', 'y'] }, { basis: 'presence', targets: ['x', 'y'], evidence: [read] });
  assert.deepEqual(codes(out), ['TARGETS_UNVERIFIABLE']);
  assert.equal(runs(), 0);
  assert.deepEqual(kinds(out), ['read_with_item_ids', 'abandon']);
});

test('absence targets that cannot be checked against the evidence give TARGETS_UNVERIFIABLE', async () => {
  const { tt, session, remove } = setup();
  const list = tt.readTool({ name: 'list_names', itemId: () => undefined }, () =>
    completeResult({ items: [{ id: 'x' }], scope: SCOPE }),
  );
  const read = await list(session, {});
  const out = await remove(session, { ids: ['x'] }, { basis: 'absence', targets: ['x'], evidence: [read] });
  assert.deepEqual(codes(out), ['TARGETS_UNVERIFIABLE']);
});

test('a read with more items than the guard remembers ids of makes its targets unverifiable', async () => {
  const { tt, session, remove } = setup();
  const items = Array.from({ length: MAX_REMEMBERED_IDS + 1 }, (_, i) => ({ id: `a${i}` }));
  const list = tt.readTool('list_huge', () => completeResult({ items, scope: SCOPE }));
  const read = await list(session, {});
  const out = await remove(session, { ids: ['a1'] }, { basis: 'presence', targets: ['a1'], evidence: [read] });
  assert.deepEqual(codes(out), ['TARGETS_UNVERIFIABLE']);
});

test('a mutation with no targets on complete id-less evidence is not blocked by the target check', async () => {
  const { tt, session, remove } = setup();
  const list = tt.readTool('list_names', () => completeResult({ items: [{ name: 'a' }], scope: SCOPE }));
  const read = await list(session, {});
  const out = await remove(session, { ids: [] }, { basis: 'absence', targets: [], evidence: [read] });
  assert.equal(out.decision, 'allowed');
});

test('evidence older than the configured age gives EVIDENCE_STALE, for an explicit plan too', async () => {
  let now = 5_000_000;
  const { tt, session, remove } = setup({ clock: () => now, evidenceMaxAgeMs: 60_000 });
  const list = tt.readTool('list_accounts', () => completeResult({ items: [{ id: 'a' }], scope: SCOPE }));
  const read = await list(session, {});
  now += 60_000;
  const plan = { basis: 'presence' as const, targets: ['a'], evidence: [read] };
  assert.equal((await remove(session, { ids: ['a'] }, plan)).decision, 'allowed');
  now += 1;
  const out = await remove(session, { ids: ['a'] }, plan);
  assert.deepEqual(codes(out), ['EVIDENCE_STALE']);
  assert.deepEqual(kinds(out), ['read_again', 'narrow_to_returned_ids', 'abandon']);
});

test('recovery options follow the reasons the evidence gave', async () => {
  const cases: {
    reason: ReasonCode;
    continuation?: Parameters<typeof partialResult>[0]['continuation'];
    first: RecoveryKind;
    detail?: [string, unknown];
  }[] = [
    {
      reason: 'MORE_PAGES_AVAILABLE',
      continuation: { kind: 'next_cursor', cursor: 'c-2' },
      first: 'read_all_pages',
      detail: ['cursor', 'c-2'],
    },
    {
      reason: 'VISIBILITY_RESTRICTED',
      first: 'use_credential_that_sees_scope',
      detail: ['visibility', ['all accounts']],
    },
    {
      reason: 'RATE_LIMITED',
      continuation: { kind: 'retry_after', after_seconds: 30 },
      first: 'retry_after',
      detail: ['afterSeconds', 30],
    },
    {
      reason: 'RESULT_LIMIT_REACHED',
      continuation: { kind: 'narrow_query', hint: 'by team' },
      first: 'narrow_query',
      detail: ['hint', 'by team'],
    },
    {
      reason: 'TIME_BUDGET_EXCEEDED',
      continuation: { kind: 'retry_with_deadline', minimum_seconds: 9 },
      first: 'retry_with_longer_deadline',
      detail: ['minimumSeconds', 9],
    },
    { reason: 'SOURCE_UNAVAILABLE', first: 'retry_later' },
    { reason: 'CURSOR_EXPIRED', first: 'read_again' },
    { reason: 'COMPLETENESS_UNKNOWN', first: 'use_tool_that_states_completeness' },
  ];
  for (const c of cases) {
    const { tt, session, remove } = setup();
    const list = tt.readTool('list_accounts', () =>
      partialResult({
        items: [{ id: 'a' }],
        reasons: [c.reason],
        scope: SCOPE,
        ...(c.continuation ? { continuation: c.continuation } : {}),
      }),
    );
    const read = await list(session, {});
    const out = await remove(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [read] });
    const options = review(out).options;
    assert.deepEqual(
      options.map((o) => o.kind),
      [c.first, 'narrow_to_returned_ids', 'abandon'],
      c.reason,
    );
    if (c.detail) assert.deepEqual((options[0] as Record<string, unknown>)[c.detail[0]], c.detail[1], c.reason);
    // Never a longer deadline for a reason a deadline cannot cure.
    if (c.reason !== 'TIME_BUDGET_EXCEEDED')
      assert.ok(!options.some((o) => o.kind === 'retry_with_longer_deadline'), c.reason);
  }
});

test('a per-code warning policy makes STALE_INDEX block absence-based mutations and not presence-based ones', async () => {
  const { tt, session, remove } = setup({ warningPolicy: { STALE_INDEX: ['absence'] } });
  const search = tt.readTool('search_accounts', () =>
    completeResult({
      items: [{ id: 'a' }],
      scope: SCOPE,
      warnings: [warning('STALE_INDEX', 'accounts-index', 'the index lags by 2 hours')],
    }),
  );
  const read = await search(session, {});
  const absence = await remove(session, { ids: ['gone'] }, { basis: 'absence', targets: ['gone'], evidence: [read] });
  assert.deepEqual(codes(absence), ['WARNING_BLOCKS_MUTATION']);
  assert.match(absence.findings[0]?.message ?? '', /STALE_INDEX from accounts-index/);
  const resolve = review(absence).options.find((o) => o.kind === 'resolve_warning');
  assert.deepEqual(resolve && 'warnings' in resolve ? resolve.warnings : undefined, [
    { code: 'STALE_INDEX', source: 'accounts-index' },
  ]);
  const presence = await remove(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [read] });
  assert.equal(presence.decision, 'allowed');
});

test('a warning the alerts side escalated blocks every mutation relying on it; others do not', async () => {
  const escalated = new Set(['STALE_INDEX accounts-index']);
  const { tt, session, remove } = setup({ isWarningEscalated: (w) => escalated.has(`${w.code} ${w.source}`) });
  const search = tt.readTool('search_accounts', () =>
    completeResult({
      items: [{ id: 'a' }],
      scope: SCOPE,
      warnings: [
        warning('STALE_INDEX', 'accounts-index', 'lagging'),
        warning('PARTIAL_FIELD_SET', 'accounts-api', 'no owner field'),
      ],
    }),
  );
  const read = await search(session, {});
  const out = await remove(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [read] });
  assert.deepEqual(codes(out), ['WARNING_BLOCKS_MUTATION']);
  assert.match(out.findings[0]?.message ?? '', /escalated/);
  escalated.clear();
  assert.equal(
    (await remove(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [read] })).decision,
    'allowed',
  );
});

test('an escalation lookup that fails blocks (the guard does not assume the warning was not escalated)', async () => {
  const { tt, session, remove } = setup({
    isWarningEscalated: () => {
      throw new Error('state store down');
    },
  });
  const search = tt.readTool('search_accounts', () =>
    completeResult({ items: [{ id: 'a' }], scope: SCOPE, warnings: [warning('STALE_INDEX', 'idx', 'lagging')] }),
  );
  const read = await search(session, {});
  const out = await remove(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [read] });
  assert.deepEqual(codes(out), ['WARNING_BLOCKS_MUTATION']);
  assert.match(out.findings[0]?.message ?? '', /state store down/);
});

test('an invalid warning policy fails at createTooltrail, naming the key', () => {
  assert.throws(
    () => createTooltrail({ warningPolicy: { STALE: ['absence'] } as never }),
    /tooltrail\.warningPolicy\.STALE/,
  );
  assert.throws(() => createTooltrail({ warningPolicy: { STALE_INDEX: [] } }), /tooltrail\.warningPolicy\.STALE_INDEX/);
});

test('verifyTarget re-checks each target just before execution and refuses the mutation when some no longer qualify', async () => {
  const tt = createTooltrail({ tracerProvider: tracing.provider });
  const session = tt.session({ conversationId: 'verify' });
  const stillUnowned = new Set(['a', 'b']);
  const checked: string[] = [];
  let ran = 0;
  const remove = tt.mutationTool(
    {
      name: 'delete_unowned',
      verifyTarget: async (target: string) => {
        checked.push(target);
        return stillUnowned.has(target);
      },
    },
    () => {
      ran += 1;
      return completeResult({ items: [] });
    },
  );
  const list = tt.readTool('list_unowned', () =>
    completeResult({ items: [{ id: 'a' }, { id: 'b' }, { id: 'c' }], scope: SCOPE }),
  );
  const read = await list(session, {});
  const plan = { basis: 'presence' as const, targets: ['a', 'b', 'c'], evidence: [read] };
  // An owner was assigned to c after the read.
  stillUnowned.delete('c');
  stillUnowned.add('c-other');
  const out = await remove(session, { ids: ['a', 'b', 'c'] }, plan);
  assert.deepEqual(codes(out), ['TARGET_NO_LONGER_QUALIFIES']);
  assert.deepEqual(checked.sort(), ['a', 'b', 'c']);
  assert.equal(ran, 0);
  const narrowed = review(out).options.find((o) => o.kind === 'narrow_to_verified_targets');
  assert.deepEqual(narrowed && 'targets' in narrowed ? narrowed.targets : undefined, ['a', 'b']);
  const ok = await remove(session, { ids: ['a', 'b'] }, { ...plan, targets: ['a', 'b'] });
  assert.equal(ok.decision, 'allowed');
  assert.equal(ran, 1);
});

test('a verifyTarget that throws refuses its target, and is not consulted when the guard already refused', async () => {
  const tt = createTooltrail({ tracerProvider: tracing.provider });
  const session = tt.session({ conversationId: 'verify-throws' });
  let calls = 0;
  const remove = tt.mutationTool(
    {
      name: 'delete_unowned',
      verifyTarget: () => {
        calls += 1;
        throw new Error('directory timeout');
      },
    },
    () => completeResult({ items: [] }),
  );
  const list = tt.readTool('list_unowned', () => completeResult({ items: [{ id: 'a' }], scope: SCOPE }));
  const read = await list(session, {});
  const out = await remove(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [read] });
  assert.deepEqual(codes(out), ['TARGET_NO_LONGER_QUALIFIES']);
  assert.match(out.findings[0]?.message ?? '', /directory timeout/);
  assert.equal(calls, 1);
  await remove(session, { ids: ['zz'] }, { basis: 'presence', targets: ['zz'], evidence: [read] });
  assert.equal(calls, 1);
});

test('refreshToolEffects says whether it listed every tool, and a tool it did not list is a mutation', async () => {
  // A real MCP server whose tools/list has three pages, one read-only tool per page.
  const server = new Server({ name: 'paged', version: '1.0.0' }, { capabilities: { tools: {} } });
  const pages = [
    {
      tools: [{ name: 'list_a', inputSchema: { type: 'object' as const }, annotations: { readOnlyHint: true } }],
      nextCursor: 'p2',
    },
    {
      tools: [{ name: 'list_b', inputSchema: { type: 'object' as const }, annotations: { readOnlyHint: true } }],
      nextCursor: 'p3',
    },
    { tools: [{ name: 'list_c', inputSchema: { type: 'object' as const }, annotations: { readOnlyHint: true } }] },
  ];
  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    const at = req.params?.cursor === 'p2' ? 1 : req.params?.cursor === 'p3' ? 2 : 0;
    return pages[at] ?? { tools: [] };
  });
  const client = new Client({ name: 'agent', version: '1.0.0' });
  const [c, s] = InMemoryTransport.createLinkedPair();
  await server.connect(s);
  await client.connect(c);
  try {
    const mcp = instrumentMcpClient(createTooltrail({ tracerProvider: tracing.provider }), client);
    const partial = await mcp.refreshToolEffects(2);
    assert.equal(partial.complete, false);
    assert.equal(partial.pages, 2);
    assert.equal(partial.nextCursor, 'p3');
    assert.equal(mcp.effectOf('list_b'), 'read');
    assert.equal(mcp.effectOf('list_c'), 'mutation');
    const full = await mcp.refreshToolEffects();
    assert.equal(full.complete, true);
    assert.equal(full.pages, 3);
    assert.equal(full.nextCursor, undefined);
    assert.equal(mcp.effectOf('list_c'), 'read');
  } finally {
    await client.close();
    await server.close();
  }
});
