import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Attr } from '../../../contract/index.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import type { ExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { type Rows, SPAN_COLUMNS, TOOL_CALL_COLUMNS, TOOL_CALL_NATIVE, WARNING_COLUMNS } from '../../../schema/rows.ts';
import { syntheticRequest } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase } from '../../../testkit/services.ts';

let jsonDb: TestDatabase;
let nativeDb: TestDatabase;
before(async () => {
  jsonDb = await freshDatabase('tt_ingest_json');
  nativeDb = await freshDatabase('tt_ingest_native');
});
after(async () => {
  await jsonDb?.drop();
  await nativeDb?.drop();
});

/** A request with the awkward values: unicode, long strings, empty and null-ish fields, events, links, big ints. */
// Recent (older rows would fall to the retention TTL on insert), with a millisecond part.
const START_MS = Math.floor(Date.now() / 1000) * 1000 - 86_400_000 + 123;

function awkwardRequest(): ExportTraceServiceRequest {
  // The tenant follows the one tenant rule (ASCII; the ingest dead-letters any other); the unicode is in the values.
  const req = syntheticRequest({ tenant: 'uni-tenant', toolSpans: 6, seed: 42, startMs: START_MS, warningEvery: 2 });
  const span = req.resourceSpans[0]!.scopeSpans[0]!.spans[1]!;
  span.attributes = [
    ...(span.attributes ?? []),
    { key: 'long', value: { stringValue: 'x'.repeat(300) + 'é'.repeat(100) } },
    { key: 'emoji🙂', value: { stringValue: '🙂 ok' } },
    { key: 'ünïcödé', value: { stringValue: 'ünï' } },
    { key: Attr.MUTATION_TARGET_COUNT, value: { intValue: '-5' } },
  ];
  span.links = [{ traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 2), traceState: 'a=b', attributes: [] }];
  span.status = { code: 2, message: 'boom — failed' };
  return req;
}

async function dump(db: TestDatabase, table: string, order: string): Promise<unknown[]> {
  const ingestedAt = table === 'spans' ? 'IngestedAt' : 'ingested_at';
  const rs = await db.ch.query({
    query: `SELECT * EXCEPT (${ingestedAt}) FROM ${db.database}.${table} ORDER BY ${order}`,
    format: 'JSONEachRow',
  });
  return rs.json();
}

/** The reference: the same rows' values as JSON arrays, parsed by ClickHouse itself (the client's JSON insert). */
async function insertAsJson(db: TestDatabase, rows: Rows): Promise<void> {
  const tables = [
    ['tool_calls', TOOL_CALL_COLUMNS, rows.toolCalls],
    ['tool_call_warnings', WARNING_COLUMNS, rows.warnings],
    ['spans', SPAN_COLUMNS, rows.spans],
  ] as const;
  for (const [table, columns, values] of tables) {
    await db.ch.insert({
      table: `${db.database}.${table}`,
      columns: columns as unknown as [string, ...string[]],
      format: 'JSONCompactEachRow',
      values: values.map((row) => columns.map((c) => (row as unknown as Record<string, unknown>)[c])),
    });
  }
}

describe('insert encodings', () => {
  it('the Native blocks store exactly the rows ClickHouse parses from the same values sent as JSON', async () => {
    const rows = flatten(awkwardRequest());
    await insertAsJson(jsonDb, rows);
    await createClickHouseWriter(nativeDb.ch, { database: nativeDb.database }).writeRows(rows, {
      dedupToken: 'x',
    });
    const nativeCalls = await dump(nativeDb, 'tool_calls', 'span_id');
    assert.equal(nativeCalls.length, 6);
    assert.deepEqual(nativeCalls, await dump(jsonDb, 'tool_calls', 'span_id'));
    assert.deepEqual(await dump(nativeDb, 'spans', 'SpanId'), await dump(jsonDb, 'spans', 'SpanId'));
    assert.deepEqual(
      await dump(nativeDb, 'tool_call_warnings', 'span_id'),
      await dump(jsonDb, 'tool_call_warnings', 'span_id'),
    );
    const one = nativeCalls.find((r) => (r as { attributes: Record<string, string> }).attributes.long) as Record<
      string,
      unknown
    >;
    assert.equal((one.attributes as Record<string, string>)['emoji🙂'], '🙂 ok');
    assert.equal(String(one.mutation_target_count), '-5');
    const expected = `${new Date(START_MS).toISOString().replace('T', ' ').slice(0, 23)}001000`;
    assert.deepEqual(one.event_times, [expected], 'nanoseconds survive the Native encoding');
  });

  it('covers every tool_calls column in the Native schema', async () => {
    const rs = await nativeDb.ch.query({
      query: `SELECT name FROM system.columns WHERE database = {db:String} AND table = 'tool_calls' AND default_kind = '' ORDER BY position`,
      query_params: { db: nativeDb.database },
      format: 'JSONEachRow',
    });
    const columns = (await rs.json<{ name: string }>()).map((r) => r.name);
    assert.deepEqual(
      TOOL_CALL_NATIVE.map(([c]) => c),
      columns,
    );
  });
});
