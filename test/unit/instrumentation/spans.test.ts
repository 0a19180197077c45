import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import {
  ATTRIBUTE_TYPES,
  Attr,
  type AttrName,
  ENUM_VALUES,
  EXECUTE_TOOL,
  GenAi,
  OtelAttr,
  SEMCONV_VERSION,
  WarningEvent,
} from '../../../contract/index.ts';
import {
  completeResult,
  createTooltrail,
  errorResult,
  partialResult,
  warning,
} from '../../../instrumentation/index.ts';
import { memoryTracing } from './fixtures/otel.ts';

const tracing = memoryTracing({ batch: true });
after(() => tracing.shutdown());
const tt = createTooltrail({ tracerProvider: tracing.provider });

const SECRET = 'alice@example.com-S3CRET';

async function lastSpan(): Promise<ReadableSpan> {
  const spans = await tracing.spans();
  const span = spans.at(-1);
  assert.ok(span, 'a span was exported');
  return span;
}

const BASE = [
  GenAi.OPERATION_NAME,
  GenAi.TOOL_NAME,
  GenAi.TOOL_CALL_ID,
  GenAi.CONVERSATION_ID,
  GenAi.AGENT_NAME,
  GenAi.AGENT_ID,
  Attr.EFFECT,
  Attr.SESSION_SEQUENCE,
  Attr.SEMCONV_VERSION,
];
const RESULT = [Attr.RESULT_STATUS, Attr.RESULT_COMPLETE, Attr.RESULT_REASONS, Attr.RESULT_CONTINUATION, Attr.WARNINGS];
const SCOPE = [Attr.SCOPE_RESOURCE, Attr.SCOPE_VISIBILITY, Attr.SCOPE_SNAPSHOT];
const MUTATION = [
  Attr.MUTATION_BASIS,
  Attr.MUTATION_TARGET_COUNT,
  Attr.MUTATION_EVIDENCE_SNAPSHOTS,
  Attr.MUTATION_EVIDENCE_CALL_IDS,
  Attr.GUARD_DECISION,
];

function keys(span: ReadableSpan): string[] {
  return Object.keys(span.attributes).sort();
}

/** Every tooltrail.* attribute has the OTLP type and enum value the collector validates against. */
function assertTyped(span: ReadableSpan): void {
  for (const [key, value] of Object.entries(span.attributes)) {
    const expected = ATTRIBUTE_TYPES[key as AttrName];
    if (!expected) continue;
    if (expected === 'string') assert.equal(typeof value, 'string', key);
    if (expected === 'bool') assert.equal(typeof value, 'boolean', key);
    if (expected === 'int') assert.ok(Number.isInteger(value), key);
    if (expected === 'string[]') assert.ok(Array.isArray(value) && value.every((v) => typeof v === 'string'), key);
    const allowed = ENUM_VALUES[key as AttrName];
    if (allowed) assert.ok(allowed.includes(value as string), `${key}=${String(value)}`);
  }
}

const session = () => tt.session({ conversationId: 'conv-1', agentName: 'janitor', agentId: 'agent-7' });

const listAccounts = tt.readTool('list_service_accounts', (args: { team: string; token: string }) =>
  partialResult({
    items: [{ id: 'svc-1', owner: null, email: SECRET }],
    reasons: [{ code: 'MORE_PAGES_AVAILABLE', message: `more for ${args.team}` }],
    continuation: { kind: 'next_cursor', cursor: 'c-2' },
    scope: { resource: 'service_accounts', visibility: 'readable by this credential', snapshot: 'snap-9' },
    warnings: [warning('STALE_INDEX', 'accounts-index', 'index lags the directory by 5 minutes')],
  }),
);

