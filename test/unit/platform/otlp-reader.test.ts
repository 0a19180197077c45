/**
 * The one OTLP reader (platform/otlp/reader) against its reference, OpenTelemetry's own .proto files (Maven
 * Central's opentelemetry-proto) compiled by protobufjs, checked in (testkit/otlp-reference.ts): on every payload
 * it either leaves the bytes (outside its subset: the general paths decide) or reads exactly what the reference
 * reads, and it never takes bytes the reference refuses (invalid UTF-8 included).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  type AnyValue,
  anyValueKind,
  bytesToHex,
  type ExportTraceServiceRequest,
  encodeExportTraceServiceRequest,
  int64ToString,
  type KeyValue,
} from '../../../platform/otlp/index.ts';
import {
  events,
  links,
  readTraceRequest,
  resource,
  scope,
  slots,
  span,
  strings,
  V_ARRAY,
  V_BOOL,
  V_BYTES,
  V_DOUBLE,
  V_INT,
  V_KVLIST,
  V_STRING,
  V_STRINGS,
} from '../../../platform/otlp/reader/index.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { type OtlpReference, otlpReference } from '../../../testkit/otlp-reference.ts';
import {
  damaged,
  field,
  fuzzProtobufBodies,
  plainRequest,
  prng,
  randomRequest,
  sdkPayload,
} from '../ingest/otlp-payloads.ts';

type Value = (string | number | boolean | string[])[];
type Attrs = [string, Value][];
interface SpanView {
  traceId: string;
  spanId: string;
  parent: string;
  traceState: string;
  name: string;
  kind: number;
  start: string;
  end: string;
  status: [number, string];
  attrs: Attrs;
  events: { time: string; name: string; attrs: Attrs }[];
  links: { traceId: string; spanId: string; state: string; attrs: Attrs }[];
}
interface View {
  resources: { attrs: Attrs; scopes: { name: string; version: string; attrs: Attrs; spans: SpanView[] }[] }[];
}

// ------------------------------------------------------------------------------------------ the reader's view

function readerView(bytes: Buffer): View | undefined {
  const view: View = { resources: [] };
  const str = (at: number, len: number) => (at < 0 ? '' : bytes.toString('utf8', at, at + len));
  const hex = (at: number, len: number) => (at < 0 ? '' : bytes.toString('hex', at, at + len));
  const u64 = (at: number) => (at < 0 ? '0' : bytes.readBigUInt64LE(at).toString());
  const value = (i: number): Value => {
    const a = slots.a[i] as number;
    const b = slots.b[i] as number;
    switch (slots.kind[i]) {
      case V_STRING:
        return ['string', str(a, b)];
      case V_BOOL:
        return ['bool', a === 1];
      case V_INT:
        return ['int', BigInt.asIntN(64, (BigInt(b >>> 0) << 32n) | BigInt(a >>> 0)).toString()];
      case V_DOUBLE:
        return ['double', bytes.readDoubleLE(a)];
      case V_STRINGS: {
        const list: string[] = [];
        for (let k = a; k < b; k++) list.push(str(strings.start[k] as number, strings.len[k] as number));
        return ['strings', list];
      }
      case V_ARRAY:
        return ['array'];
      case V_KVLIST:
        return ['kvlist'];
      case V_BYTES:
        return ['bytes'];
      default:
        return ['empty'];
    }
  };
  const attrs = (from: number, to: number): Attrs => {
    const out: Attrs = [];
    for (let i = from; i < to; i++) out.push([str(slots.key[i] as number, slots.keyLen[i] as number), value(i)]);
    return out;
  };
  const ok = readTraceRequest(bytes, {
    resource() {
      view.resources.push({ attrs: attrs(resource.kvFrom, resource.kvTo), scopes: [] });
    },
    scope() {
      view.resources.at(-1)?.scopes.push({
        name: str(scope.name, scope.nameLen),
        version: str(scope.version, scope.versionLen),
        attrs: attrs(scope.kvFrom, scope.kvTo),
        spans: [],
      });
    },
    span() {
      view.resources
        .at(-1)
        ?.scopes.at(-1)
        ?.spans.push({
          traceId: hex(span.traceId, span.traceIdLen),
          spanId: hex(span.spanId, span.spanIdLen),
          parent: hex(span.parent, span.parentLen),
          traceState: str(span.traceState, span.traceStateLen),
          name: str(span.name, span.nameLen),
          kind: span.kind,
          start: u64(span.start),
          end: u64(span.end),
          status: [span.statusCode, str(span.statusMessage, span.statusMessageLen)],
          attrs: attrs(span.attrFrom, span.attrTo),
          events: events.list.slice(0, events.count).map((e) => ({
            time: u64(e.time),
            name: str(e.name, e.nameLen),
            attrs: attrs(e.kvFrom, e.kvTo),
          })),
          links: links.list.slice(0, links.count).map((l) => ({
            traceId: hex(l.traceId, l.traceIdLen),
            spanId: hex(l.spanId, l.spanIdLen),
            state: str(l.state, l.stateLen),
            attrs: attrs(l.kvFrom, l.kvTo),
          })),
        });
    },
  });
  return ok ? view : undefined;
}

// ------------------------------------------------------------------------------------------ the reference's view

function referenceValue(v: AnyValue | null | undefined): Value {
  const kind = anyValueKind(v);
  switch (kind) {
    case 'string':
      return ['string', v?.stringValue as string];
    case 'bool':
      return ['bool', v?.boolValue as boolean];
    case 'int':
      return ['int', int64ToString(v?.intValue)];
    case 'double':
      return ['double', v?.doubleValue as number];
    case 'array': {
      const values = v?.arrayValue?.values ?? [];
      const all = values.every(
        (e) => anyValueKind(e) === 'string' && Object.values(e).filter((x) => x != null).length === 1,
      );
      return all ? ['strings', values.map((e) => e.stringValue as string)] : ['array'];
    }
    default:
      return [kind];
  }
}

const referenceAttrs = (list: readonly KeyValue[] | null | undefined): Attrs =>
  (list ?? []).map((kv) => [kv.key ?? '', referenceValue(kv.value)]);

let reference: OtlpReference;

/** The reference's view, or a string saying why the reader must not take these bytes. */
function referenceView(bytes: Buffer): View | string {
  let request: ExportTraceServiceRequest;
  try {
    request = reference.decodeRequest(bytes);
  } catch (err) {
    return `refused: ${(err as Error).message}`;
  }
  return {
    resources: request.resourceSpans.map((rs) => ({
      attrs: referenceAttrs(rs.resource?.attributes),
      scopes: rs.scopeSpans.map((ss) => ({
        name: ss.scope?.name ?? '',
        version: ss.scope?.version ?? '',
        attrs: referenceAttrs(ss.scope?.attributes),
        spans: ss.spans.map((s) => ({
          traceId: bytesToHex(s.traceId),
          spanId: bytesToHex(s.spanId),
          parent: bytesToHex(s.parentSpanId),
          traceState: s.traceState ?? '',
          name: s.name ?? '',
          kind: s.kind ?? 0,
          start: int64ToString(s.startTimeUnixNano, true),
          end: int64ToString(s.endTimeUnixNano, true),
          status: [s.status?.code ?? 0, s.status?.message ?? ''] as [number, string],
          attrs: referenceAttrs(s.attributes),
          events: (s.events ?? []).map((e) => ({
            time: int64ToString(e.timeUnixNano, true),
            name: e.name ?? '',
            attrs: referenceAttrs(e.attributes),
          })),
          links: (s.links ?? []).map((l) => ({
            traceId: bytesToHex(l.traceId),
            spanId: bytesToHex(l.spanId),
            state: l.traceState ?? '',
            attrs: referenceAttrs(l.attributes),
          })),
        })),
      })),
    })),
  };
}

