import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import {
  bytesToHex,
  decodeExportTraceServiceRequest,
  decodeExportTraceServiceRequestChecked,
  decodeExportTraceServiceResponse,
  decodeRpcStatus,
  encodeExportTraceServiceRequest,
  encodeExportTraceServiceResponse,
  encodeRpcStatus,
  exportTraceServiceRequestFromJson,
  exportTraceServiceResponseToJson,
  int64ToString,
  OtlpDecodeError,
  OtlpJsonError,
} from '../../../platform/otlp/index.ts';
import { readTraceRequest } from '../../../platform/otlp/reader/index.ts';

function sdkSpans() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('codec-test', '1.2.3');
  const parent = tracer.startSpan('parent', { attributes: { n: 7, s: 'x', list: ['a', 'b'], ok: true, f: 1.5 } });
  parent.addEvent('happened', { detail: 'yes' });
  parent.end();
  tracer.startSpan('second').end();
  return exporter.getFinishedSpans();
}

describe('platform/otlp protobuf', () => {
  it('decodes what the official OTel protobuf serializer sends and re-encodes it byte for byte', () => {
    const spans = sdkSpans();
    const bytes = ProtobufTraceSerializer.serializeRequest(spans);
    assert.ok(bytes);
    const req = decodeExportTraceServiceRequest(bytes);
    const decoded = req.resourceSpans[0]?.scopeSpans[0]?.spans ?? [];
    assert.equal(decoded.length, 2);
    assert.equal(bytesToHex(decoded[0]?.traceId), spans[0]?.spanContext().traceId);
    assert.equal(bytesToHex(decoded[0]?.spanId), spans[0]?.spanContext().spanId);
    assert.equal(decoded[0]?.name, 'parent');
    assert.equal(req.resourceSpans[0]?.scopeSpans[0]?.scope?.version, '1.2.3');
    const [sec, ns] = spans[0]?.startTime ?? [0, 0];
    assert.equal(
      int64ToString(decoded[0]?.startTimeUnixNano, true),
      (BigInt(sec) * 1_000_000_000n + BigInt(ns)).toString(),
    );
    assert.deepEqual(Buffer.from(encodeExportTraceServiceRequest(req)), Buffer.from(bytes));
  });

  it('refuses truncated protobuf with OtlpDecodeError', () => {
    const bytes = ProtobufTraceSerializer.serializeRequest(sdkSpans());
    assert.ok(bytes);
    for (const cut of [1, 10, bytes.length - 3, bytes.length - 1]) {
      assert.throws(() => decodeExportTraceServiceRequest(bytes.subarray(0, cut)), OtlpDecodeError, `cut at ${cut}`);
    }
  });

  it('refuses a span whose last field runs past the span length instead of reading into the next field, in both decoders', () => {
    // Span: trace id, span id, then name (field 5) declared 10 bytes long with only 5 inside the span; the next 5
    // bytes belong to ScopeSpans (a schema_url field, then an unknown varint field), so a lenient decoder reads
    // on and accepts the request, and the span's bytes as received (forwarded to Kafka) are not that span.
    const field = (tag: number, body: number[]) => [tag, body.length, ...body];
    const span = [
      ...field(
        0x0a,
        Array.from({ length: 16 }, (_, i) => i + 1),
      ),
      ...field(
        0x12,
        Array.from({ length: 8 }, (_, i) => i + 1),
      ),
      0x2a,
      10,
      ...Buffer.from('abcde'),
    ];
    const scopeSpans = [...field(0x12, span), ...field(0x1a, [...Buffer.from('xxx')]), 0x78, 0x78];
    const body = Uint8Array.from(field(0x0a, field(0x12, scopeSpans)));
    assert.throws(() => decodeExportTraceServiceRequestChecked(body), /runs past the end of its message/);
    // The ingest's decoder refuses the same bytes with the same error (it must never take what the collector refused).
    assert.throws(() => decodeExportTraceServiceRequest(body), /runs past the end of its message/);
    // And the one streaming reader (the collector's and the ingest's fast paths) leaves them to those.
    assert.equal(readTraceRequest(Buffer.from(body), { resource() {}, scope() {}, span() {} }), false);
  });

  it('reports invalid UTF-8 on exactly the span that carries it', () => {
    const req = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
          scopeSpans: [
            {
              spans: [
                { name: 'good', traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 1) },
                { name: 'MARKER', traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 2) },
              ],
            },
          ],
        },
      ],
    };
    const bytes = Buffer.from(encodeExportTraceServiceRequest(req));
    const at = bytes.indexOf('MARKER');
    bytes[at] = 0xc3;
    bytes[at + 1] = 0x28; // 0xC3 must be followed by a continuation byte: invalid UTF-8
    const checked = decodeExportTraceServiceRequestChecked(bytes);
    const rs = checked.request.resourceSpans[0];
    assert.ok(rs);
    const [good, bad] = rs.scopeSpans[0]?.spans ?? [];
    assert.ok(good && bad);
    assert.equal(checked.invalidUtf8(good), 0);
    assert.equal(checked.invalidUtf8(bad), 1);
    assert.equal(checked.invalidUtf8(rs.resource ?? {}), 0);
  });

  it('decodes 64-bit integers and timestamps exactly at every varint and sign boundary', () => {
    const ints = ['0', '1', '-1', '127', '128', '-300', '2147483647', '-2147483648', '4294967296', '34359738368'];
    ints.push('268435455', '268435456', '9007199254740993', '9223372036854775807', '-9223372036854775808');
    const times = ['1', '1700000000000000000', '4294967296', '9223372036854775808', '18446744073709551615'];
    for (const v of ints) {
      for (const t of times) {
        const req = {
          resourceSpans: [
            {
              scopeSpans: [
                {
                  spans: [
                    { startTimeUnixNano: t, endTimeUnixNano: t, attributes: [{ key: 'k', value: { intValue: v } }] },
                  ],
                },
              ],
            },
          ],
        };
        const bytes = encodeExportTraceServiceRequest(req);
        const decoded = decodeExportTraceServiceRequest(bytes);
        const s = decoded.resourceSpans[0]?.scopeSpans[0]?.spans[0];
        assert.equal(int64ToString(s?.attributes?.[0]?.value?.intValue), v);
        assert.equal(int64ToString(s?.startTimeUnixNano, true), t);
        assert.deepEqual(Buffer.from(encodeExportTraceServiceRequest(decoded)), Buffer.from(bytes));
      }
    }
  });

  it('round-trips responses and google.rpc.Status', () => {
    const res = decodeExportTraceServiceResponse(
      encodeExportTraceServiceResponse({ partialSuccess: { rejectedSpans: 3, errorMessage: 'bad ids' } }),
    );
    assert.equal(int64ToString(res.partialSuccess?.rejectedSpans), '3');
    assert.equal(res.partialSuccess?.errorMessage, 'bad ids');
    assert.deepEqual(decodeRpcStatus(encodeRpcStatus({ code: 3, message: 'not OTLP' })), {
      code: 3,
      message: 'not OTLP',
    });
    assert.deepEqual(exportTraceServiceResponseToJson({ partialSuccess: { rejectedSpans: 2, errorMessage: 'x' } }), {
      partialSuccess: { rejectedSpans: '2', errorMessage: 'x' },
    });
  });
});