test('a read span is an execute_tool span carrying exactly the documented attributes', async () => {
  const s = session();
  const out = await listAccounts(s, { team: 'infra', token: SECRET }, { toolCallId: 'call-1' });
  const span = await lastSpan();
  assert.equal(span.name, 'execute_tool list_service_accounts');
  assert.equal(span.kind, SpanKind.INTERNAL);
  // A first page that points to a next one opens a cursor traversal: it is page 1 of it, named by its own call id.
  const traversal = [Attr.TRAVERSAL_ID, Attr.TRAVERSAL_PAGE];
  assert.deepEqual(keys(span), [...BASE, ...RESULT, Attr.RESULT_ITEM_COUNT, ...SCOPE, ...traversal].sort());
  assert.equal(span.attributes[Attr.TRAVERSAL_ID], 'call-1');
  assert.equal(span.attributes[Attr.TRAVERSAL_PAGE], 1);
  assert.equal(span.attributes[GenAi.OPERATION_NAME], EXECUTE_TOOL);
  assert.equal(span.attributes[GenAi.TOOL_CALL_ID], 'call-1');
  assert.equal(span.attributes[GenAi.CONVERSATION_ID], 'conv-1');
  assert.equal(span.attributes[Attr.EFFECT], 'read');
  assert.equal(span.attributes[Attr.SEMCONV_VERSION], SEMCONV_VERSION);
  assert.equal(span.attributes[Attr.RESULT_STATUS], 'partial');
  assert.equal(span.attributes[Attr.RESULT_COMPLETE], false);
  assert.deepEqual(span.attributes[Attr.RESULT_REASONS], ['MORE_PAGES_AVAILABLE']);
  assert.equal(span.attributes[Attr.RESULT_ITEM_COUNT], 1);
  assert.equal(span.attributes[Attr.RESULT_CONTINUATION], 'next_cursor');
  assert.equal(span.attributes[Attr.SCOPE_SNAPSHOT], 'snap-9');
  assert.deepEqual(span.attributes[Attr.WARNINGS], ['STALE_INDEX']);
  assertTyped(span);
  assert.equal(out.nextStep, 'continue_search');
});

test('a partial result is not a span error', async () => {
  await listAccounts(session(), { team: 'infra', token: 'x' });
  const span = await lastSpan();
  assert.equal(span.status.code, SpanStatusCode.UNSET);
  assert.equal(span.attributes[OtelAttr.ERROR_TYPE], undefined);
});

test('each warning is one tooltrail.warning event naming its code, message and source', async () => {
  await listAccounts(session(), { team: 'infra', token: 'x' });
  const span = await lastSpan();
  const events = span.events.filter((e) => e.name === WarningEvent.NAME);
  assert.equal(events.length, 1);
  assert.deepEqual(events[0]?.attributes, {
    [WarningEvent.CODE]: 'STALE_INDEX',
    [WarningEvent.MESSAGE]: 'index lags the directory by 5 minutes',
    [WarningEvent.SOURCE]: 'accounts-index',
  });
});

test('sequence numbers count every call of a session from 1, each session on its own', async () => {
  const a = session();
  const b = tt.session({ conversationId: 'conv-2' });
  const seen: [string, number][] = [];
  for (const s of [a, a, b, a, b]) {
    await listAccounts(s, { team: 't', token: 'x' });
    const span = await lastSpan();
    seen.push([String(span.attributes[GenAi.CONVERSATION_ID]), Number(span.attributes[Attr.SESSION_SEQUENCE])]);
  }
  assert.deepEqual(seen, [
    ['conv-1', 1],
    ['conv-1', 2],
    ['conv-2', 1],
    ['conv-1', 3],
    ['conv-2', 2],
  ]);
});

test('a session without agent name or id records neither', async () => {
  await listAccounts(tt.session({ conversationId: 'conv-3' }), { team: 't', token: 'x' });
  const span = await lastSpan();
  assert.equal(GenAi.AGENT_NAME in span.attributes, false);
  assert.equal(GenAi.AGENT_ID in span.attributes, false);
});

