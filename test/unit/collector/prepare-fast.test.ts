/**
 * The protobuf fast path (collector/fast/prepare.ts) must give exactly what the general path gives (decode,
 * validate, stamp, split by trace), and must leave every body it cannot vouch for to the general path.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAST_PATH_DECLINES, type FastPathDecline, prepareProtobufFast } from '../../../collector/fast/prepare.ts';
import { prepare } from '../../../collector/prepare.ts';
import { splitByTrace } from '../../../collector/split-by-trace.ts';
import { Attr, EXECUTE_TOOL, GenAi } from '../../../contract/index.ts';
import { mutateBytes, validRequestJson } from '../../../fuzz/otlp-gen.ts';
import { Rng } from '../../../fuzz/rng.ts';
import {
  type AnyValue,
  type ExportTraceServiceRequest,
  encodeExportTraceServiceRequest,
  exportTraceServiceRequestFromJson,
  type KeyValue,
  type Span,
} from '../../../platform/otlp/index.ts';
import { readTraceRequest } from '../../../platform/otlp/reader/index.ts';
import { attr, bool, int, newTraceId, protobufBody, span, str, strs } from '../../../testkit/otlp-requests.ts';

const TENANT = 'acme';

/** The general path: what prepareMessages did before the fast path existed. */
function general(body: Buffer) {
  const { request, encodedSpan, ...summary } = prepare(body, 'protobuf', TENANT);
  return { ...summary, messages: summary.accepted > 0 ? splitByTrace(request, encodedSpan) : [] };
}

function assertSame(body: Buffer, label: string): boolean {
  const fast = prepareProtobufFast(body, TENANT);
  if (typeof fast === 'string') return false;
  assert.deepEqual(fast, general(body), label);
  return true;
}

function deep(levels: number): AnyValue {
  let v: AnyValue = { stringValue: 'leaf' };
  for (let i = 0; i < levels; i++)
    v = i % 2 ? { arrayValue: { values: [v] } } : { kvlistValue: { values: [{ key: 'k', value: v }] } };
  return v;
}

/** Lone surrogates become invalid UTF-8 on the wire: the valid requests keep the other odd characters. */
const wellFormed = (s: string) =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '?');

/** Valid requests of every shape the fast path handles: several resources and scopes, interleaved traces. */
function validRequest(rng: Rng): ExportTraceServiceRequest {
  const text = (n: number) => wellFormed(rng.string(n));
  const traces = Array.from({ length: rng.int(1, 4) }, () => newTraceId());
  const richSpan = (): Span => {
    const extra: KeyValue[] = [
      attr(GenAi.TOOL_NAME, str(text(6))),
      attr(Attr.EFFECT, str(rng.pick(['read', 'mutation']))),
      attr(Attr.RESULT_COMPLETE, bool(rng.bool())),
      attr(Attr.RESULT_ITEM_COUNT, int(rng.int(0, 100))),
      attr(Attr.RESULT_REASONS, strs('MORE_PAGES_AVAILABLE')),
      attr('tooltrail.future.thing', { doubleValue: 1.5 }),
      attr('nested', deep(rng.int(0, 31))),
      attr('bytes', { bytesValue: Buffer.from([0xff, 0x00]) }),
      attr(`k.${text(12)}`, str(text(20))),
    ];
    const s = span({
      traceId: rng.pick(traces),
      // Now and then another operation: a span carrying contract attributes is then a flagged tool call.
      attributes: [
        attr(GenAi.OPERATION_NAME, str(rng.bool(0.97) ? EXECUTE_TOOL : 'chat')),
        ...extra.filter(() => rng.bool(0.7)),
      ],
      ...(rng.bool(0.3) ? { parentSpanId: Buffer.alloc(8, 7) } : {}),
      ...(rng.bool(0.3) ? { status: { code: rng.int(0, 2), message: text(8) } } : {}),
      ...(rng.bool(0.3) ? { traceState: 'k=v', flags: 257, droppedAttributesCount: 3 } : {}),
    });
    if (rng.bool(0.3)) s.events = [{ timeUnixNano: '1', name: text(6), attributes: [attr('e', int(1))] }];
    if (rng.bool(0.3)) s.links = [{ traceId: newTraceId(), spanId: Buffer.alloc(8, 1), attributes: [], flags: 1 }];
    return s;
  };
  return {
    resourceSpans: Array.from({ length: rng.int(1, 3) }, (_, i) => ({
      resource: rng.bool(0.9)
        ? {
            attributes: [
              attr('service.name', str(text(10))),
              ...(rng.bool(0.3) ? [attr(Attr.TENANT, str(rng.pick([TENANT, 'other'])))] : []),
            ],
          }
        : null,
      ...(rng.bool(0.5) ? { schemaUrl: `https://opentelemetry.io/schemas/1.${i}` } : {}),
      scopeSpans: Array.from({ length: rng.int(1, 3) }, () => ({
        scope: rng.bool(0.8) ? { name: text(8), version: '1.0.0' } : null,
        ...(rng.bool(0.3) ? { schemaUrl: text(10) } : {}),
        spans: Array.from({ length: rng.int(0, 6) }, richSpan),
      })),
    })),
  };
}

