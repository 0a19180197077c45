/**
 * The collector and the ingest read OTLP protobuf through the one reader, with platform/otlp's general decoding as
 * both stages' general path: a body the collector refuses as not OTLP is one the ingest dead-letters as
 * undecodable, and every per-trace message the collector forwards after accepting spans is read by the ingest,
 * column path or general path, with every accepted span stored under the credential's tenant, and the column
 * path's rows and the general path's equal to the rows of the reference's reading (OpenTelemetry's own .proto files
 * compiled by protobufjs). The fuzzer once found the collector answering 200 for a message the ingest refused.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { CollectorHttpError } from '../../../collector/errors.ts';
import { prepareMessages } from '../../../collector/prepare.ts';
import { assembleBlocks, ColumnArena } from '../../../ingest/columns/arena.ts';
import { decodeToColumns } from '../../../ingest/columns/decode.ts';
import { flatten } from '../../../ingest/flatten.ts';
import {
  decodeExportTraceServiceRequest,
  encodeExportTraceServiceRequest,
  OtlpDecodeError,
} from '../../../platform/otlp/index.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { type OtlpReference, otlpReference } from '../../../testkit/otlp-reference.ts';
import { blocksOf, damaged, fuzzProtobufBodies, plainRequest, prng, randomRequest } from '../ingest/otlp-payloads.ts';

const TENANT = 'acme';

type Verdict = 'refused' | 'accepted' | 'none accepted';

let reference: OtlpReference;

/** The collector's answer to a protobuf body, checking each message it forwards as the ingest reads it. */
function throughPipeline(body: Buffer, label: string): Verdict {
  let prepared: ReturnType<typeof prepareMessages>;
  try {
    prepared = prepareMessages(body, 'protobuf', TENANT);
  } catch (err) {
    assert.ok(err instanceof CollectorHttpError && err.statusCode === 400, `${label}: the collector answers 400`);
    // The ingest, given the same bytes (a third party's Kafka message), dead-letters them as undecodable.
    assert.equal(decodeToColumns(new ColumnArena(), body), undefined, `${label}: the column path leaves them`);
    assert.throws(() => decodeExportTraceServiceRequest(body), OtlpDecodeError, `${label}: the ingest refuses them`);
    return 'refused';
  }
  let stored = 0;
  for (const m of prepared.messages) {
    const value = Buffer.from(m.value);
    const expected = flatten(reference.decodeRequest(value));
    assert.deepEqual(flatten(decodeExportTraceServiceRequest(value)), expected, `${label}: the general path's rows`);
    assert.deepEqual(expected.rejected, [], `${label}: no span the collector accepted is rejected by the ingest`);
    const rows = expected.toolCalls.length + expected.spans.length;
    assert.equal(rows, m.spanCount, `${label}: every accepted span of the message is a row`);
    assert.ok(
      [...expected.toolCalls, ...expected.warnings].every((r) => r.tenant === TENANT),
      `${label}: tenant`,
    );
    const arena = new ColumnArena();
    const mark = decodeToColumns(arena, value);
    if (mark) {
      const blocks = assembleBlocks(arena, [mark]);
      assert.deepEqual(
        [blocks.toolCalls.body, blocks.warnings.body, blocks.spans.body].map((b) => Buffer.from(b)),
        blocksOf(expected),
        `${label}: the column path's rows are the reference's`,
      );
    }
    stored += rows;
  }
  assert.equal(stored, prepared.accepted, `${label}: the ingest stores exactly the spans the collector accepted`);
  return prepared.accepted > 0 ? 'accepted' : 'none accepted';
}

describe('the collector accepts what the ingest reads (one OTLP reader, one general path, one reference)', () => {
  before(async () => {
    reference = await otlpReference();
  });

  it('on the fuzzer’s protobuf bodies: refused by both, or every accepted span read by the ingest (1,200 cases)', () => {
    const seen = new Map<Verdict, number>();
    for (const { body, label } of fuzzProtobufBodies(20261202, 1_200)) {
      const v = throughPipeline(body, label);
      seen.set(v, (seen.get(v) ?? 0) + 1);
    }
    assert.ok((seen.get('refused') ?? 0) > 20 && (seen.get('accepted') ?? 0) > 20, JSON.stringify([...seen]));
  });

  it('on generated requests, the bench messages, and their corrupted and truncated bytes', () => {
    const seen = new Map<Verdict, number>();
    const count = (v: Verdict) => seen.set(v, (seen.get(v) ?? 0) + 1);
    for (let seed = 1; seed <= 200; seed++) {
      const r = prng(seed * 104729);
      for (const bytes of [
        Buffer.from(encodeExportTraceServiceRequest(randomRequest(r))),
        Buffer.from(encodeExportTraceServiceRequest(plainRequest(r))),
        Buffer.from(syntheticMessage({ seed, toolSpans: 4, tenant: 'claimed', warningEvery: 2 })),
      ]) {
        count(throughPipeline(bytes, `seed ${seed}`));
        if (bytes.length === 0) continue;
        const { corrupted, truncated } = damaged(r, bytes);
        count(throughPipeline(corrupted, `corrupted ${seed}`));
        count(throughPipeline(truncated, `truncated ${seed}`));
      }
    }
    assert.ok((seen.get('refused') ?? 0) > 50 && (seen.get('accepted') ?? 0) > 300, JSON.stringify([...seen]));
  });
});