test('a tool that says nothing about completeness is recorded as not complete, COMPLETENESS_UNKNOWN', async () => {
  const bare = tt.readTool('bare_list', () => [{ id: 'a' }, { id: 'b' }]);
  const out = await bare(session(), {});
  const span = await lastSpan();
  assert.equal(span.attributes[Attr.RESULT_COMPLETE], false);
  assert.deepEqual(span.attributes[Attr.RESULT_REASONS], ['COMPLETENESS_UNKNOWN']);
  assert.equal(span.attributes[Attr.RESULT_ITEM_COUNT], 2);
  assert.equal(span.attributes[Attr.RESULT_STATUS], 'partial');
  assert.equal(out.recognized, 'unknown');
  assert.equal(out.items.length, 2);
});

test('an invalid contract (complete with a reason) is recorded as unknown, never as complete', async () => {
  const liar = tt.readTool('liar', () => ({
    status: 'complete',
    completeness: { complete: true, reasons: [{ code: 'RESULT_LIMIT_REACHED' }] },
    items: [],
  }));
  const out = await liar(session(), {});
  const span = await lastSpan();
  assert.equal(span.attributes[Attr.RESULT_COMPLETE], false);
  assert.deepEqual(span.attributes[Attr.RESULT_REASONS], ['COMPLETENESS_UNKNOWN']);
  assert.equal(out.recognized, 'invalid');
});

test('an error result sets ERROR status and error.type, without an exception event', async () => {
  const failing = tt.readTool('failing', () =>
    errorResult({ type: 'upstream_timeout', message: 'directory did not answer', reasons: ['SOURCE_UNAVAILABLE'] }),
  );
  await failing(session(), {});
  const span = await lastSpan();
  assert.equal(span.status.code, SpanStatusCode.ERROR);
  assert.equal(span.attributes[OtelAttr.ERROR_TYPE], 'upstream_timeout');
  assert.equal(span.attributes[Attr.RESULT_STATUS], 'error');
  assert.equal(span.attributes[Attr.RESULT_COMPLETE], false);
  assert.equal(
    span.events.some((e) => e.name === 'exception'),
    false,
  );
});

test('a thrown error is recorded as an exception with ERROR status and error.type, then rethrown', async () => {
  class DirectoryDown extends Error {}
  const throwing = tt.readTool('throwing', () => {
    throw new DirectoryDown('connection refused');
  });
  await assert.rejects(throwing(session(), {}), DirectoryDown);
  const span = await lastSpan();
  assert.equal(span.status.code, SpanStatusCode.ERROR);
  assert.equal(span.attributes[OtelAttr.ERROR_TYPE], 'DirectoryDown');
  assert.equal(span.attributes[Attr.RESULT_STATUS], 'error');
  assert.equal(span.attributes[Attr.RESULT_COMPLETE], false);
  assert.ok(span.events.some((e) => e.name === 'exception'));
  assert.ok(span.ended);
});

test('a mutation span carries basis, target count, evidence links and the guard decision', async () => {
  const s = session();
  const read = tt.readTool('list_orphans', () =>
    completeResult({
      items: [{ id: 'svc-1' }, { id: 'svc-2' }],
      scope: { resource: 'service_accounts', snapshot: 'snap-1' },
    }),
  );
  const del = tt.mutationTool('delete_accounts', (args: { ids: string[] }) =>
    completeResult({ items: args.ids, scope: { resource: 'service_accounts' } }),
  );
  const evidence = await read(s, {}, { toolCallId: 'read-1' });
  const out = await del(s, { ids: ['svc-1'] }, { basis: 'presence', targets: ['svc-1'], evidence: [evidence] });
  assert.equal(out.decision, 'allowed');
  const span = await lastSpan();
  assert.deepEqual(keys(span), [...BASE, ...RESULT, Attr.RESULT_ITEM_COUNT, Attr.SCOPE_RESOURCE, ...MUTATION].sort());
  assert.equal(span.attributes[Attr.EFFECT], 'mutation');
  assert.equal(span.attributes[Attr.MUTATION_BASIS], 'presence');
  assert.equal(span.attributes[Attr.MUTATION_TARGET_COUNT], 1);
  assert.deepEqual(span.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS], ['read-1']);
  assert.deepEqual(span.attributes[Attr.MUTATION_EVIDENCE_SNAPSHOTS], ['snap-1']);
  assert.equal(span.attributes[Attr.GUARD_DECISION], 'allowed');
  assertTyped(span);
});

