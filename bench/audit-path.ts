/**
 * The audit path's cost per row, step by step, as the ingest pays it after each stored batch (issue 38): the same
 * batches (the Native blocks the column path assembles from anchor-shaped tool spans: 512 per request, one tenant,
 * one hour, with their parts' extents) through each step of
 * `record`, on this machine's real ClickHouse. CPU of this process per row (process.cpuUsage around each step; for
 * the insert also ClickHouse's own CPU per row, from /proc), medians over the rounds.
 *
 * Steps (the Merkle log as tiles, audit/README.md):
 *   canonical bytes  the native walk writing each row's canonical bytes (version 2), no hash (hashRows textOnly)
 *   entry hash       SHA-256 of those bytes, per row (hashRows - the bytes alone)
 *   runs             the rows grouped into runs of one (tenant, hour, table), ids copied from the block
 *                    (runsFromBlocks - hashRows)
 *   chain            nothing: the digest chain is no longer written (the log is the record)
 *   leaf hash        SHA-256(0x00 || entry hash), the whole batch in one native call
 *   tree nodes       the roots of the tiles the batch completes (255 node hashes per 256 leaves, native)
 *   tile storage     the tiles and entries rows of the batch, one Native insert into audit_log_tiles
 *   checkpoint       sign, store (no witness); per row at one checkpoint per batch (the default cadence signs at
 *                    most one per batch: every 10,000 rows or 60 s)
 * Then `record` as shipped, end to end (a signing key), for comparison with the sum of the steps. And each batch's
 * `runsFromBlocks` again with its columns walked (the column path's extents left out): what the extents save.
 *
 * `--before <commit>` runs that commit's own bench/audit-path.ts (its steps: the chain, one row per node) in a git
 * worktree, one round before each of this checkout's rounds, and prints both: the same run, alternated.
 *
 *   flock /tmp/bench.lock node --import tsx bench/audit-path.ts [--batches 8] [--rows 20480] [--rounds 5]
 *       [--before 7e47d72]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CANONICAL_VERSION, TOOL_CALLS_SPEC } from '../audit/canonical.ts';
import { checkpointText } from '../audit/log/checkpoint.ts';
import { defaultLogConfig } from '../audit/log/config.ts';
import { leafHashes } from '../audit/log/hashes.ts';
import { generateNoteKey, parseSigner, signNote } from '../audit/log/note.ts';
import { type EntriesRow, LogStore } from '../audit/log/store.ts';
import { TileEdge } from '../audit/log/tiles.ts';
import { bind, columnsOf, descriptorsOf } from '../audit/native-block.ts';
import { END, START } from '../audit/native-canonical.ts';
import { nativeRowHasher } from '../audit/native-core/index.ts';
import { runsFromBlocks, type StoredBlocks } from '../audit/native-entries.ts';
import { createDigestRecorder } from '../audit/recorder.ts';
import { assembleBlocks, ColumnArena, type ColumnsMark } from '../ingest/columns/arena.ts';
import { decodeToColumns } from '../ingest/columns/decode.ts';
import { type ClickHouseClient, clickHouseOf } from '../platform/clickhouse.ts';
import { DEFAULT_RETENTION_DAYS } from '../schema/config.ts';
import { migrateUp } from '../schema/migrations.ts';
import { loadServicesConfig } from '../services/config.ts';
import { syntheticMessage } from '../testkit/ingest.ts';
import { BENCH_JSON_PREFIX, type BenchFigure, printBenchReport, spread } from './support/report.ts';
import { localClickHouseCpu } from './support/server-cpu.ts';
import { beforeWorktree } from './support/worktree.ts';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    batches: { type: 'string', default: '8' },
    rows: { type: 'string', default: '20480' },
    rounds: { type: 'string', default: '5' },
    before: { type: 'string' },
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

/**
 * One batch as the ingest stores it: REQUESTS requests of 512 tool spans (+1 parent span each), one hour, through
 * the column path (wire bytes -> arena -> Native blocks, with the extents of their parts).
 */
