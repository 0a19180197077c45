/**
 * The Merkle log's cost and what it buys, on this machine's real ClickHouse (issue 22):
 *
 * 1. Ingest throughput with the log on vs off (the named baseline: the same writer with its audit trail off; since
 *    issue 38 the log is the whole record, so "off" records nothing), alternated A/B rounds in one run, the same
 *    flattened batches each round: rows/s and the ratio (target >= 0.9x).
 * 2. Proof size and verification time per call: `reconstruct --json`'s bundle of tool calls against the newest
 *    checkpoint; bytes of the inclusion proof and of the bundle entry, and verifyBundle's time per call.
 * 3. `verify` over a day of data: the hourly row walk (before: every row re-read and re-hashed) against the log's
 *    checkpoint consistency alone (after: `--no-rows`), alternated, same database.
 *
 *   node --import tsx bench/audit-log.ts [--batches 6] [--rounds 5] [--day-batches 24] [--spans 500]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildBundle, verifyBundle } from '../audit/log/bundle.ts';
import { defaultLogConfig } from '../audit/log/config.ts';
import { generateNoteKey, parseSigner, parseVerifier } from '../audit/log/note.ts';
import { LogStore } from '../audit/log/store.ts';
import { verifyRange } from '../audit/log/verify-range.ts';
import { createDigestRecorder } from '../audit/recorder.ts';
import { emptyFlattenResult, type FlattenResult, flattenInto } from '../ingest/flatten.ts';
import { createClickHouseWriter } from '../ingest/writer.ts';
import { type ClickHouseClient, clickHouseOf } from '../platform/clickhouse.ts';
import { decodeExportTraceServiceRequest } from '../platform/otlp/index.ts';
import { DEFAULT_RETENTION_DAYS, type SchemaConfig } from '../schema/config.ts';
import { dropDatabase, migrateUp } from '../schema/migrations.ts';
import { loadServicesConfig } from '../services/config.ts';
import { syntheticMessage } from '../testkit/ingest.ts';
import { type BenchFigure, printBenchReport, spread } from './support/report.ts';

const { values: args } = parseArgs({
  options: {
    batches: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '5' },
    'day-batches': { type: 'string', default: '24' },
    spans: { type: 'string', default: '500' },
  },
});
const BATCHES = Number(args.batches);
const ROUNDS = Number(args.rounds);
const DAY_BATCHES = Number(args['day-batches']);
const SPANS = Number(args.spans);
const HOUR = 3_600_000;

const key = generateNoteKey('bench.audit');
const signer = parseSigner(key.signer);
const verifiers = [parseVerifier(key.verifier)];

function batch(tenant: string, seed: number, startMs: number): FlattenResult {
  const out = emptyFlattenResult();
  // One request of SPANS tool spans in 50-span traces, as the collector's messages are.
  for (let m = 0; m < SPANS / 50; m++)
    flattenInto(
      out,
      decodeExportTraceServiceRequest(
        syntheticMessage({ tenant, toolSpans: 50, seed: seed * 1000 + m, startMs, warningEvery: 5 }),
      ),
    );
  return out;
}

const rowsOf = (b: FlattenResult) => b.toolCalls.length + b.spans.length + b.warnings.length;

async function ingestRound(
  ch: ClickHouseClient,
  database: string,
  log: boolean,
  round: number,
  batches: FlattenResult[],
) {
  const rec = createDigestRecorder(ch, {
    database,
    chain: `bench-${log ? 'on' : 'off'}-${round}`,
    log: log ? { ...defaultLogConfig(), signer } : { ...defaultLogConfig(), enabled: false },
  });
  const writer = createClickHouseWriter(ch, { database, batchStored: rec });
  const t0 = performance.now();
  let rows = 0;
  for (const [i, b] of batches.entries()) {
    await writer.writeRows(b, { dedupToken: `bench-${log}-${round}-${i}` });
    rows += rowsOf(b);
  }
  return rows / ((performance.now() - t0) / 1000);
}

async function main() {
  const svc = loadServicesConfig();
  const ch = clickHouseOf(svc.clickhouse);
  const database = `tt_bench_audit_${process.pid}`;
  const schema: SchemaConfig = { database, retentionDays: DEFAULT_RETENTION_DAYS };
  await migrateUp(ch, schema);
  const figures: BenchFigure[] = [];
  try {
    // ---- 1. ingest with the log on vs off (alternated; each round its own tenant, same rows otherwise)
    const now = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
    const on: number[] = [];
    const off: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const log of r % 2 === 0 ? [true, false] : [false, true]) {
        const tenant = `ingest-${log ? 'on' : 'off'}-${r}`;
        const batches = Array.from({ length: BATCHES }, (_, i) => batch(tenant, r * 100 + i, now));
        (log ? on : off).push(await ingestRound(ch, database, log, r, batches));
      }
      console.log(`round ${r + 1}: log on ${Math.round(on.at(-1)!)} rows/s, off ${Math.round(off.at(-1)!)} rows/s`);
    }
    const onS = spread(on);
    const offS = spread(off);
    const ratio = onS.value / offS.value;
    console.log(
      `ingest rows/s: log on ${Math.round(onS.value)}, off ${Math.round(offS.value)}, ratio ${ratio.toFixed(3)}x`,
    );
    figures.push({
      name: 'ingest rows/s through the writer with the Merkle log on',
      ...onS,
      unit: 'rows/s',
      baseline: { name: 'the same writer, audit log off', value: offS.value },
      ratio,
      target: '>= 0.9x',
      met: ratio >= 0.9,
    });

    // ---- 2. proofs: a day of data, one batch an hour, then a bundle of tool calls
    const dayTenant = 'day';
    const rec = createDigestRecorder(ch, {
      database,
      chain: 'bench-day',
      log: { ...defaultLogConfig(), signer, everyRows: 1_000_000, everySeconds: 1 },
    });
    const writer = createClickHouseWriter(ch, { database, batchStored: rec });
    const dayStart = now - (DAY_BATCHES - 1) * HOUR;
    let dayRows = 0;
    const callIds: string[] = [];
    for (let h = 0; h < DAY_BATCHES; h++) {
      const b = batch(dayTenant, 90_000 + h, dayStart + h * HOUR + 60_000);
      dayRows += rowsOf(b);
      if (h % 6 === 0) callIds.push(...b.toolCalls.slice(0, 25).map((c) => c.span_id));
      await writer.writeRows(b, { dedupToken: `bench-day-${h}` });
    }
    await rec.flushCheckpoints?.();
    const store = new LogStore(ch, database);
    const [dayLog] = await store.logs(dayTenant);
    const leaves = (await store.head(dayLog!)).size;
    const bundle = await buildBundle(ch, store, database, dayTenant, callIds);
    const proofBytes = bundle.calls.map((c) => c.inclusion_proof.length * 32);
    const entryBytes = bundle.calls.map((c) => Buffer.byteLength(JSON.stringify(c)));
    const checkpointBytes = Buffer.byteLength(Object.values(bundle.checkpoints)[0] ?? '');
    const json = JSON.parse(JSON.stringify(bundle));
    const perCall: number[] = [];
    for (let r = 0; r < 9; r++) {
      const t0 = performance.now();
      const v = verifyBundle(json, verifiers);
      perCall.push(((performance.now() - t0) * 1000) / bundle.calls.length);
      if (!v.ok) throw new Error(`the bundle did not verify: ${JSON.stringify(v.failures)}`);
    }
    console.log(
      `proofs: ${bundle.calls.length} calls in a log of ${leaves} leaves: inclusion proof ${spread(proofBytes).value} bytes (raw), bundle entry ${spread(entryBytes).value} bytes, checkpoint note ${checkpointBytes} bytes; verifyBundle ${spread(perCall).value.toFixed(1)} us per call`,
    );
    figures.push(
      { name: `inclusion proof per call (raw hashes, log of ${leaves} leaves)`, ...spread(proofBytes), unit: 'bytes' },
      { name: 'bundle entry per call (JSON: canonical row text + base64 proof)', ...spread(entryBytes), unit: 'bytes' },
      { name: 'verifyBundle per call (signature + inclusion proof)', ...spread(perCall), unit: 'us' },
    );

    // ---- 3. verify a day: the row walk (before) vs checkpoint consistency (after), alternated
    const walk: number[] = [];
    const log: number[] = [];
    const range = { tenant: dayTenant, from: new Date(dayStart), to: new Date(now + HOUR), verifiers };
    for (let r = 0; r < 3; r++) {
      for (const rows of r % 2 === 0 ? [true, false] : [false, true]) {
        const t0 = performance.now();
        const report = await verifyRange(ch, schema, { ...range, rows });
        (rows ? walk : log).push(performance.now() - t0);
        if (!report.ok) throw new Error(`verify failed: ${JSON.stringify(report.issues.slice(0, 3))}`);
      }
    }
    const walkS = spread(walk);
    const logS = spread(log);
    console.log(
      `verify a day (${DAY_BATCHES} hours, ${dayRows} rows, ${leaves} leaves): row walk ${Math.round(walkS.value)} ms, checkpoints only ${Math.round(logS.value)} ms (${(walkS.value / logS.value).toFixed(1)}x faster)`,
    );
    figures.push({
      name: `verify a day (${dayRows} rows) with checkpoint consistency only (--no-rows)`,
      ...logS,
      unit: 'ms',
      baseline: { name: 'the hourly row walk (verify, default)', value: walkS.value },
      ratio: logS.value / walkS.value,
    });
  } finally {
    await dropDatabase(ch, database);
    await ch.close();
  }
  printBenchReport({ bench: 'audit-log', figures });
}

await main();
