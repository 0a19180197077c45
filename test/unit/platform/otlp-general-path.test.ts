/**
 * platform/otlp's general path (protobuf.ts: protobufjs reflection over our schema, what both stages take when the
 * streaming reader declines) against the reference, OpenTelemetry's own .proto files compiled by protobufjs: on
 * every payload both refuse, or both read the same request. The general path differs in three named ways only:
 * it counts invalid UTF-8 (for validation to reject the spans that carry it) where the reference refuses the whole
 * request, it nests 10,000 messages deep where protobufjs stops at 100, and it keeps explicit default values.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  anyValueKind,
  decodeExportTraceServiceRequest,
  decodeExportTraceServiceRequestChecked,
  encodeExportTraceServiceRequest,
  int64ToString,
} from '../../../platform/otlp/index.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { type OtlpReference, otlpReference } from '../../../testkit/otlp-reference.ts';
import { deepAttributeBody } from '../../../testkit/otlp-requests.ts';
import {
  damaged,
  field,
  fuzzProtobufBodies,
  plainRequest,
  prng,
  randomRequest,
  sdkPayload,
} from '../ingest/otlp-payloads.ts';

type Outcome = 'both refuse' | 'both read' | 'invalid UTF-8' | 'deeper than protobufjs reads';

describe("the general OTLP decoding against OpenTelemetry's .proto files", () => {
  let reference: OtlpReference;
  before(async () => {
    reference = await otlpReference();
  });

  /** Asserts the general path and the reference agree on `bytes`; returns how. */
  function agree(bytes: Uint8Array, label: string): Outcome {
    let theirs: object | undefined;
    let refusal = '';
    try {
      theirs = reference.decode(bytes);
    } catch (err) {
      refusal = (err as Error).message;
    }
    let ours: ReturnType<typeof decodeExportTraceServiceRequestChecked> | undefined;
    try {
      ours = decodeExportTraceServiceRequestChecked(bytes);
    } catch {}
    const invalid = ours ? ours.request.resourceSpans.reduce((n, rs) => n + ours.invalidUtf8(rs), 0) : 0;
    if (theirs === undefined) {
      if (ours === undefined) return 'both refuse';
      if (invalid > 0) return 'invalid UTF-8';
      assert.match(refusal, /max depth exceeded/, `${label}: the general path read bytes the reference refuses`);
      return 'deeper than protobufjs reads';
    }
    assert.ok(ours, `${label}: the general path refused bytes the reference reads`);
    assert.equal(invalid, 0, `${label}: invalid UTF-8 counted in bytes the reference reads`);
    assert.deepStrictEqual(reference.canonical(ours.request), reference.canonical(theirs), `${label}: same request`);
    return 'both read';
  }

  it('reads what the reference reads on random, plain, bench and OTel JS serializer requests', () => {
    for (let seed = 1; seed <= 200; seed++) {
      assert.equal(agree(encodeExportTraceServiceRequest(randomRequest(prng(seed))), `random ${seed}`), 'both read');
      assert.equal(agree(encodeExportTraceServiceRequest(plainRequest(prng(seed))), `plain ${seed}`), 'both read');
    }
    for (let seed = 0; seed < 10; seed++) {
      const bytes = syntheticMessage({ seed, toolSpans: 8, tenant: 'acme', warningEvery: 3 });
      assert.equal(agree(bytes, `synthetic ${seed}`), 'both read');
    }
    assert.equal(agree(sdkPayload(), 'sdk'), 'both read');
  });

  it('refuses what the reference refuses on corrupted and truncated bytes, and reads the rest alike', () => {
    const seen = new Map<Outcome, number>();
    for (let seed = 1; seed <= 400; seed++) {
      const r = prng(seed * 7919);
      const bytes = Buffer.from(encodeExportTraceServiceRequest(randomRequest(r)));
      if (bytes.length === 0) continue;
      const { corrupted, truncated } = damaged(r, bytes);
      for (const [b, label] of [
        [corrupted, `corrupted ${seed}`],
        [truncated, `truncated ${seed}`],
      ] as const) {
        const outcome = agree(b, label);
        seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
      }
    }
    assert.ok((seen.get('both refuse') ?? 0) > 100 && (seen.get('both read') ?? 0) > 50, JSON.stringify([...seen]));
  });

  it('agrees on the fuzzer’s protobuf bodies (1,200 cases)', () => {
    const seen = new Map<Outcome, number>();
    for (const { body, label } of fuzzProtobufBodies(20261203, 1_200)) {
      const outcome = agree(body, label);
      seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
    }
    const count = (o: Outcome) => seen.get(o) ?? 0;
    const enough = count('both refuse') > 20 && count('both read') > 5 && count('invalid UTF-8') > 100;
    assert.ok(enough, JSON.stringify([...seen]));
  });

  it('keeps the last member of an AnyValue sent with two, as the reference does', () => {
    const anyValue = Buffer.concat([field(1, 2, Buffer.from('s')), field(3, 0, Buffer.from([5]))]);
    const kv = field(9, 2, Buffer.concat([field(1, 2, Buffer.from('k')), field(2, 2, anyValue)]));
    const body = field(1, 2, field(2, 2, field(2, 2, Buffer.concat([field(5, 2, Buffer.from('n')), kv]))));
    assert.equal(agree(body, 'two members'), 'both read');
    const value =
      decodeExportTraceServiceRequest(body).resourceSpans[0]?.scopeSpans[0]?.spans[0]?.attributes?.[0]?.value;
    assert.equal(anyValueKind(value), 'int');
    assert.equal(int64ToString(value?.intValue), '5');
    assert.equal(value?.stringValue, null);
  });

  it('counts invalid UTF-8 where the reference refuses the request, and reads 1,000 levels where it stops at 100', () => {
    const span = (name: Buffer) => field(1, 2, field(2, 2, field(2, 2, field(5, 2, name))));
    assert.equal(agree(span(Buffer.from([0x61, 0xff])), 'invalid UTF-8'), 'invalid UTF-8');
    assert.equal(agree(deepAttributeBody(40), '40 levels'), 'both read');
    assert.equal(agree(deepAttributeBody(1_000), '1,000 levels'), 'deeper than protobufjs reads');
  });
});
