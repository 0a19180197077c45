import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Attr, EXECUTE_TOOL, GenAi, OtelResource, WarningEvent } from '../../../contract/index.ts';
import { flatten, nanoTime, selectSpans, valueText } from '../../../ingest/flatten.ts';
import type { ExportTraceServiceRequest, KeyValue, Span } from '../../../platform/otlp/index.ts';

const TRACE = Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex');
const s = (key: string, v: string): KeyValue => ({ key, value: { stringValue: v } });

function span(id: string, attributes: KeyValue[], extra: Partial<Span> = {}): Span {
  return {
    traceId: TRACE,
    spanId: Buffer.from(id, 'hex'),
    name: 'x',
    kind: 1,
    startTimeUnixNano: '1700000000123456789',
    endTimeUnixNano: '1700000000223456789',
    attributes,
    ...extra,
  };
}

function request(spans: Span[], resource: KeyValue[] = [s(Attr.TENANT, 'acme'), s(OtelResource.SERVICE_NAME, 'svc')]) {
  return { resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: { name: 'lib' }, spans }] }] };
}

const tool = (more: KeyValue[] = []) => [s(GenAi.OPERATION_NAME, EXECUTE_TOOL), s(GenAi.TOOL_NAME, 'list'), ...more];

describe('flatten', () => {
  it('routes execute_tool spans to tool_calls and every other span to spans', () => {
    const r = flatten(request([span('00f067aa0ba902b7', tool()), span('00f067aa0ba902b8', [s('http.method', 'GET')])]));
    assert.equal(r.toolCalls.length, 1);
    assert.equal(r.spans.length, 1);
    assert.equal(r.toolCalls[0]?.tool_name, 'list');
    assert.equal(r.spans[0]?.SpanAttributes['http.method'], 'GET');
    assert.equal(r.spans[0]?.ServiceName, 'svc');
  });

  it('keeps nanosecond timestamps exact and the duration in nanoseconds', () => {
    const row = flatten(request([span('00f067aa0ba902b7', tool())])).toolCalls[0]!;
    assert.equal(row.start_time, '1700000000.123456789');
    assert.equal(row.end_time, '1700000000.223456789');
    assert.equal(row.duration_ns, 100_000_000);
    assert.equal(nanoTime(5n), '0.000000005');
    assert.equal(nanoTime(0n), '0.000000000');
  });

  it('writes ids as lowercase hex', () => {
    const row = flatten(
      request([span('00F067AA0BA902B7', tool(), { parentSpanId: Buffer.from('ABCDEF0123456789', 'hex') })]),
    ).toolCalls[0]!;
    assert.equal(row.trace_id, '0af7651916cd43dd8448eb211c80319c');
    assert.equal(row.span_id, '00f067aa0ba902b7');
    assert.equal(row.parent_span_id, 'abcdef0123456789');
  });

  it('counts an absent complete as not complete and not reported', () => {
    const row = flatten(request([span('00f067aa0ba902b7', tool())])).toolCalls[0]!;
    assert.equal(row.result_complete, false);
    assert.equal(row.complete_reported, false);
  });

  it('keeps a mistyped contract attribute raw in attributes instead of trusting it', () => {
    const row = flatten(request([span('00f067aa0ba902b7', tool([s(Attr.RESULT_COMPLETE, 'true')]))])).toolCalls[0]!;
    assert.equal(row.result_complete, false);
    assert.equal(row.complete_reported, false);
    assert.equal(row.attributes[Attr.RESULT_COMPLETE], 'true');
  });

  it('stores a tool span with a string for the decision field flagged, completeness unknown, never false', () => {
    const r = flatten(request([span('00f067aa0ba902b7', tool([s(Attr.RESULT_COMPLETE, 'false')]))]));
    const row = r.toolCalls[0]!;
    assert.equal(row.complete_reported, false, 'unknown, not reported false');
    assert.equal(row.attributes[Attr.RESULT_COMPLETE], 'false', 'the value sent is kept');
    assert.deepEqual(row.warnings, ['INVALID_CONTRACT_ATTRIBUTE']);
    assert.deepEqual(
      r.warnings.map((w) => [w.code, w.source, w.message, w.time, w.span_id, w.tool_name]),
      [
        [
          'INVALID_CONTRACT_ATTRIBUTE',
          Attr.RESULT_COMPLETE,
          `${Attr.RESULT_COMPLETE} must be bool, got string "false"; completeness counted as unknown`,
          '1700000000.123456789',
          '00f067aa0ba902b7',
          'list',
        ],
      ],
    );
  });

  it('coerces an integer-valued double count and comma-separated reasons, flagged as coerced', () => {
    const r = flatten(
      request([
        span(
          '00f067aa0ba902b7',
          tool([
            { key: Attr.RESULT_ITEM_COUNT, value: { doubleValue: 0 } },
            s(Attr.RESULT_REASONS, 'MORE_PAGES_AVAILABLE, RESULT_LIMIT_REACHED'),
            { key: Attr.MUTATION_TARGET_COUNT, value: { doubleValue: 2.5 } },
          ]),
        ),
      ]),
    );
    const row = r.toolCalls[0]!;
    assert.equal(row.result_item_count, '0');
    assert.deepEqual(row.result_reasons, ['MORE_PAGES_AVAILABLE', 'RESULT_LIMIT_REACHED']);
    assert.equal(row.mutation_target_count, null, 'a fractional count is not a count');
    assert.deepEqual(row.warnings, ['CONTRACT_ATTRIBUTE_COERCED', 'INVALID_CONTRACT_ATTRIBUTE']);
    assert.deepEqual(
      r.warnings.map((w) => [w.code, w.source]),
      [
        ['CONTRACT_ATTRIBUTE_COERCED', Attr.RESULT_ITEM_COUNT],
        ['CONTRACT_ATTRIBUTE_COERCED', Attr.RESULT_REASONS],
        ['INVALID_CONTRACT_ATTRIBUTE', Attr.MUTATION_TARGET_COUNT],
      ],
    );
    assert.equal(row.attributes[Attr.RESULT_ITEM_COUNT], '0', 'the value sent is kept');
  });

  it('leaves an enumerated attribute with an unknown value out of its column, flagged', () => {
    const r = flatten(request([span('00f067aa0ba902b7', tool([s(Attr.EFFECT, 'write')]))]));
    assert.equal(r.toolCalls[0]?.effect, '');
    assert.equal(r.toolCalls[0]?.attributes[Attr.EFFECT], 'write');
    assert.match(r.warnings[0]?.message ?? '', /^tooltrail\.effect must be one of read\|mutation, got "write"/);
  });

  it('stores a span carrying the contract but no operation name as a tool call, flagged as inferred', () => {
    const r = flatten(
      request([
        span('00f067aa0ba902b7', [s(GenAi.TOOL_NAME, 'list'), s(Attr.EFFECT, 'read')]),
        span('00f067aa0ba902b8', [s(GenAi.TOOL_NAME, 'list')]),
        span('00f067aa0ba902b9', [s(GenAi.OPERATION_NAME, 'chat'), s(Attr.EFFECT, 'read')]),
        span('00f067aa0ba902ba', [s(GenAi.OPERATION_NAME, 'chat'), s(GenAi.TOOL_NAME, 'list')]),
      ]),
    );
    assert.deepEqual(
      r.toolCalls.map((t) => [t.span_id, t.effect, t.warnings, t.attributes[GenAi.OPERATION_NAME]]),
      [
        ['00f067aa0ba902b7', 'read', ['TOOL_SPAN_INFERRED'], undefined],
        ['00f067aa0ba902b8', '', ['TOOL_SPAN_INFERRED'], undefined],
        ['00f067aa0ba902b9', 'read', ['TOOL_SPAN_INFERRED'], 'chat'],
      ],
    );
    assert.deepEqual(
      r.warnings.map((w) => w.message),
      [
        `${GenAi.OPERATION_NAME} is absent; stored as a tool call (it carries ${Attr.EFFECT})`,
        `${GenAi.OPERATION_NAME} is absent; stored as a tool call (it carries ${GenAi.TOOL_NAME})`,
        `${GenAi.OPERATION_NAME} is "chat", not "execute_tool"; stored as a tool call (it carries ${Attr.EFFECT})`,
      ],
    );
    assert.equal(r.spans.length, 1, 'a tool name under another operation is not a tool call');
  });

  it('puts the other attributes in the map as strings, arrays as JSON', () => {
    const attrs: KeyValue[] = [
      { key: 'b', value: { boolValue: true } },
      { key: 'i', value: { intValue: { low: -1, high: 0x7fffffff, unsigned: false } } },
      { key: 'd', value: { doubleValue: 1.5 } },
      { key: 'a', value: { arrayValue: { values: [{ stringValue: 'x' }, { intValue: 2 }] } } },
    ];
    // A contract attribute makes the span ours: another emitter's would be normalised (emitters.test.ts).
    const row = flatten(request([span('00f067aa0ba902b7', tool([s(Attr.EFFECT, 'read'), ...attrs]))])).toolCalls[0]!;
    assert.deepEqual(row.attributes, { b: 'true', i: '9223372036854775807', d: '1.5', a: '["x",2]' });
    assert.equal(valueText({ kvlistValue: { values: [s('k', 'v')] } }), '{"k":"v"}');
  });

  it('makes one warning row per warning event, with the event time or the span start', () => {
    const events = [
      {
        name: WarningEvent.NAME,
        timeUnixNano: '1700000000200000000',
        attributes: [
          s(WarningEvent.CODE, 'STALE_INDEX'),
          s(WarningEvent.SOURCE, 'idx'),
          s(WarningEvent.MESSAGE, 'old'),
        ],
      },
      { name: WarningEvent.NAME, attributes: [s(WarningEvent.CODE, 'SORT_OVERRIDDEN')] },
      { name: 'exception', attributes: [s('exception.message', 'boom')] },
    ];
    const r = flatten(request([span('00f067aa0ba902b7', tool([s(GenAi.CONVERSATION_ID, 'sess')]), { events })]));
    assert.deepEqual(
      r.warnings.map((w) => [w.code, w.source, w.message, w.time, w.session_id, w.tool_name]),
      [
        ['STALE_INDEX', 'idx', 'old', '1700000000.200000000', 'sess', 'list'],
        ['SORT_OVERRIDDEN', '', '', '1700000000.123456789', 'sess', 'list'],
      ],
    );
    assert.deepEqual(r.toolCalls[0]?.event_names, [WarningEvent.NAME, WarningEvent.NAME, 'exception']);
  });

  it('rejects spans without a tenant unless a default tenant is configured', () => {
    const req = request([span('00f067aa0ba902b7', tool())], [s(OtelResource.SERVICE_NAME, 'svc')]);
    assert.deepEqual(flatten(req).rejected, [
      { reason: 'missing_tenant', resourceIndex: 0, scopeIndex: 0, spanIndex: 0 },
    ]);
    assert.equal(flatten(req, { defaultTenant: 'fallback' }).toolCalls[0]?.tenant, 'fallback');
    assert.equal(flatten(req, { tenant: 'auth' }).toolCalls[0]?.tenant, 'auth');
  });

  it('rejects spans whose resource claims a tenant outside the one tenant rule, whatever the default tenant', () => {
    for (const claimed of ['acme:prod', ' acme', 'a'.repeat(65), '../etc', 'ac me']) {
      const req = request([span('00f067aa0ba902b7', tool())], [s(Attr.TENANT, claimed)]);
      for (const options of [{}, { defaultTenant: 'fallback' }]) {
        const r = flatten(req, options);
        assert.equal(r.toolCalls.length, 0, claimed);
        assert.deepEqual(r.rejected, [{ reason: 'invalid_tenant', resourceIndex: 0, scopeIndex: 0, spanIndex: 0 }]);
      }
      // The authenticated tenant (direct mode) replaces the claim.
      assert.equal(flatten(req, { tenant: 'auth' }).toolCalls[0]?.tenant, 'auth');
    }
    assert.equal(
      flatten(request([span('00f067aa0ba902b7', tool())], [s(Attr.TENANT, 'a'.repeat(64))])).toolCalls.length,
      1,
    );
  });

  it('rejects spans with a missing or all-zero id and keeps their neighbours', () => {
    const req = request([
      span('0000000000000000', tool()),
      span('00f067aa0ba902b7', tool()),
      span('00f067aa0ba902b9', tool(), { traceId: new Uint8Array(3) }),
    ]);
    const r = flatten(req);
    assert.equal(r.toolCalls.length, 1);
    assert.deepEqual(
      r.rejected.map((x) => [x.reason, x.spanIndex]),
      [
        ['invalid_span_id', 0],
        ['invalid_trace_id', 2],
      ],
    );
    const dead = selectSpans(req as ExportTraceServiceRequest, r.rejected);
    assert.equal(dead.resourceSpans[0]?.scopeSpans[0]?.spans.length, 2);
  });

  it('is deterministic: the same request gives the same rows', () => {
    const req = request([span('00f067aa0ba902b7', tool()), span('00f067aa0ba902b8', [])]);
    assert.deepEqual(flatten(req), flatten(req));
  });
});