/** Asserts the reader leaves `bytes` or reads the reference's view; returns whether it read them. */
function agrees(bytes: Uint8Array, label: string): boolean {
  const b = Buffer.from(bytes);
  const read = readerView(b);
  if (read === undefined) return false;
  const expected = referenceView(b);
  assert.notEqual(typeof expected, 'string', `${label}: the reader took bytes the reference ${expected}`);
  assert.deepStrictEqual(read, expected, `${label}: the reader reads what the reference reads`);
  return true;
}

describe("the one OTLP reader against OpenTelemetry's .proto files", () => {
  before(async () => {
    reference = await otlpReference();
  });

  it('reads what the reference reads on random requests, and most of them', () => {
    let taken = 0;
    for (let seed = 1; seed <= 400; seed++) {
      if (agrees(encodeExportTraceServiceRequest(randomRequest(prng(seed))), `random ${seed}`)) taken++;
      if (agrees(encodeExportTraceServiceRequest(plainRequest(prng(seed))), `plain ${seed}`)) taken++;
    }
    assert.ok(taken > 700, `the reader took ${taken} of 800`);
  });

  it('takes the collector-shaped bench messages and the OTel JS serializer output', () => {
    for (let seed = 0; seed < 20; seed++) {
      const bytes = syntheticMessage({ seed, toolSpans: 8, tenant: 'acme', warningEvery: 3 });
      assert.ok(agrees(bytes, `synthetic ${seed}`), `synthetic ${seed} taken`);
    }
    assert.ok(agrees(sdkPayload(), 'sdk'), 'sdk payload taken');
  });

  it('never takes corrupted or truncated bytes the reference refuses or reads otherwise', () => {
    let corruptedTaken = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const r = prng(seed * 7919);
      const bytes = Buffer.from(encodeExportTraceServiceRequest(randomRequest(r)));
      if (bytes.length === 0) continue;
      const { corrupted, truncated } = damaged(r, bytes);
      if (agrees(corrupted, `corrupted ${seed}`)) corruptedTaken++;
      agrees(truncated, `truncated ${seed}`);
    }
    assert.ok(corruptedTaken > 0, 'some corrupted payloads are still read (and compared)');
  });

  it('agrees with the reference on the fuzzer’s protobuf bodies (1,200 cases)', () => {
    let bodies = 0;
    let taken = 0;
    for (const { body, label } of fuzzProtobufBodies(20261201, 1_200)) {
      bodies++;
      if (agrees(body, label)) taken++;
    }
    assert.ok(bodies > 300 && taken > 10, `${taken} of ${bodies} protobuf bodies read`);
  });

  it('leaves unknown fields, repeated singular fields, invalid UTF-8 and deep values to the general paths', () => {
    const base = Buffer.from(syntheticMessage({ seed: 1, toolSpans: 2, tenant: 'acme' }));
    assert.ok(agrees(base, 'base'));
    const unknown = field(99, 0, Buffer.from([0x96, 0x01]));
    assert.equal(readerView(Buffer.concat([unknown, base])), undefined, 'unknown top-level field');
    const spanBytes = (extra: Buffer) =>
      field(
        1,
        2,
        field(
          2,
          2,
          field(2, 2, Buffer.concat([field(1, 2, Buffer.alloc(16, 0xab)), field(2, 2, Buffer.alloc(8, 0xcd)), extra])),
        ),
      );
    assert.ok(agrees(spanBytes(field(5, 2, Buffer.from('name'))), 'one name'));
    assert.equal(
      readerView(spanBytes(Buffer.concat([field(5, 2, Buffer.from('a')), field(5, 2, Buffer.from('b'))]))),
      undefined,
      'a name given twice',
    );
    assert.equal(readerView(spanBytes(field(17, 2, Buffer.from('x')))), undefined, 'an unknown span field');
    assert.equal(
      readerView(spanBytes(field(5, 0, Buffer.from([1])))),
      undefined,
      'a known field with another wire type',
    );
    assert.equal(readerView(spanBytes(field(5, 2, Buffer.from([0x61, 0xff])))), undefined, 'invalid UTF-8');
    const twoValues = field(
      9,
      2,
      Buffer.concat([
        field(1, 2, Buffer.from('k')),
        field(2, 2, Buffer.concat([field(1, 2, Buffer.from('s')), field(3, 0, Buffer.from([5]))])),
      ]),
    );
    assert.equal(readerView(spanBytes(twoValues)), undefined, 'an AnyValue with two values');
    let deep = field(1, 2, Buffer.from('leaf'));
    for (let level = 1; level < 32; level++) deep = field(5, 2, field(1, 2, deep));
    const attribute = (value: Buffer) =>
      field(9, 2, Buffer.concat([field(1, 2, Buffer.from('deep')), field(2, 2, value)]));
    assert.ok(agrees(spanBytes(attribute(deep)), '32 levels'));
    assert.equal(readerView(spanBytes(attribute(field(5, 2, field(1, 2, deep))))), undefined, '33 levels');
    assert.equal(
      readerView(spanBytes(field(9, 2, field(2, 2, field(1, 2, Buffer.from('v')))))),
      undefined,
      'an attribute without a key',
    );
  });
});
