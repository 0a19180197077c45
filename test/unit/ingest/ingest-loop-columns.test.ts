/**
 * The loop's column path (ingest/columns/) must store what the row path stores: the same Native blocks
 * under the same token, and a batch holding a message that needs the general path is written from rows, all of
 * its messages' rows in offset order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EncodedRows } from '../../../ingest/columns/arena.ts';
import { IngestLoop } from '../../../ingest/consumer.ts';
import { emptyFlattenResult, flattenInto } from '../../../ingest/flatten.ts';
import { IngestMetrics } from '../../../ingest/metrics.ts';
import type { RowWriter } from '../../../ingest/writer.ts';
import type { BatchControl, BatchMessage, FetchedBatch } from '../../../platform/kafka/index.ts';
import { decodeExportTraceServiceRequest, encodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import type { Rows } from '../../../schema/rows.ts';
import { syntheticMessage, syntheticRequest } from '../../../testkit/ingest.ts';
import { blocksOf } from './otlp-payloads.ts';

const TOPIC = 'otlp_spans';
const START = 1_700_000_000_000;

function plain(seed: number): Buffer {
  return syntheticMessage({ tenant: 't', toolSpans: 3, seed, startMs: START, warningEvery: 2 });
}

/** A message the column path leaves to the general one: a bytes value among the attributes. */
function general(seed: number): Buffer {
  const request = syntheticRequest({ tenant: 't', toolSpans: 3, seed, startMs: START });
  request.resourceSpans[0]!.scopeSpans[0]!.spans[1]!.attributes!.push({
    key: 'payload',
    value: { bytesValue: Buffer.from([1, 2, 3]) },
  });
  return Buffer.from(encodeExportTraceServiceRequest(request));
}

function fetched(values: Buffer[]): FetchedBatch {
  const messages: BatchMessage[] = values.map((value, offset) => ({
    topic: TOPIC,
    partition: 0,
    offset: String(offset),
    timestamp: String(START + offset),
    key: null,
    value,
    headers: {},
    size: value.length,
  }));
  return { topic: TOPIC, partition: 0, highWatermark: String(values.length), messages };
}

function rowsOf(values: Buffer[]): Rows {
  const out = emptyFlattenResult();
  for (const v of values) flattenInto(out, decodeExportTraceServiceRequest(v));
  return { toolCalls: out.toolCalls, warnings: out.warnings, spans: out.spans };
}

async function run(values: Buffer[]) {
  const calls: { kind: 'rows' | 'encoded'; token: string | undefined; rows?: Rows; blocks?: EncodedRows }[] = [];
  const events: string[] = [];
  const metrics = new IngestMetrics();
  const writer: RowWriter = {
    async writeRows(rows, o = {}) {
      calls.push({ kind: 'rows', token: o.dedupToken, rows });
      return { rows: { toolCalls: 0, warnings: 0, spans: 0 }, insertMs: 0 };
    },
    async writeEncoded(blocks, o = {}) {
      calls.push({ kind: 'encoded', token: o.dedupToken, blocks });
      return { rows: { toolCalls: 0, warnings: 0, spans: 0 }, insertMs: 0 };
    },
  };
  const loop = new IngestLoop({
    topic: TOPIC,
    consumer: {
      run: async () => {},
      commit: async (p, next) => {
        events.push(`commit ${p}@${next}`);
      },
      confirmAssigned: async () => {},
      pause: () => {},
      resume: () => {},
      seek: () => {},
      onAssignment: () => {},
      onCrash: () => {},
      disconnect: async () => {},
    },
    writer,
    batchLog: { load: async () => [], record: async () => {}, recentMessageIds: async () => [] },
    deadLetters: { send: async () => {} },
    metrics,
    limits: { maxRows: 1_000, maxBytes: 1e9 },
    backoff: { initialMs: 100, maxMs: 400 },
  });
  const control: BatchControl = { isActive: () => true, heartbeat: async () => {}, markFetched: () => {} };
  await loop.onBatch(fetched(values), control);
  return { calls, events, metrics };
}

const token = (last: number) => `${TOPIC}:0:0-${last}@${START}`;

describe('ingest loop, column path', () => {
  it('stores a batch of plain messages as the Native blocks the row path would send, with its token', async () => {
    const values = [plain(1), plain(2), plain(3), plain(4)];
    const { calls, events } = await run(values);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.kind, 'encoded');
    assert.equal(calls[0]!.token, token(3));
    const b = calls[0]!.blocks!;
    assert.deepEqual([b.toolCalls.body, b.warnings.body, b.spans.body], blocksOf(rowsOf(values)));
    assert.deepEqual(events, ['commit 0@4']);
  });

  it('writes a batch from rows, every message in offset order, when one message needs the general path', async () => {
    const values = [plain(1), general(2), plain(3)];
    const { calls, events } = await run(values);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.kind, 'rows');
    assert.equal(calls[0]!.token, token(2));
    const { toolCalls, warnings, spans } = calls[0]!.rows!;
    assert.deepEqual({ toolCalls, warnings, spans }, rowsOf(values));
    assert.deepEqual(events, ['commit 0@3']);
  });

  it('counts each message the column path leaves to the general path, by its reason, in the ingest metrics', async () => {
    const { metrics } = await run([plain(1), general(2), general(3), plain(4)]);
    const text = await metrics.render();
    const count = (reason: string) =>
      Number(
        new RegExp(`^tooltrail_ingest_column_path_declines_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text)?.[1],
      );
    assert.equal(count('attribute_shape'), 2, 'the two messages with a bytes value');
    assert.equal(count('tenant'), 0, 'every reason is exported from the start');
    assert.equal(count('wire_subset'), 0);
  });
});
