/**
 * The audit path's cost per row, step by step, as the ingest pays it after each stored batch (issue 38): the same
 * batches (Native blocks of anchor-shaped tool spans: 512 per request, one tenant, one hour) through each step of
 * `record`, on this machine's real ClickHouse. CPU of this process per row (process.cpuUsage around each step;
 * for the inserts also ClickHouse's own CPU per row, from /proc), medians over the rounds.
 *
 * Steps (the digest chain and the Merkle log with its nodes stored one row each, audit/README.md):
 *   canonical text   the native walk writing each row's canonical text, no hash (hashRows textOnly)
 *   entry hash       SHA-256 of that text, per row (hashRows - the text alone)
 *   entry objects    the (table, id, hex hash) entries per tenant and hour (entriesFromBlocks - hashRows)
 *   chain            sort the entries, rows_hash, digest_hash of each record (sealRecord)
 *   chain storage    the digest records inserted into row_digests (JSONEachRow, three arrays of one entry per row)
 *   leaf hash        SHA-256(0x00 || entry hash) per entry
 *   tree nodes       the nodes each leaf completes (Frontier.append, less the leaf hash)
 *   node storage     every leaf and node as a row of audit_log_nodes (Native insert)
 *   checkpoint       sign, store (no witness); per row at one checkpoint per batch (the default cadence signs at
 *                    most one per batch: every 10,000 rows or 60 s)
 * Then `record` as shipped, end to end (log on, a signing key), for comparison with the sum of the steps.
 *
 *   flock /tmp/bench.lock node --import tsx bench/audit-path.ts [--batches 8] [--rows 20480] [--rounds 5]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { TOOL_CALLS_SPEC } from '../audit/canonical.ts';
import { sealRecord } from '../audit/chain.ts';
import { checkpointText } from '../audit/log/checkpoint.ts';
import { defaultLogConfig } from '../audit/log/config.ts';
import { Frontier, type StoredNode } from '../audit/log/frontier.ts';
import { generateNoteKey, parseSigner, signNote } from '../audit/log/note.ts';
import { leafHash } from '../audit/log/rfc6962.ts';
import { type LeafRow, LogStore } from '../audit/log/store.ts';
import { bind, columnsOf } from '../audit/native-block.ts';
import { END, START } from '../audit/native-canonical.ts';
import { nativeRowHasher } from '../audit/native-core/index.ts';
import { entriesFromBlocks, type StoredBlocks } from '../audit/native-entries.ts';
import { createDigestRecorder } from '../audit/recorder.ts';
import { emptyFlattenResult, flattenInto } from '../ingest/flatten.ts';
import { encodeRows } from '../ingest/writer.ts';
import { clickHouseOf } from '../platform/clickhouse.ts';
import { decodeExportTraceServiceRequest } from '../platform/otlp/index.ts';
import { DEFAULT_RETENTION_DAYS } from '../schema/config.ts';
import { migrateUp } from '../schema/migrations.ts';
import { loadServicesConfig } from '../services/config.ts';
import { syntheticMessage } from '../testkit/ingest.ts';
import { type BenchFigure, printBenchReport, spread } from './support/report.ts';
import { localClickHouseCpu } from './support/server-cpu.ts';

const { values: args } = parseArgs({
  options: {
    batches: { type: 'string', default: '8' },
    rows: { type: 'string', default: '20480' },
    rounds: { type: 'string', default: '5' },
  },
});
const BATCHES = Number(args.batches);
const SPANS_PER_REQUEST = 512;
const REQUESTS = Math.max(1, Math.round(Number(args.rows) / SPANS_PER_REQUEST));
const ROUNDS = Number(args.rounds);
const HOUR = 3_600_000;

const svc = loadServicesConfig();
const serverCpuMs = localClickHouseCpu(svc.home) ?? (() => undefined);
const key = generateNoteKey('bench.audit-path');
const signer = parseSigner(key.signer);

/** One batch as the ingest stores it: REQUESTS requests of 512 tool spans (+1 parent span each), one hour. */
function batchBlocks(tenant: string, seed: number, startMs: number): StoredBlocks {
  const out = emptyFlattenResult();
  for (let m = 0; m < REQUESTS; m++)
    flattenInto(
      out,
      decodeExportTraceServiceRequest(
        syntheticMessage({ tenant, toolSpans: SPANS_PER_REQUEST, seed: seed * 1000 + m, startMs }),
      ),
    );
  return encodeRows(out);
}
const rowsOf = (b: StoredBlocks) => b.toolCalls.rows + b.warnings.rows + b.spans.rows;

/** CPU microseconds of this process spent in `f` (awaited), and ClickHouse's over the same time. */
async function cpu(f: () => unknown): Promise<{ us: number; serverUs: number | undefined }> {
  const s0 = serverCpuMs();
  const c0 = process.cpuUsage();
  await f();
  const c = process.cpuUsage(c0);
  const s1 = serverCpuMs();
  return { us: c.user + c.system, serverUs: s0 === undefined || s1 === undefined ? undefined : (s1 - s0) * 1000 };
}