test('a refused mutation is not run; its span records the decision and no result', async () => {
  const s = session();
  let ran = false;
  const evidence = await listAccounts(s, { team: 'infra', token: 'x' });
  const del = tt.mutationTool('delete_accounts', () => {
    ran = true;
    return completeResult({});
  });
  const out = await del(s, {}, { basis: 'absence', targets: ['svc-9'], evidence: [evidence] });
  assert.equal(out.decision, 'refused');
  assert.equal(ran, false);
  const span = await lastSpan();
  assert.deepEqual(keys(span), [...BASE, ...MUTATION].sort());
  assert.equal(span.attributes[Attr.GUARD_DECISION], 'refused');
  assert.equal(span.status.code, SpanStatusCode.UNSET, 'a refusal is the guard working, not an error');
  assertTyped(span);
});

test('nothing raw is recorded by default: arguments, results, reason messages stay off the span', async () => {
  await listAccounts(session(), { team: 'infra', token: SECRET });
  const span = await lastSpan();
  const serialized = JSON.stringify({ attributes: span.attributes, events: span.events, status: span.status });
  assert.equal(serialized.includes(SECRET), false);
  assert.equal(serialized.includes('infra'), false);
  assert.equal(GenAi.TOOL_CALL_ARGUMENTS in span.attributes, false);
  assert.equal(GenAi.TOOL_CALL_RESULT in span.attributes, false);
});

test('opted-in fields are recorded raw or hashed, and nothing else', async () => {
  const keyed = createTooltrail({ tracerProvider: tracing.provider, hashKey: 'a-key-of-sixteen-chars' });
  const tool = keyed.readTool(
    {
      name: 'lookup',
      record: { arguments: { team: 'raw', token: 'hash' }, result: { 'items.*.id': 'raw', 'items.*.email': 'hash' } },
    },
    () => completeResult({ items: [{ id: 'svc-1', email: SECRET, note: 'private' }], scope: { resource: 'r' } }),
  );
  await tool(keyed.session({ conversationId: 'c' }), { team: 'infra', token: SECRET, other: 'private' });
  const span = await lastSpan();
  const args = JSON.parse(String(span.attributes[GenAi.TOOL_CALL_ARGUMENTS]));
  assert.equal(args.team, 'infra');
  assert.match(args.token, /^hmac-sha256:[0-9a-f]{64}$/);
  assert.equal('other' in args, false);
  const result = JSON.parse(String(span.attributes[GenAi.TOOL_CALL_RESULT]));
  assert.equal(result.items[0].id, 'svc-1');
  assert.match(result.items[0].email, /^hmac-sha256:/);
  assert.equal(JSON.stringify(span.attributes).includes(SECRET), false);
  assert.equal(JSON.stringify(span.attributes).includes('private'), false);
});

test('a recording policy other than raw or hash is rejected when the tool is defined', () => {
  assert.throws(
    () => tt.readTool({ name: 'typo', record: { arguments: { token: 'hsah' as 'hash' } } }, () => null),
    /record\.arguments/,
  );
});

test("a mutation span names the plan's resource, so it relates to reads of that resource even when refused", async () => {
  const s = session();
  const del = tt.mutationTool('delete_accounts', () => completeResult({}));
  const out = await del(s, {}, { basis: 'absence', targets: ['x'], evidence: [], resource: 'service_accounts' });
  assert.equal(out.decision, 'refused');
  const span = await lastSpan();
  assert.deepEqual(keys(span), [...BASE, ...MUTATION, Attr.SCOPE_RESOURCE].sort());
  assert.equal(span.attributes[Attr.SCOPE_RESOURCE], 'service_accounts');
});
