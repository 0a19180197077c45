import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitByTrace } from '../../../collector/split-by-trace.ts';
import {
  bytesToHex,
  decodeExportTraceServiceRequest,
  decodeExportTraceServiceRequestChecked,
  encodeExportTraceServiceRequest,
} from '../../../platform/otlp/index.ts';
import { attr, newTraceId, protobufBody, span, str } from '../../../testkit/otlp-requests.ts';

describe('splitting a request by trace', () => {
  const t1 = newTraceId();
  const t2 = newTraceId();
  const req = {
    resourceSpans: [
      {
        resource: { attributes: [attr('service.name', str('a'))] },
        schemaUrl: 'https://opentelemetry.io/schemas/1.24.0',
        scopeSpans: [
          { scope: { name: 's1', version: '1' }, spans: [span({ traceId: t1 }), span({ traceId: t2 })] },
          { scope: { name: 's2' }, schemaUrl: 'x', spans: [span({ traceId: t1 })] },
        ],
      },
      { resource: { attributes: [attr('service.name', str('b'))] }, scopeSpans: [{ spans: [span({ traceId: t2 })] }] },
    ],
  };

  it('keeps each span with its own resource and scope, one message per trace', () => {
    const messages = splitByTrace(decodeExportTraceServiceRequest(protobufBody(req)));
    assert.deepEqual(
      messages.map((m) => [m.key, m.spanCount]).sort(),
      [
        [bytesToHex(t1), 2],
        [bytesToHex(t2), 2],
      ].sort(),
    );
    const m1 = decodeExportTraceServiceRequest(
      messages.find((m) => m.key === bytesToHex(t1))?.value ?? Buffer.alloc(0),
    );
    assert.equal(m1.resourceSpans.length, 1);
    assert.equal(m1.resourceSpans[0]?.schemaUrl, 'https://opentelemetry.io/schemas/1.24.0');
    assert.deepEqual(
      m1.resourceSpans[0]?.scopeSpans.map((ss) => [ss.scope?.name, ss.schemaUrl || null, ss.spans.length]),
      [
        ['s1', null, 1],
        ['s2', 'x', 1],
      ],
    );
    const m2 = decodeExportTraceServiceRequest(
      messages.find((m) => m.key === bytesToHex(t2))?.value ?? Buffer.alloc(0),
    );
    assert.deepEqual(
      m2.resourceSpans.map((rs) => rs.resource?.attributes[0]?.value?.stringValue),
      ['a', 'b'],
    );
  });

  it('copies received span bytes and produces the same messages as re-encoding every span', () => {
    const checked = decodeExportTraceServiceRequestChecked(protobufBody(req));
    const copied = splitByTrace(checked.request, checked.encodedSpan);
    const encoded = splitByTrace(checked.request);
    assert.deepEqual(
      copied.map((m) => m.value),
      encoded.map((m) => m.value),
    );
    for (const m of copied) {
      const spans = decodeExportTraceServiceRequest(m.value).resourceSpans.flatMap((rs) =>
        rs.scopeSpans.flatMap((ss) => ss.spans),
      );
      assert.ok(spans.every((s) => bytesToHex(s.traceId) === m.key));
    }
    // A one-trace request comes out as the same request.
    const single = {
      resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [span({ traceId: t1 })] }] }],
    };
    const one = decodeExportTraceServiceRequestChecked(protobufBody(single));
    assert.deepEqual(
      splitByTrace(one.request, one.encodedSpan)[0]?.value,
      Buffer.from(encodeExportTraceServiceRequest(one.request)),
    );
  });
});
