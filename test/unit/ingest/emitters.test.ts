/**
 * Tool spans of other instrumentations are judged as ours (ingest/emitters/): recognised by their own marks, their
 * session taken from an ancestor, effect and resource from the tool policy, completeness from the recorded result
 * (payload texts below are as the real libraries record them: test/e2e/third-party-emitters.test.ts runs them), raw
 * payloads never stored; and the column path leaves exactly these spans to flatten.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Attr, GenAi, type PolicyFile, parsePolicy } from '../../../contract/index.ts';
import { ColumnArena } from '../../../ingest/columns/arena.ts';
import type { DeclineReason } from '../../../ingest/columns/decline.ts';
import { decodeToColumns } from '../../../ingest/columns/decode.ts';
import { type FlattenOptions, flatten } from '../../../ingest/flatten.ts';
import { encodeExportTraceServiceRequest, type KeyValue, type Span } from '../../../platform/otlp/index.ts';
import type { ToolCallRow } from '../../../schema/rows.ts';
import { attr, request, span, str } from '../../../testkit/otlp-requests.ts';

const TENANT = [attr(Attr.TENANT, str('acme'))];
const POLICY: PolicyFile = parsePolicy({
  tools: {
    list_accounts: { effect: 'read', resource: 'accounts' },
    delete_account: { effect: 'mutation', resource: 'accounts', basis: 'absence', targets: 'account_id' },
  },
});
const OPTIONS: FlattenOptions = { emitters: { policy: POLICY, payloadHashKey: 'k1' } };

const FIRST_PAGE = '{"accounts":[{"id":"acc-1"},{"id":"acc-2"}],"next_cursor":"c2"}';
const LAST_PAGE = '{"accounts":[{"id":"acc-1"},{"id":"acc-2"}],"has_more":false}';
const s = (key: string, value: string): KeyValue => attr(key, str(value));

function rowsOf(spans: Span[], options: FlattenOptions = OPTIONS): ToolCallRow[] {
  const r = flatten(request(spans, TENANT), options);
  return r.toolCalls;
}

function only(spans: Span[], options?: FlattenOptions): ToolCallRow {
  const rows = rowsOf(spans, options);
  assert.equal(rows.length, 1, `one tool call: ${JSON.stringify(rows.map((r) => r.span_name))}`);
  return rows[0]!;
}

const inferred = (row: ToolCallRow): string[] => JSON.parse(row.attributes[Attr.INFERRED] ?? '[]');

describe('tool spans of other emitters', () => {
  it('recognises an OpenInference tool span and reads a first page in its LangChain ToolMessage as incomplete', () => {
    const output = JSON.stringify({
      output: {
        lc: 1,
        type: 'constructor',
        id: ['langchain_core', 'messages', 'ToolMessage'],
        kwargs: { status: 'success', content: FIRST_PAGE, tool_call_id: 'call_list_1', name: 'list_accounts' },
      },
    });
    const row = only([
      span({
        name: 'list_accounts',
        attributes: [
          s('openinference.span.kind', 'TOOL'),
          s('tool.name', 'list_accounts'),
          s('input.value', '{}'),
          s('output.value', output),
          s('session.id', 'sess-oi'),
        ],
      }),
    ]);
    assert.equal(row.tool_name, 'list_accounts');
    assert.equal(row.session_id, 'sess-oi');
    assert.equal(row.effect, 'read');
    assert.equal(row.scope_resource, 'accounts');
    assert.equal(row.complete_reported, true);
    assert.equal(row.result_complete, false);
    assert.deepEqual(row.result_reasons, ['MORE_PAGES_AVAILABLE']);
    assert.equal(row.result_continuation, 'next_cursor');
    assert.equal(row.result_item_count, '2');
    assert.equal(row.attributes[Attr.EMITTER], 'openinference');
    assert.ok(inferred(row).includes(Attr.RESULT_COMPLETE));
    assert.ok(inferred(row).includes(GenAi.TOOL_NAME), 'the name came from tool.name');
    assert.ok(inferred(row).includes(GenAi.CONVERSATION_ID), 'the session came from session.id');
  });

  it('reads a complete last page (has_more: false) of a GenAI execute_tool span as complete', () => {
    const row = only([
      span({
        name: 'execute_tool list_accounts',
        attributes: [
          s(GenAi.OPERATION_NAME, 'execute_tool'),
          s(GenAi.TOOL_NAME, 'list_accounts'),
          s(GenAi.TOOL_CALL_ID, 'call_list_1'),
          s(GenAi.TOOL_CALL_ARGUMENTS, '{}'),
          s(GenAi.TOOL_CALL_RESULT, LAST_PAGE),
          s(GenAi.CONVERSATION_ID, 'sess-py'),
        ],
      }),
    ]);
    assert.equal(row.tool_call_id, 'call_list_1');
    assert.equal(row.session_id, 'sess-py');
    assert.equal(row.result_complete, true);
    assert.equal(row.result_status, 'complete');
    assert.equal(row.attributes[Attr.EMITTER], 'genai');
    assert.ok(!inferred(row).includes(GenAi.CONVERSATION_ID), 'the session was the span own GenAI key');
  });

  it('recognises an OpenLLMetry tool, reads its kwargs for the targets, and takes the mutation from the policy', () => {
    const row = only([
      span({
        name: 'delete_account.tool',
        attributes: [
          s('traceloop.span.kind', 'tool'),
          s('traceloop.entity.name', 'delete_account'),
          s('traceloop.entity.input', '{"args": [], "kwargs": {"account_id": "acc-9"}}'),
          s('traceloop.entity.output', '"deleted acc-9"'),
          s('traceloop.association.properties.session_id', 'sess-tl'),
        ],
      }),
    ]);
    assert.equal(row.effect, 'mutation');
    assert.equal(row.mutation_basis, 'absence');
    assert.equal(row.mutation_target_count, '1');
    assert.equal(row.complete_reported, false, 'a mutation has no completeness');
    assert.equal(row.session_id, 'sess-tl');
    assert.equal(row.attributes[Attr.EMITTER], 'openllmetry');
  });

  it('recognises an AI SDK tool call and an MCP tools/call span, and names the tool from the span when no key does', () => {
    const ai = only([
      span({
        name: 'ai.toolCall',
        attributes: [
          s('ai.toolCall.name', 'list_accounts'),
          s('ai.toolCall.id', 'c1'),
          // JSON.stringify of the tool's string return: JSON inside a JSON string.
          s('ai.toolCall.result', JSON.stringify(FIRST_PAGE)),
        ],
      }),
    ]);
    assert.equal(ai.attributes[Attr.EMITTER], 'ai-sdk');
    assert.deepEqual(ai.result_reasons, ['MORE_PAGES_AVAILABLE']);
    const mcp = only([
      span({
        name: 'tools/call list_accounts',
        attributes: [s('mcp.method.name', 'tools/call'), s('mcp.session.id', 'm1')],
      }),
    ]);
    assert.equal(mcp.attributes[Attr.EMITTER], 'mcp');
    assert.equal(mcp.tool_name, 'list_accounts');
    assert.equal(mcp.session_id, 'm1');
    assert.ok(inferred(mcp).includes(GenAi.TOOL_NAME));
  });

  it('leaves a result cut by its emitter (invalid JSON at the end) unknown, never complete', () => {
    const row = only([
      span({
        attributes: [
          s(GenAi.OPERATION_NAME, 'execute_tool'),
          s(GenAi.TOOL_NAME, 'list_accounts'),
          s(GenAi.TOOL_CALL_RESULT, '{"accounts":[{"id":"acc-1"},{"id":"acc-2"}],"has_more":fa'),
        ],
      }),
    ]);
    assert.equal(row.result_complete, false);
    assert.deepEqual(row.result_reasons, ['COMPLETENESS_UNKNOWN']);
  });

  it('leaves a read of unknown completeness when nothing was recorded, and its effect unknown without a policy', () => {
    const row = only([span({ attributes: [s(GenAi.OPERATION_NAME, 'execute_tool'), s(GenAi.TOOL_NAME, 'search')] })], {
      emitters: {},
    });
    assert.equal(row.effect, '');
    assert.equal(row.complete_reported, false);
    assert.equal(row.attributes[Attr.EMITTER], 'genai');
  });

  it('gives a tool named like an object property (constructor, __proto__) no policy, so no effect', () => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      const row = only([span({ attributes: [s(GenAi.OPERATION_NAME, 'execute_tool'), s(GenAi.TOOL_NAME, name)] })]);
      assert.equal(row.effect, '', name);
      assert.equal(row.scope_resource, '', name);
    }
  });

  it('takes the session from the nearest ancestor in the same request, else leaves it to the trace id', () => {
    const traceId = randomBytes(16);
    const agent = span({
      traceId,
      name: 'invoke_agent accounts_agent',
      attributes: [s(GenAi.OPERATION_NAME, 'invoke_agent'), s(GenAi.CONVERSATION_ID, 'sess-agent')],
    });
    const step = span({ traceId, parentSpanId: agent.spanId ?? null, name: 'step 1', attributes: [] });
    const tool = (parent: Uint8Array | null | undefined) =>
      span({
        traceId,
        parentSpanId: parent ?? null,
        attributes: [s(GenAi.OPERATION_NAME, 'execute_tool'), s(GenAi.TOOL_NAME, 'list_accounts')],
      });
    const under = rowsOf([tool(step.spanId), step, agent]);
    assert.equal(under[0]!.session_id, 'sess-agent', 'two levels up, exported after the tool span');
    assert.ok(inferred(under[0]!).includes(GenAi.CONVERSATION_ID));
    const orphan = only([tool(randomBytes(8))]);
    assert.equal(orphan.session_id, '', 'no ancestor here: the detectors use the trace id');
  });

  it('never stores the raw arguments or result: a keyed hash with a key, nothing without one', () => {
    const attrs = [
      s('openinference.span.kind', 'TOOL'),
      s('tool.name', 'list_accounts'),
      s('input.value', '{"token":"secret-1"}'),
      s('output.value', FIRST_PAGE),
    ];
    const hashed = only([span({ attributes: attrs })]);
    const text = JSON.stringify(hashed.attributes);
    assert.ok(!text.includes('secret-1') && !text.includes('acc-1'), text);
    assert.match(hashed.attributes[GenAi.TOOL_CALL_ARGUMENTS] ?? '', /^hmac-sha256:[0-9a-f]{64}$/);
    assert.match(hashed.attributes[GenAi.TOOL_CALL_RESULT] ?? '', /^hmac-sha256:[0-9a-f]{64}$/);
    const none = only([span({ attributes: attrs })], { emitters: { policy: POLICY } });
    assert.equal(none.attributes[GenAi.TOOL_CALL_ARGUMENTS], undefined);
    assert.equal(none.attributes['input.value'], undefined);
    assert.equal(none.result_complete, false, 'still judged from the result');
  });

  it('judges a tool span that failed as an error, not as complete', () => {
    const row = only([
      span({
        status: { code: 2, message: 'boom' },
        attributes: [
          s('openinference.span.kind', 'TOOL'),
          s('tool.name', 'list_accounts'),
          s('output.value', LAST_PAGE),
        ],
      }),
    ]);
    assert.equal(row.result_status, 'error');
    assert.equal(row.result_complete, false);
  });

  it('keeps a span that speaks the contract as it is, whatever else it carries', () => {
    const row = only([
      span({
        attributes: [
          s('openinference.span.kind', 'TOOL'),
          s(GenAi.OPERATION_NAME, 'execute_tool'),
          s(GenAi.TOOL_NAME, 'list_accounts'),
          s(Attr.EFFECT, 'read'),
          s('output.value', LAST_PAGE),
        ],
      }),
    ]);
    assert.equal(row.attributes[Attr.EMITTER], undefined);
    assert.equal(row.complete_reported, false, 'completeness is what our own attributes say');
    assert.equal(row.attributes['output.value'], LAST_PAGE);
  });

  it('links the pages an agent read cursor after cursor in one request into one traversal, first page included', () => {
    const traceId = randomBytes(16);
    const page = (n: number, args: string, result: string) =>
      span({
        traceId,
        startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(n) * 1_000_000n),
        endTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(n) * 1_000_000n + 500n),
        attributes: [
          s(GenAi.OPERATION_NAME, 'execute_tool'),
          s(GenAi.TOOL_NAME, 'list_accounts'),
          s(GenAi.TOOL_CALL_ID, `call_list_${n}`),
          s(GenAi.CONVERSATION_ID, 'sess-pages'),
          s(GenAi.TOOL_CALL_ARGUMENTS, args),
          s(GenAi.TOOL_CALL_RESULT, result),
        ],
      });
    const rows = rowsOf([
      // Exported out of order: linked by time and cursor, not by position in the request.
      page(3, '{"cursor":"c3"}', '{"accounts":[{"id":"acc-5"}],"has_more":false}'),
      page(1, '{}', FIRST_PAGE),
      page(2, '{"cursor":"c2"}', '{"accounts":[{"id":"acc-3"}],"next_cursor":"c3"}'),
    ]);
    assert.deepEqual(
      rows.map((r) => [r.tool_call_id, r.attributes[Attr.TRAVERSAL_ID], r.attributes[Attr.TRAVERSAL_PAGE]]),
      [
        ['call_list_3', 'call_list_1', '3'],
        ['call_list_1', 'call_list_1', '1'],
        ['call_list_2', 'call_list_1', '2'],
      ],
    );
  });

  it('links no page that no earlier page of the request led to, and no first page that nothing continued', () => {
    const read = (id: string, args: string, result: string) =>
      span({
        attributes: [
          s(GenAi.OPERATION_NAME, 'execute_tool'),
          s(GenAi.TOOL_NAME, 'list_accounts'),
          s(GenAi.TOOL_CALL_ID, id),
          s(GenAi.CONVERSATION_ID, 'sess-alone'),
          s(GenAi.TOOL_CALL_ARGUMENTS, args),
          s(GenAi.TOOL_CALL_RESULT, result),
        ],
      });
    const rows = rowsOf([read('a', '{}', FIRST_PAGE), read('b', '{"cursor":"zz"}', LAST_PAGE)]);
    assert.deepEqual(
      rows.map((r) => r.attributes[Attr.TRAVERSAL_ID]),
      [undefined, undefined],
    );
  });

  it('keeps OpenInference spans of other kinds as plain spans', () => {
    const r = flatten(request([span({ attributes: [s('openinference.span.kind', 'LLM')] })], TENANT), OPTIONS);
    assert.equal(r.toolCalls.length, 0);
    assert.equal(r.spans.length, 1);
  });

  it('keeps no prompt, message or payload of the spans that are not tool calls: an HMAC with a key, else nothing', () => {
    const llm = [
      s('openinference.span.kind', 'LLM'),
      s('llm.input_messages.0.message.content', 'delete acc-9 with token secret-2'),
      s('input.value', '{"messages":["secret-2"]}'),
      s('gen_ai.input.messages', '[{"role":"user","content":"secret-2"}]'),
      s('gen_ai.prompt.0.content', 'secret-2'),
      s('gen_ai.prompt.name', 'triage'),
      s('llm.model_name', 'scripted'),
    ];
    const hashed = flatten(request([span({ attributes: llm })], TENANT), OPTIONS).spans[0]!.SpanAttributes;
    assert.ok(!JSON.stringify(hashed).includes('secret-2'), JSON.stringify(hashed));
    assert.match(hashed['llm.input_messages.0.message.content'] ?? '', /^hmac-sha256:/);
    assert.equal(hashed['gen_ai.prompt.name'], 'triage', 'a prompt name (MCP conventions) is not content');
    assert.equal(hashed['llm.model_name'], 'scripted');
    const dropped = flatten(request([span({ attributes: llm })], TENANT), { emitters: {} }).spans[0]!.SpanAttributes;
    assert.deepEqual(Object.keys(dropped).sort(), ['gen_ai.prompt.name', 'llm.model_name', 'openinference.span.kind']);
  });

  it('leaves such spans to flatten from the column path (content_attribute), and our tool spans on it', () => {
    for (const attributes of [
      [s('llm.output_messages.0.message.content', 'x')],
      [s('gen_ai.output.messages', '[]')],
      [s('gen_ai.completion.0.content', 'x')],
    ]) {
      const reasons: DeclineReason[] = [];
      const bytes = encodeExportTraceServiceRequest(request([span({ attributes })], TENANT));
      assert.equal(
        decodeToColumns(new ColumnArena(), bytes, {}, (r) => reasons.push(r)),
        undefined,
      );
      assert.deepEqual(reasons, ['content_attribute'], JSON.stringify(attributes));
    }
    const ours = [
      s(GenAi.TOOL_CALL_ARGUMENTS, '{"ids":["a"]}'),
      s(GenAi.OPERATION_NAME, 'execute_tool'),
      s(GenAi.TOOL_NAME, 'x'),
      s(Attr.EFFECT, 'read'),
    ];
    const bytes = encodeExportTraceServiceRequest(request([span({ attributes: ours })], TENANT));
    assert.ok(decodeToColumns(new ColumnArena(), bytes, {}), 'our tool span keeps its opted-in arguments');
    const promptName = encodeExportTraceServiceRequest(
      request([span({ attributes: [s('gen_ai.prompt.name', 'triage')] })], TENANT),
    );
    assert.ok(decodeToColumns(new ColumnArena(), promptName, {}), 'gen_ai.prompt.name is not content');
  });

  it('sends every emitter tool span to the general path from the column path, by name, and nothing else', () => {
    const marks: KeyValue[][] = [
      [s('openinference.span.kind', 'TOOL')],
      [s('traceloop.span.kind', 'tool')],
      [s('ai.toolCall.name', 'x')],
      [s('mcp.method.name', 'tools/call')],
      [s(GenAi.OPERATION_NAME, 'execute_tool'), s(GenAi.TOOL_NAME, 'x')],
    ];
    for (const attributes of marks) {
      const reasons: DeclineReason[] = [];
      const bytes = encodeExportTraceServiceRequest(request([span({ attributes })], TENANT));
      assert.equal(
        decodeToColumns(new ColumnArena(), bytes, {}, (r) => reasons.push(r)),
        undefined,
      );
      assert.deepEqual(reasons, ['emitter_tool_span'], JSON.stringify(attributes));
    }
    const plain: KeyValue[][] = [
      [s('openinference.span.kind', 'LLM')],
      [s('traceloop.span.kind', 'workflow')],
      [s('mcp.method.name', 'tools/list')],
      [s(GenAi.OPERATION_NAME, 'execute_tool'), s(GenAi.TOOL_NAME, 'x'), s(Attr.EFFECT, 'read')],
    ];
    for (const attributes of plain) {
      const bytes = encodeExportTraceServiceRequest(request([span({ attributes })], TENANT));
      assert.ok(decodeToColumns(new ColumnArena(), bytes, {}), JSON.stringify(attributes));
    }
  });
});
