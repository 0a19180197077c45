/**
 * Builders of OTLP trace requests (spans, attributes, protobuf bodies) for the tests, the fuzzer, the chaos suite
 * and the benches: one copy, so a bench never reaches into test/.
 */
import { randomBytes } from 'node:crypto';
import { Attr, EXECUTE_TOOL, GenAi, toolSpanName } from '../contract/index.ts';
import {
  type AnyValue,
  type ExportTraceServiceRequest,
  encodeExportTraceServiceRequest,
  encodeInstrumentationScope,
  encodeResource,
  encodeSpan,
  type KeyValue,
  type Span,
} from '../platform/otlp/index.ts';

export function attr(key: string, value: AnyValue): KeyValue {
  return { key, value };
}

export const str = (stringValue: string): AnyValue => ({ stringValue });
export const int = (n: number): AnyValue => ({ intValue: n });
export const bool = (boolValue: boolean): AnyValue => ({ boolValue });
export const strs = (...values: string[]): AnyValue => ({ arrayValue: { values: values.map(str) } });

export function newTraceId(): Buffer {
  return randomBytes(16);
}

let spanCounter = 0;
export function span(overrides: Partial<Span> = {}): Span {
  spanCounter++;
  const start = 1_700_000_000_000_000_000n + BigInt(spanCounter) * 1_000n;
  return {
    traceId: newTraceId(),
    spanId: randomBytes(8),
    name: `span-${spanCounter}`,
    kind: 1,
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (start + 500n).toString(),
    attributes: [attr('k', str('v'))],
    ...overrides,
  };
}

export function request(spans: Span[], resourceAttributes: KeyValue[] = []): ExportTraceServiceRequest {
  return {
    resourceSpans: [
      {
        resource: { attributes: [attr('service.name', str('unit-test')), ...resourceAttributes] },
        scopeSpans: [{ scope: { name: 'fixtures', version: '1.0.0' }, spans }],
      },
    ],
  };
}

export function protobufBody(req: ExportTraceServiceRequest): Buffer {
  return Buffer.from(encodeExportTraceServiceRequest(req));
}

/** An AnyValue `levels` deep: arrays of arrays (or key-value lists of lists) around one string. */
export function nestedValue(levels: number, list = false): AnyValue {
  let value: AnyValue = { stringValue: 'x' };
  for (let i = 1; i < levels; i++) {
    value = list ? { kvlistValue: { values: [{ key: 'k', value }] } } : { arrayValue: { values: [value] } };
  }
  return value;
}

/** A length-delimited protobuf field (tag, varint length, payload). */
function lengthDelimited(field: number, payload: Buffer): Buffer {
  const head = [(field << 3) | 2];
  for (let n = payload.length; ; n = Math.floor(n / 128)) {
    if (n < 0x80) {
      head.push(n);
      break;
    }
    head.push((n & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from(head), payload]);
}

/**
 * The protobuf body of `request([span()])` whose span carries one more attribute, `deep`, an AnyValue `levels`
 * arrays deep around a string: encoded by hand, since encoding thousands of levels recursively exhausts the stack.
 */
export function deepAttributeBody(levels: number): Buffer {
  const [resourceSpans] = request([span()]).resourceSpans;
  const [scopeSpans] = resourceSpans?.scopeSpans ?? [];
  const [plain] = scopeSpans?.spans ?? [];
  if (!resourceSpans?.resource || !scopeSpans?.scope || !plain) throw new Error('request() builds one span');
  let value = lengthDelimited(1, Buffer.from('x'));
  for (let i = 1; i < levels; i++) value = lengthDelimited(5, lengthDelimited(1, value));
  const deep = lengthDelimited(9, Buffer.concat([lengthDelimited(1, Buffer.from('deep')), lengthDelimited(2, value)]));
  const spanBytes = Buffer.concat([Buffer.from(encodeSpan(plain)), deep]);
  const scope = lengthDelimited(1, Buffer.from(encodeInstrumentationScope(scopeSpans.scope)));
  const resource = lengthDelimited(1, Buffer.from(encodeResource(resourceSpans.resource)));
  return lengthDelimited(
    1,
    Buffer.concat([resource, lengthDelimited(2, Buffer.concat([scope, lengthDelimited(2, spanBytes)]))]),
  );
}

/** A tool-call span as the instrumentation emits it (GenAI attributes and the completeness contract). */
export function toolCallSpan(traceId: Buffer, session: string, overrides: Partial<Span> = {}): Span {
  const tool = 'list_service_accounts';
  return span({
    traceId,
    name: toolSpanName(tool),
    attributes: [
      attr(GenAi.OPERATION_NAME, str(EXECUTE_TOOL)),
      attr(GenAi.TOOL_NAME, str(tool)),
      attr(GenAi.TOOL_CALL_ID, str(`call_${randomBytes(6).toString('hex')}`)),
      attr(GenAi.CONVERSATION_ID, str(session)),
      attr(GenAi.AGENT_NAME, str('ops-agent')),
      attr(Attr.EFFECT, str('read')),
      attr(Attr.RESULT_STATUS, str('partial')),
      attr(Attr.RESULT_COMPLETE, bool(false)),
      attr(Attr.RESULT_REASONS, strs('MORE_PAGES_AVAILABLE')),
      attr(Attr.RESULT_ITEM_COUNT, int(50)),
      attr(Attr.RESULT_CONTINUATION, str('next_cursor')),
      attr(Attr.SCOPE_RESOURCE, str('service_accounts')),
    ],
    ...overrides,
  });
}

/**
 * An OTLP protobuf body of tool-call spans (8 per trace) of at most `maxBytes` and within 2 KiB of it: the large
 * bodies the memory bench and the budget tests send.
 */
export function toolSpansBody(maxBytes: number): Buffer {
  const probe = protobufBody(request(Array.from({ length: 64 }, (_, i) => toolCallSpan(newTraceId(), `s-${i}`))));
  const perSpan = probe.length / 64;
  const spans: Span[] = [];
  let traceId = newTraceId();
  for (let i = 0; i < Math.floor(maxBytes / perSpan) + 64; i++) {
    if (i % 8 === 0) traceId = newTraceId();
    spans.push(toolCallSpan(traceId, `session-${i >> 3}`));
  }
  let body = protobufBody(request(spans));
  while (body.length > maxBytes) {
    spans.splice(-Math.max(1, Math.ceil((body.length - maxBytes) / perSpan)));
    body = protobufBody(request(spans));
  }
  return body;
}
