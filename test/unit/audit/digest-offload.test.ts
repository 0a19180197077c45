import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { canonicalRow, entryHash, sha256, TABLE_SPECS, type TableSpec, valuesOf } from '../../../audit/canonical.ts';
import { computeOffMainThread, stopDigestWorker } from '../../../audit/digest-offload.ts';
import type { EntriesByTenant } from '../../../audit/entries.ts';
import { createDigestRecorder, digestEntries, type StoredRows } from '../../../audit/recorder.ts';
import { entriesOfRuns } from '../../../audit/runs.ts';
import { emptyFlattenResult, flattenInto } from '../../../ingest/flatten.ts';
import { encodeRows } from '../../../ingest/writer.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';
import { decodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { mulberry32 } from '../../../platform/seeded-random.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';

after(() => stopDigestWorker());

const HOUR_S = 1_772_359_200;

function randomRow(spec: TableSpec, r: () => number): Record<string, unknown> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const text = () => pick(['', 'a', 'ü€😀', 'quote " and \\ back', 'line\nbreak', `v${Math.floor(r() * 1e6)}`]);
  const time = () => {
    const s = HOUR_S + Math.floor(r() * 7200);
    const frac = String(Math.floor(r() * 1e9))
      .padStart(9, '0')
      .slice(0, 1 + Math.floor(r() * 9));
    return pick([`${s}.${frac}`, `${s}${String(Math.floor(r() * 1e9)).padStart(9, '0')}`, `0${s}.${frac}`]);
  };
  const map = () => {
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(r() * 4); i > 0; i--) o[pick(['b', 'a', 'z', 'é', 'k.1', 'K'])] = pick([text(), 7, true]);
    return o;
  };
  const row: Record<string, unknown> = {};
  for (const [name, type] of spec.columns) {
    if (r() < 0.1) continue; // missing: the type's default
    switch (type) {
      case 'string':
        row[name] = name === spec.tenant ? pick(['acme', 'beta', '']) : text();
        break;
      case 'bool':
        row[name] = pick([true, false, 1, 0, '1', 'true', 'false']);
        break;
      case 'uint':
        row[name] = pick([0, 17, Math.floor(r() * 2 ** 40), '18446744073709551615', '007']);
        break;
      case 'nullable_int':
        row[name] = pick([null, 3, '42', '-5', 2 ** 60]);
        break;
      case 'time':
        row[name] = time();
        break;
      case 'strings':
        row[name] = Array.from({ length: Math.floor(r() * 3) }, text);
        break;
      case 'times':
        row[name] = Array.from({ length: Math.floor(r() * 3) }, time);
        break;
      case 'map':
        row[name] = pick([map(), null]);
        break;
      case 'maps':
        row[name] = Array.from({ length: Math.floor(r() * 3) }, map);
        break;
    }
  }
  if (row[spec.time] === undefined) row[spec.time] = time();
  return row;
}

function randomRows(seed: number, n: number): StoredRows {
  const r = mulberry32(seed);
  const [tc, w, sp] = TABLE_SPECS;
  return {
    toolCalls: Array.from({ length: n }, () => randomRow(tc, r)),
    // Few span ids, so warnings group several rows into one entry.
    warnings: Array.from({ length: n }, () => ({ ...randomRow(w, r), span_id: `s${Math.floor(r() * 5)}` })),
    spans: Array.from({ length: n }, () => randomRow(sp, r)),
  };
}

/** Entries in one order whatever order they were computed in (the maps' and lists' order is not the contract). */
function normal(e: EntriesByTenant): [string, [number, string[]][]][] {
  return [...e.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([t, hours]) => [
      t,
      [...hours.entries()]
        .sort(([a], [b]) => a - b)
        .map(([h, list]): [number, string[]] => [h, list.map((x) => `${x.table}\t${x.id}\t${x.hash}`).sort()]),
    ]);
}

const createHashHex = (text: string) => createHash('sha256').update(text).digest('hex');

/** The entry hash as it was computed before the one-shot hash (createHash over the same text). */
function referenceEntryHash(spec: TableSpec, rows: unknown[][]): string {
  if (spec.table !== 'tool_call_warnings') return createHashHex(`${spec.table}\n${canonicalRow(spec, rows[0]!)}`);
  return createHashHex(
    `${spec.table}\n${rows
      .map((x) => canonicalRow(spec, x))
      .sort()
      .join('\n')}`,
  );
}

/** A ClickHouse client with an empty log that keeps the body of every insert (the log's Native blocks). */
function fakeClickHouse() {
  const inserted: Buffer[] = [];
  const ch = {
    async query() {
      return { json: async () => [] };
    },
    async exec(args: { values: AsyncIterable<Buffer> }) {
      const chunks: Buffer[] = [];
      for await (const c of args.values) chunks.push(c);
      inserted.push(Buffer.concat(chunks));
      return { stream: Readable.from([]) };
    },
  } as unknown as ClickHouseClient;
  return { ch, inserted };
}