describe('platform/otlp JSON', () => {
  it('converts the official OTel JSON serializer output to the same protobuf as the protobuf serializer', () => {
    const spans = sdkSpans();
    const json = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)));
    const { request, rejections } = exportTraceServiceRequestFromJson(json);
    assert.deepEqual(rejections, []);
    const proto = ProtobufTraceSerializer.serializeRequest(spans);
    assert.ok(proto);
    assert.deepEqual(Buffer.from(encodeExportTraceServiceRequest(request)), Buffer.from(proto));
  });

  it('reads hex ids, integer enums, int64 strings and snake_case names, and ignores unknown fields', () => {
    const { request, rejections } = exportTraceServiceRequestFromJson({
      resource_spans: [
        {
          futureField: { anything: 1 },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '5B8EFFF798038103D269B633813FC60C',
                  span_id: 'eee19b7ec3c1b174',
                  kind: 2,
                  status: { code: 'STATUS_CODE_ERROR' },
                  startTimeUnixNano: '1544712660000000000',
                  endTimeUnixNano: 1544712661000,
                  attributes: [{ key: 'n', value: { intValue: '-42' } }],
                  unknown: [1, 2, 3],
                },
              ],
            },
          ],
        },
      ],
    });
    assert.deepEqual(rejections, []);
    const span = request.resourceSpans[0]?.scopeSpans[0]?.spans[0];
    assert.equal(bytesToHex(span?.traceId), '5b8efff798038103d269b633813fc60c');
    assert.equal(bytesToHex(span?.spanId), 'eee19b7ec3c1b174');
    assert.equal(span?.kind, 2);
    assert.equal(span?.status?.code, 2);
    assert.equal(int64ToString(span?.startTimeUnixNano, true), '1544712660000000000');
    assert.equal(int64ToString(span?.attributes?.[0]?.value?.intValue), '-42');
  });

  it('rejects a malformed span by path and keeps its well-formed neighbours', () => {
    const { request, rejections } = exportTraceServiceRequestFromJson({
      resourceSpans: [
        { scopeSpans: [{ spans: [{ traceId: 'not-hex', spanId: 'eee19b7ec3c1b174' }, { name: 'fine' }] }] },
      ],
    });
    assert.equal(request.resourceSpans[0]?.scopeSpans[0]?.spans.length, 1);
    assert.deepEqual(rejections, [
      { spans: 1, message: 'resourceSpans[0].scopeSpans[0].spans[0].traceId: must be a hex string' },
    ]);
  });

  it('fails the whole request when the envelope is not OTLP/JSON', () => {
    assert.throws(() => exportTraceServiceRequestFromJson([1, 2]), OtlpJsonError);
    assert.throws(() => exportTraceServiceRequestFromJson({ resourceSpans: {} }), OtlpJsonError);
    assert.throws(() => exportTraceServiceRequestFromJson({ resourceSpans: [{ scopeSpans: 'x' }] }), OtlpJsonError);
  });
});