/** The native hasher over the tool_calls block (text only, or text and hash). */
function hashToolCalls(b: StoredBlocks, textOnly: boolean): void {
  if (!nativeRowHasher) throw new Error('the native row hasher is not built (npm run build:native)');
  const body = b.toolCalls.body;
  const { rows, byName } = columnsOf(body);
  const cols = bind(TOOL_CALLS_SPEC, byName);
  const desc = new Float64Array(5 * cols.length);
  for (let i = 0; i < cols.length; i++)
    desc.set([cols[i]!.layout, cols[i]!.a, cols[i]!.b, cols[i]!.c, cols[i]!.d], 5 * i);
  const out = Buffer.allocUnsafe(64 * rows);
  if (nativeRowHasher.hashRows(body, desc, rows, Buffer.from('tool_calls\n'), START, END, out, textOnly) !== 0)
    throw new Error('the native hasher declined the block');
}

const STEPS = [
  'canonical text',
  'entry hash',
  'entry objects',
  'chain',
  'chain storage',
  'leaf hash',
  'tree nodes',
  'node storage',
  'checkpoint',
] as const;
type Step = (typeof STEPS)[number];

async function main(): Promise<void> {
  const ch = clickHouseOf(svc.clickhouse, { requestTimeoutMs: 120_000 });
  const database = `tt_bench_audit_path_${process.pid}`;
  await migrateUp(ch, { database, retentionDays: DEFAULT_RETENTION_DAYS });
  const store = new LogStore(ch, database);
  const startMs = Math.floor(Date.now() / HOUR) * HOUR - HOUR + 60_000;
  const perRow: Record<Step, number[]> = Object.fromEntries(STEPS.map((s) => [s, []])) as never;
  const server: Record<'chain storage' | 'node storage', number[]> = { 'chain storage': [], 'node storage': [] };
  const whole: number[] = [];
  const wholeServer: number[] = [];
  const wholeRowsPerSec: number[] = [];
  let rows = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const tenant = `bench-${round}`;
      const log = `steps-${round}`;
      const batches = Array.from({ length: BATCHES }, (_, i) => batchBlocks(tenant, round * 100 + i, startMs));
      rows = batches.reduce((n, b) => n + rowsOf(b), 0);
      const us: Record<Step, number> = Object.fromEntries(STEPS.map((s) => [s, 0])) as never;
      const serverUs = { 'chain storage': 0, 'node storage': 0 };
      const frontier = new Frontier();
      let head = { seq: 0, hash: '' };
      for (const [i, b] of batches.entries()) {
        const text = await cpu(() => hashToolCalls(b, true));
        const hashed = await cpu(() => hashToolCalls(b, false));
        let entries = entriesFromBlocks(b);
        const all = await cpu(() => {
          entries = entriesFromBlocks(b);
        });
        us['canonical text'] += text.us;
        us['entry hash'] += hashed.us - text.us;
        us['entry objects'] += all.us - hashed.us;
        const lists = [...entries.get(tenant)!.entries()].sort((x, y) => x[0] - y[0]);
        const records: ReturnType<typeof sealRecord>[] = [];
        us.chain += (
          await cpu(() => {
            for (const [hour, list] of lists) {
              const r = sealRecord(
                {
                  tenant,
                  chain: log,
                  seq: head.seq + 1,
                  hour,
                  batch_id: `b${i}`,
                  recorded_at_ms: Date.now(),
                  backfill: false,
                  canonical_version: 1,
                  previous_hash: head.hash,
                },
                list,
              );
              head = { seq: r.seq, hash: r.digest_hash };
              records.push(r);
            }
          })
        ).us;
        // The recorder's insert of its records, as recorder.ts writes them.
        const stored = await cpu(() =>
          ch.insert({
            table: `${database}.row_digests`,
            format: 'JSONEachRow',
            values: records.map((r) => ({
              tenant: r.tenant,
              chain: r.chain,
              seq: r.seq,
              hour: new Date(r.hour * 1000).toISOString().slice(0, 19).replace('T', ' '),
              batch_id: r.batch_id,
              recorded_at: new Date(r.recorded_at_ms).toISOString().slice(0, 23).replace('T', ' '),
              backfill: r.backfill,
              canonical_version: r.canonical_version,
              row_count: r.row_count,
              row_tables: r.row_tables,
              row_ids: r.row_ids,
              row_hashes: r.row_hashes,
              rows_hash: r.rows_hash,
              previous_hash: r.previous_hash,
              digest_hash: r.digest_hash,
              signature: r.signature,
              key_id: r.key_id,
            })),
          }),
        );
        us['chain storage'] += stored.us;
        serverUs['chain storage'] += stored.serverUs ?? 0;
        const hashes = records.flatMap((r) => r.row_hashes);
        const leaves = await cpu(() => {
          for (const h of hashes) leafHash(Buffer.from(h, 'hex'));
        });
        us['leaf hash'] += leaves.us;
        // The appender's growth of the tree (audit/log/appender.ts `grow`): leaves with their row, every node.
        const nodes: (LeafRow | StoredNode)[] = [];
        const grown = await cpu(() => {
          for (const r of records)
            for (let k = 0; k < r.row_hashes.length; k++) {
              const added = frontier.append(Buffer.from(r.row_hashes[k]!, 'hex'));
              const leaf = added[0]!;
              nodes.push({
                ...leaf,
                table: r.row_tables[k]!,
                rowId: r.row_ids[k]!,
                entryHash: r.row_hashes[k]!,
                hour: r.hour,
                batchId: r.batch_id,
              });
              for (let n = 1; n < added.length; n++) nodes.push(added[n]!);
            }
        });
        us['tree nodes'] += grown.us - leaves.us;
        const appended = await cpu(() => store.appendTrees([{ id: { tenant, log }, nodes }]));
        us['node storage'] += appended.us;
        serverUs['node storage'] += appended.serverUs ?? 0;
        const root = frontier.root()!;
        us.checkpoint += (
          await cpu(async () => {
            const note = signNote(
              checkpointText({ origin: `tooltrail/${tenant}/${log}`, size: frontier.size, root, extensions: [] }),
              signer,
            );
            await store.storeCheckpoint({
              tenant,
              log,
              size: frontier.size,
              root_hash: root.toString('hex'),
              key_name: signer.name,
              key_id: signer.keyId,
              note,
              publishedMs: Date.now(),
            });
          })
        ).us;
      }
      for (const s of STEPS) perRow[s].push(us[s] / rows);
      for (const s of ['chain storage', 'node storage'] as const) server[s].push(serverUs[s] / rows);

      // `record` as shipped, end to end, on the same batches under another tenant.
      const rec = createDigestRecorder(ch, {
        database,
        chain: `whole-${round}`,
        log: { ...defaultLogConfig(), signer, everyRows: 10_000, everySeconds: 60 },
      });
      const wholeBatches = Array.from({ length: BATCHES }, (_, i) =>
        batchBlocks(`whole-${round}`, 50_000 + round * 100 + i, startMs),
      );
      const t0 = performance.now();
      const w = await cpu(async () => {
        for (const [i, b] of wholeBatches.entries()) await rec.record(b, { batchId: `whole-${round}-${i}` });
      });
      wholeRowsPerSec.push(rows / ((performance.now() - t0) / 1000));
      whole.push(w.us / rows);
      wholeServer.push((w.serverUs ?? 0) / rows);
      console.log(
        `round ${round + 1}: ${STEPS.map((s) => `${s} ${perRow[s].at(-1)!.toFixed(2)}`).join(', ')} us/row; record end to end ${whole.at(-1)!.toFixed(2)} us/row (+ ClickHouse ${wholeServer.at(-1)!.toFixed(2)})`,
      );
    }
  } finally {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await ch.close();
  }
  const med = (xs: number[]) => spread(xs).value;
  const sum = STEPS.reduce((n, s) => n + med(perRow[s]), 0);
  console.log(
    `\naudit path per row (median of ${ROUNDS} rounds of ${BATCHES} batches of ${rows / BATCHES} rows), this process's CPU:`,
  );
  for (const s of STEPS) {
    const extra = s in server ? `  (+ ClickHouse ${med(server[s as keyof typeof server]).toFixed(2)} us/row)` : '';
    console.log(
      `  ${s.padEnd(16)} ${med(perRow[s]).toFixed(2).padStart(6)} us/row  ${((100 * med(perRow[s])) / sum).toFixed(0).padStart(3)}%${extra}`,
    );
  }
  console.log(`  ${'sum of steps'.padEnd(16)} ${sum.toFixed(2).padStart(6)} us/row`);
  console.log(
    `  record end to end ${med(whole).toFixed(2)} us/row (+ ClickHouse ${med(wholeServer).toFixed(2)} us/row), ${Math.round(med(wholeRowsPerSec))} rows/s`,
  );
  const figures: BenchFigure[] = STEPS.map((s) => ({
    name: `audit path per row: ${s}`,
    ...spread(perRow[s]),
    unit: 'us/row',
  }));
  for (const s of ['chain storage', 'node storage'] as const)
    figures.push({ name: `audit path per row: ${s}, ClickHouse server CPU`, ...spread(server[s]), unit: 'us/row' });
  figures.push(
    { name: 'audit path per row: sum of the steps', value: sum, unit: 'us/row' },
    { name: 'record per row, end to end (this process)', ...spread(whole), unit: 'us/row' },
    { name: 'record per row, end to end (ClickHouse server)', ...spread(wholeServer), unit: 'us/row' },
  );
  printBenchReport({ bench: 'audit-path', figures });
}

await main();