function batchBlocks(tenant: string, seed: number, startMs: number): StoredBlocks {
  const arena = new ColumnArena();
  const marks: ColumnsMark[] = [];
  for (let m = 0; m < REQUESTS; m++) {
    const bytes = syntheticMessage({ tenant, toolSpans: SPANS_PER_REQUEST, seed: seed * 1000 + m, startMs });
    const mark = decodeToColumns(arena, bytes);
    if (!mark) throw new Error('a synthetic request left the column path');
    marks.push(mark);
  }
  return assembleBlocks(arena, marks);
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

/** The native hasher over the tool_calls block (the rows' bytes only, or bytes and hash). */
function hashToolCalls(b: StoredBlocks, textOnly: boolean): void {
  if (!nativeRowHasher) throw new Error('the native row hasher is not built (npm run build:native)');
  const body = b.toolCalls.body;
  // Found as runsFromBlocks finds them (from the column path's extents), so that `runs` is the grouping alone.
  const { rows, byName } = columnsOf(body, { offsets: false, native: nativeRowHasher, parts: b.toolCalls.parts });
  const desc = descriptorsOf(bind(TOOL_CALLS_SPEC, byName));
  const out = Buffer.allocUnsafe(32 * rows);
  if (nativeRowHasher.hashRows(body, desc, rows, Buffer.from('tool_calls\n'), START, END, out, textOnly) !== 0)
    throw new Error('the native hasher declined the block');
}

const STEPS = [
  'canonical bytes',
  'entry hash',
  'runs',
  'chain',
  'leaf hash',
  'tree nodes',
  'tile storage',
  'checkpoint',
] as const;
type Step = (typeof STEPS)[number];

interface Round {
  steps: Record<Step, number>;
  /** runsFromBlocks per row with the column path's extents, and with the columns walked (parts left out). */
  runsWithExtents: number;
  runsWalked: number;
  storageServer: number;
  whole: number;
  wholeServer: number;
  wholeRowsPerSec: number;
}

async function round(
  ch: ClickHouseClient,
  store: LogStore,
  database: string,
  r: number,
  startMs: number,
): Promise<Round> {
  const tenant = `bench-${r}`;
  const log = `steps-${r}`;
  const batches = Array.from({ length: BATCHES }, (_, i) => batchBlocks(tenant, r * 100 + i, startMs));
  const rows = batches.reduce((n, b) => n + rowsOf(b), 0);
  const us: Record<Step, number> = Object.fromEntries(STEPS.map((s) => [s, 0])) as never;
  let storageServer = 0;
  let withExtents = 0;
  let walked = 0;
  const edge = new TileEdge();
  for (const [i, b] of batches.entries()) {
    const text = await cpu(() => hashToolCalls(b, true));
    const hashed = await cpu(() => hashToolCalls(b, false));
    let runs = runsFromBlocks(b);
    const all = await cpu(() => {
      runs = runsFromBlocks(b);
    });
    // The same batch with its columns walked, right after: the extents' share of `runs` and the hasher's steps.
    const bare = { ...b, toolCalls: { ...b.toolCalls, parts: undefined }, spans: { ...b.spans, parts: undefined } };
    walked += (await cpu(() => runsFromBlocks(bare))).us;
    withExtents += all.us;
    us['canonical bytes'] += text.us;
    us['entry hash'] += hashed.us - text.us;
    us.runs += all.us - hashed.us;
    const list = runs.get(tenant)!;
    const entries = Buffer.concat(list.map((x) => x.entries));
    let leaves: Buffer = entries;
    us['leaf hash'] += (
      await cpu(() => {
        leaves = leafHashes(entries);
      })
    ).us;
    const first = edge.size;
    let tiles: ReturnType<TileEdge['append']> = [];
    us['tree nodes'] += (
      await cpu(() => {
        tiles = edge.append(leaves);
      })
    ).us;
    let at = first;
    const rowsOfBatch: EntriesRow[] = list.map((x) => {
      const e = {
        first: at,
        count: x.count,
        table: x.table,
        ids: x.ids,
        entries: x.entries,
        hour: x.hour,
        batchId: `b${i}`,
        recordedMs: Date.now(),
        backfill: false,
        canonicalVersion: CANONICAL_VERSION,
      };
      at += x.count;
      return e;
    });
    const stored = await cpu(() => store.append([{ id: { tenant, log }, tiles, entries: rowsOfBatch }]));
    us['tile storage'] += stored.us;
    storageServer += stored.serverUs ?? 0;
    const root = edge.root();
    us.checkpoint += (
      await cpu(async () => {
        const note = signNote(
          checkpointText({ origin: `tooltrail/${tenant}/${log}`, size: edge.size, root, extensions: [] }),
          signer,
        );
        await store.storeCheckpoint({
          tenant,
          log,
          size: edge.size,
          root_hash: root.toString('hex'),
          key_name: signer.name,
          key_id: signer.keyId,
          note,
          publishedMs: Date.now(),
        });
      })
    ).us;
  }
  // `record` as shipped, end to end, on batches of another tenant.
  const rec = createDigestRecorder(ch, {
    database,
    chain: `whole-${r}`,
    log: { ...defaultLogConfig(), signer, everyRows: 10_000, everySeconds: 60 },
  });
  const wholeBatches = Array.from({ length: BATCHES }, (_, i) =>
    batchBlocks(`whole-${r}`, 50_000 + r * 100 + i, startMs),
  );
  const t0 = performance.now();
  const w = await cpu(async () => {
    for (const [i, b] of wholeBatches.entries()) await rec.record(b, { batchId: `whole-${r}-${i}` });
  });
  return {
    steps: Object.fromEntries(STEPS.map((s) => [s, us[s] / rows])) as Record<Step, number>,
    storageServer: storageServer / rows,
    runsWithExtents: withExtents / rows,
    runsWalked: walked / rows,
    whole: w.us / rows,
    wholeServer: (w.serverUs ?? 0) / rows,
    wholeRowsPerSec: rows / ((performance.now() - t0) / 1000),
  };
}

/** One round of the `--before` commit's own bench, in its worktree: its figures by name. */
function beforeRound(dir: string): Map<string, number> {
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'bench/audit-path.ts',
      '--rounds',
      '1',
      '--batches',
      String(BATCHES),
      '--rows',
      String(args.rows),
    ],
    // The services' home as this process resolved it (the default is relative to the working directory).
    { cwd: dir, env: { ...process.env, TOOLTRAIL_HOME: svc.home }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const line = r.stdout.split('\n').find((l) => l.startsWith(BENCH_JSON_PREFIX));
  if (r.status !== 0 || !line) throw new Error(`the before bench failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const report = JSON.parse(line.slice(BENCH_JSON_PREFIX.length)) as { figures: BenchFigure[] };
  return new Map(report.figures.map((f) => [f.name, f.value]));
}

async function main(): Promise<void> {
  const ch = clickHouseOf(svc.clickhouse, { requestTimeoutMs: 120_000 });
  const database = `tt_bench_audit_path_${process.pid}`;
  await migrateUp(ch, { database, retentionDays: DEFAULT_RETENTION_DAYS });
  const store = new LogStore(ch, database);
  const startMs = Math.floor(Date.now() / HOUR) * HOUR - HOUR + 60_000;
  const rounds: Round[] = [];
  const before: Map<string, number>[] = [];
  const worktree = args.before ? beforeWorktree(ROOT, args.before, join(ROOT, 'node_modules')) : undefined;
  try {
    // The before commit's native hasher, built in its worktree (build/ is not in git).
    if (worktree) execFileSync(process.execPath, ['scripts/build-native.js'], { cwd: worktree.dir, stdio: 'ignore' });
    for (let r = 0; r < ROUNDS; r++) {
      if (worktree) before.push(beforeRound(worktree.dir));
      rounds.push(await round(ch, store, database, r, startMs));
      const x = rounds.at(-1)!;
      console.log(
        `round ${r + 1}: ${STEPS.map((s) => `${s} ${x.steps[s].toFixed(2)}`).join(', ')} us/row; record end to end ${x.whole.toFixed(2)} us/row (+ ClickHouse ${x.wholeServer.toFixed(2)})` +
          (worktree
            ? `; before (${worktree.commit}) record ${before.at(-1)!.get('record per row, end to end (this process)')?.toFixed(2)} us/row`
            : ''),
      );
    }
  } finally {
    worktree?.remove();
    await ch.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await ch.close();
  }
  const med = (xs: number[]) => spread(xs).value;
  const step = (s: Step) => rounds.map((x) => x.steps[s]);
  const sum = STEPS.reduce((n, s) => n + med(step(s)), 0);
  const rowsPerBatch = REQUESTS * (SPANS_PER_REQUEST + 1);
  console.log(
    `\naudit path per row (median of ${ROUNDS} rounds of ${BATCHES} batches of ${rowsPerBatch} rows), this process's CPU:`,
  );
  // A step a commit names otherwise (or lacks) counts for nothing: older commits wrote the canonical text.
  const beforeOf = (name: string) =>
    before.length > 0 && before.every((b) => b.has(name)) ? med(before.map((b) => b.get(name)!)) : undefined;
  const beforeName: Record<Step, string[]> = {
    'canonical bytes': ['canonical bytes', 'canonical text'],
    'entry hash': ['entry hash'],
    runs: ['runs', 'entry objects'],
    chain: ['chain', 'chain storage'],
    'leaf hash': ['leaf hash'],
    'tree nodes': ['tree nodes'],
    'tile storage': ['tile storage', 'node storage'],
    checkpoint: ['checkpoint'],
  };
  const beforeStep = (s: Step) =>
    before.length > 0
      ? beforeName[s].reduce((n, name) => n + (beforeOf(`audit path per row: ${name}`) ?? 0), 0)
      : undefined;
  for (const s of STEPS) {
    const b = beforeStep(s);
    const extra =
      s === 'tile storage' ? `  (+ ClickHouse ${med(rounds.map((x) => x.storageServer)).toFixed(2)} us/row)` : '';
    console.log(
      `  ${s.padEnd(16)} ${med(step(s)).toFixed(2).padStart(6)} us/row  ${((100 * med(step(s))) / sum).toFixed(0).padStart(3)}%${extra}` +
        (b !== undefined ? `   before: ${b.toFixed(2)} us/row (${beforeName[s].join(' + ')})` : ''),
    );
  }
  const beforeSum = beforeOf('audit path per row: sum of the steps');
  const beforeWhole = beforeOf('record per row, end to end (this process)');
  const beforeWholeServer = beforeOf('record per row, end to end (ClickHouse server)');
  const whole = med(rounds.map((x) => x.whole));
  const wholeServer = med(rounds.map((x) => x.wholeServer));
  console.log(
    `  ${'sum of steps'.padEnd(16)} ${sum.toFixed(2).padStart(6)} us/row${beforeSum !== undefined ? `   before: ${beforeSum.toFixed(2)} us/row` : ''}`,
  );
  console.log(
    `  record end to end ${whole.toFixed(2)} us/row (+ ClickHouse ${wholeServer.toFixed(2)} us/row), ${Math.round(med(rounds.map((x) => x.wholeRowsPerSec)))} rows/s` +
      (beforeWhole !== undefined
        ? `; before ${beforeWhole.toFixed(2)} us/row (+ ClickHouse ${beforeWholeServer?.toFixed(2)}): ${(whole / beforeWhole).toFixed(3)}x`
        : ''),
  );
  const extents = med(rounds.map((x) => x.runsWithExtents));
  const walkedMed = med(rounds.map((x) => x.runsWalked));
  console.log(
    `  runsFromBlocks ${extents.toFixed(2)} us/row with the column path's extents, ${walkedMed.toFixed(2)} walking the columns: ${(extents / walkedMed).toFixed(3)}x`,
  );
  const figures: BenchFigure[] = STEPS.map((s) => {
    const b = beforeStep(s);
    return {
      name: `audit path per row: ${s}`,
      ...spread(step(s)),
      unit: 'us/row',
      ...(b !== undefined && b > 0
        ? { baseline: { name: `before (${args.before})`, value: b }, ratio: med(step(s)) / b }
        : {}),
    };
  });
  figures.push(
    {
      name: 'audit path per row: tile storage, ClickHouse server CPU',
      ...spread(rounds.map((x) => x.storageServer)),
      unit: 'us/row',
    },
    { name: 'audit path per row: sum of the steps', value: sum, unit: 'us/row' },
    {
      name: "runsFromBlocks per row, with the column path's extents",
      ...spread(rounds.map((x) => x.runsWithExtents)),
      unit: 'us/row',
      baseline: { name: 'the same blocks, columns walked (same run)', value: walkedMed },
      ratio: extents / walkedMed,
    },
    {
      name: 'record per row, end to end (this process)',
      ...spread(rounds.map((x) => x.whole)),
      unit: 'us/row',
      ...(beforeWhole !== undefined
        ? { baseline: { name: `before (${args.before})`, value: beforeWhole }, ratio: whole / beforeWhole }
        : {}),
    },
    {
      name: 'record per row, end to end (ClickHouse server)',
      ...spread(rounds.map((x) => x.wholeServer)),
      unit: 'us/row',
      ...(beforeWholeServer !== undefined
        ? {
            baseline: { name: `before (${args.before})`, value: beforeWholeServer },
            ratio: wholeServer / beforeWholeServer,
          }
        : {}),
    },
  );
  printBenchReport({ bench: 'audit-path', figures });
}

await main();