describe('the protobuf fast path of prepareMessages', () => {
  it('gives exactly the general path’s messages and counts for valid requests of every shape (500 requests)', () => {
    const rng = new Rng(20261130);
    let fast = 0;
    let withSpans = 0;
    let flagged = 0;
    for (let i = 0; i < 500; i++) {
      const req = validRequest(rng);
      const body = protobufBody(req);
      const g = general(body);
      assert.equal(g.rejected, 0, `request ${i} is valid: ${g.errorMessage}`);
      // A tool call recognised only by what it carries (no execute_tool) is flagged: the general path's.
      if (g.flagged > 0) flagged++;
      else if (g.accepted > 0) withSpans++;
      if (assertSame(body, `request ${i}`)) fast++;
    }
    assert.equal(fast, withSpans, 'a valid request left the fast path');
    assert.ok(flagged > 20 && withSpans > 200, `flagged ${flagged}, fast ${withSpans}`);
  });

  it('agrees with the general path whenever it answers, on fuzzed and byte-mutated requests (3,000 bodies)', () => {
    const rng = new Rng(7);
    let fast = 0;
    let fallback = 0;
    for (let i = 0; i < 3_000; i++) {
      // The fuzz generator's requests nearly always hold a span the general path rejects; ours are valid.
      const base =
        i % 3 === 0
          ? Buffer.from(
              encodeExportTraceServiceRequest(exportTraceServiceRequestFromJson(validRequestJson(rng)).request),
            )
          : protobufBody(validRequest(rng));
      const body = i % 2 ? mutateBytes(rng, base) : base;
      let expected: ReturnType<typeof general> | undefined;
      try {
        expected = general(body);
      } catch {
        expected = undefined; // refused as not OTLP: the fast path must not answer
      }
      const got = prepareProtobufFast(body, TENANT);
      if (typeof got === 'string') {
        assert.ok(FAST_PATH_DECLINES.includes(got), `body ${i}: ${got}`);
        fallback++;
        continue;
      }
      fast++;
      assert.deepEqual(got, expected, `body ${i}`);
    }
    assert.ok(fast > 100 && fallback > 100, `fast ${fast}, fallback ${fallback}`);
  });

  it('leaves to the general path every span the general path keeps flagged', () => {
    const tool = (...attributes: KeyValue[]) => [
      attr(GenAi.OPERATION_NAME, str(EXECUTE_TOOL)),
      attr(GenAi.TOOL_NAME, str('list')),
      ...attributes,
    ];
    const cases: [string, KeyValue[], string][] = [
      ['a string for the decision field', tool(attr(Attr.RESULT_COMPLETE, str('false'))), 'invalid_contract_attribute'],
      ['a double for a count', tool(attr(Attr.RESULT_ITEM_COUNT, { doubleValue: 0 })), 'contract_attribute_coerced'],
      ['a string for reasons', tool(attr(Attr.RESULT_REASONS, str('A,B'))), 'contract_attribute_coerced'],
      ['an unknown effect', tool(attr(Attr.EFFECT, str('write'))), 'invalid_contract_attribute'],
      ['an int semconv version', tool(attr(Attr.SEMCONV_VERSION, int(1))), 'invalid_contract_attribute'],
      ['a tool name, no operation name', [attr(GenAi.TOOL_NAME, str('list'))], 'tool_span_inferred'],
      ['a contract attribute, no operation name', [attr(Attr.EFFECT, str('read'))], 'tool_span_inferred'],
      [
        'another operation, a contract attribute',
        [attr(GenAi.OPERATION_NAME, str('chat')), attr(Attr.EFFECT, str('read'))],
        'tool_span_inferred',
      ],
      [
        'an operation name without value, a contract attribute',
        [{ key: GenAi.OPERATION_NAME }, attr(Attr.EFFECT, str('read'))],
        'tool_span_inferred',
      ],
    ];
    for (const [label, attributes, reason] of cases) {
      const body = protobufBody({
        resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [span(), span({ attributes })] }] }],
      });
      assert.equal(prepareProtobufFast(body, TENANT), 'span_not_plain', label);
      const g = general(body);
      assert.equal(g.rejected, 0, label);
      assert.equal(g.accepted, 2, label);
      assert.equal(g.flagged, 1, label);
      assert.deepEqual(g.flagsByReason, [[reason, 1]], label);
      assert.match(
        g.errorMessage,
        /^kept 1 of 2 spans with contract problems, stored flagged: span [0-9a-f]{16} of trace/,
        label,
      );
    }
    // Neither a tool name with another operation nor an operation name alone makes a tool call: nothing to flag.
    for (const attributes of [
      [attr(GenAi.OPERATION_NAME, str('chat')), attr(GenAi.TOOL_NAME, str('x'))],
      [attr(Attr.SEMCONV_VERSION, str('1.1.0'))],
    ]) {
      const body = protobufBody({
        resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [span({ attributes })] }] }],
      });
      assert.ok(assertSame(body, JSON.stringify(attributes)));
    }
  });

  it('leaves to the general path every span the general path rejects or changes', () => {
    const cases: [string, Partial<Span>, FastPathDecline][] = [
      ['zero trace id', { traceId: Buffer.alloc(16) }, 'span_not_plain'],
      ['short span id', { spanId: Buffer.alloc(4, 1) }, 'span_not_plain'],
      ['7-byte parent', { parentSpanId: Buffer.alloc(7, 1) }, 'span_not_plain'],
      ['end before start', { startTimeUnixNano: '20', endTimeUnixNano: '10' }, 'span_not_plain'],
      ['no start', { startTimeUnixNano: '0' }, 'span_not_plain'],
      ['kind 6', { kind: 6 }, 'span_not_plain'],
      ['status 3', { status: { code: 3 } }, 'span_not_plain'],
      ['bad link', { links: [{ traceId: Buffer.alloc(8, 1), spanId: Buffer.alloc(8, 1) }] }, 'span_not_plain'],
      ['empty key', { attributes: [attr('', str('x'))] }, 'span_not_plain'],
      ['span tenant claim', { attributes: [attr(Attr.TENANT, str(TENANT))] }, 'span_not_plain'],
      ['too deep', { attributes: [attr('d', deep(33))] }, 'outside_subset'],
      [
        'event empty key',
        { events: [{ timeUnixNano: '1', name: 'e', attributes: [attr('', int(1))] }] },
        'span_not_plain',
      ],
    ];
    for (const [label, overrides, reason] of cases) {
      const body = protobufBody({
        resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [span(), span(overrides)] }] }],
      });
      assert.equal(prepareProtobufFast(body, TENANT), reason, label);
      const g = general(body);
      assert.ok(g.rejected > 0 || g.flagged > 0 || g.messages.length > 0, label);
    }
    // Invalid UTF-8 in a span name (protobufjs would replace it silently).
    const named = protobufBody({ resourceSpans: [{ scopeSpans: [{ spans: [span({ name: 'SPAN' })] }] }] });
    named[named.indexOf('SPAN')] = 0xc3;
    named[named.indexOf('PAN')] = 0x28;
    assert.equal(prepareProtobufFast(named, TENANT), 'outside_subset');
    assert.equal(general(named).rejected, 1);
  });

  it('declines a request without spans, and a resource or scope it cannot take as is, each by its reason', () => {
    assert.equal(prepareProtobufFast(protobufBody({ resourceSpans: [] }), TENANT), 'no_spans');
    const withResource = (attributes: KeyValue[]) =>
      protobufBody({ resourceSpans: [{ resource: { attributes }, scopeSpans: [{ spans: [span()] }] }] });
    assert.equal(prepareProtobufFast(withResource([attr('', str('x'))]), TENANT), 'resource_not_plain');
    const withScope = protobufBody({
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [{ scope: { name: 's', attributes: [attr('', str('x'))] }, spans: [span()] }],
        },
      ],
    });
    assert.equal(prepareProtobufFast(withScope, TENANT), 'scope_not_plain');
  });

  it('lets a programming error surface instead of declining: the reader and the fast path catch only their own stop', () => {
    const body = protobufBody({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [span()] }] }] });
    const planted = new TypeError('planted bug');
    const throwing = {
      resource() {},
      scope() {},
      span() {
        throw planted;
      },
    };
    assert.throws(
      () => readTraceRequest(body, throwing),
      (err) => err === planted,
    );
    // A caller's bug (no body) is thrown, where a catch-all once turned it into a quiet fallback.
    assert.throws(() => prepareProtobufFast(undefined as unknown as Buffer, TENANT), TypeError);
  });
});