describe('digest offload keeps every hash byte-identical', () => {
  it('sha256 (one-shot crypto.hash) equals createHash over random text, including non-ASCII', () => {
    const r = mulberry32(1);
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: Math.floor(r() * 300) }, () =>
        String.fromCodePoint(Math.floor(r() * (r() < 0.8 ? 128 : 0x10000))),
      ).join('');
      assert.equal(sha256(text), createHashHex(text));
    }
  });

  it('version 1 entry hashes (the digest records, older leaves) over random rows of every table equal the createHash reference over their text', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const r = mulberry32(seed);
      for (const spec of TABLE_SPECS) {
        const rows = Array.from({ length: 1 + Math.floor(r() * 3) }, () => valuesOf(spec, randomRow(spec, r)));
        const one = spec.table === 'tool_call_warnings' ? rows : rows.slice(0, 1);
        assert.equal(entryHash(spec, one, 1), referenceEntryHash(spec, one), `${spec.table} seed ${seed}`);
      }
    }
  });

  it('the worker computes the same entries from cloned rows as the main thread', async () => {
    for (const seed of [3, 4, 5]) {
      const rows = randomRows(seed, 200);
      const worker = await computeOffMainThread({ kind: 'rows', rows });
      assert.ok(worker, 'the worker answered');
      assert.deepEqual(normal(entriesOfRuns(worker.runs)), normal(digestEntries(rows)));
      assert.deepEqual(worker.counts, { toolCalls: 200, warnings: 200, spans: 200 });
    }
  });

  it('the worker computes from the Native blocks the entries of the rows they encode', async () => {
    const rows = emptyFlattenResult();
    for (let i = 0; i < 30; i++) {
      const m = syntheticMessage({
        tenant: i % 3 === 0 ? 'beta' : 'acme',
        toolSpans: 1 + (i % 7),
        seed: 100 + i,
        startMs: (HOUR_S + i * 300) * 1000,
        warningEvery: 2,
      });
      flattenInto(rows, decodeExportTraceServiceRequest(m));
    }
    assert.ok(rows.toolCalls.length > 0 && rows.warnings.length > 0 && rows.spans.length > 0);
    const blocks = encodeRows(rows);
    const worker = await computeOffMainThread({ kind: 'native', blocks });
    assert.ok(worker, 'the worker answered');
    assert.deepEqual(normal(entriesOfRuns(worker.runs)), normal(digestEntries(rows)));
    assert.deepEqual(worker.counts, {
      toolCalls: rows.toolCalls.length,
      warnings: rows.warnings.length,
      spans: rows.spans.length,
    });
  });

  it('logs from prepared leaves what record() computes itself, in call order', async () => {
    const batches = [randomRows(7, 50), randomRows(8, 50), randomRows(9, 50)];
    const now = () => (HOUR_S + 7200) * 1000;
    const a = fakeClickHouse();
    const b = fakeClickHouse();
    const main = createDigestRecorder(a.ch, { database: 'db_a', chain: 'offload', now, offload: false });
    const off = createDigestRecorder(b.ch, { database: 'db_b', chain: 'offload', now, offload: true });
    // Prepared all at once and recorded concurrently: the leaves must still follow the call order.
    const prepared = batches.map((rows) => off.prepare!({ kind: 'rows', rows }));
    const ranges = await Promise.all(
      batches.map((rows, i) => off.record(rows, { batchId: `b${i}`, prepared: prepared[i] })),
    );
    for (const [i, rows] of batches.entries())
      assert.deepEqual(await main.record(rows, { batchId: `b${i}` }), ranges[i]);
    assert.equal(a.inserted.length, batches.length);
    assert.deepEqual(b.inserted, a.inserted, 'the same tiles and entries, byte for byte');
  });

  it('prepared leaves that do not cover the recorded rows are not used', async () => {
    const now = () => (HOUR_S + 7200) * 1000;
    const a = fakeClickHouse();
    const b = fakeClickHouse();
    const rec = createDigestRecorder(a.ch, { database: 'db_c', chain: 'offload-b', now, offload: true });
    const plain = createDigestRecorder(b.ch, { database: 'db_d', chain: 'offload-b', now, offload: false });
    const rows = randomRows(11, 20);
    const other = randomRows(12, 20);
    const stale = rec.prepare!({ kind: 'rows', rows: { ...other, spans: other.spans.slice(1) } });
    const logged = await rec.record(rows, { batchId: 'x', prepared: stale });
    await plain.record(rows, { batchId: 'x' });
    const expected = [...digestEntries(rows).values()].flatMap((h) => [...h.values()]).flat().length;
    assert.equal(
      logged.reduce((n, r) => n + r.count, 0),
      expected,
    );
    assert.deepEqual(a.inserted, b.inserted, 'what the rows themselves give');
  });
});
