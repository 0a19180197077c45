/**
 * The OTLP general path (platform/otlp/protobuf.ts: what both stages take when the streaming reader declines a
 * body) before and after a change: the collector's checked decoding, the ingest's decoding plus flatten, and
 * re-encoding, in CPU microseconds per span. "Before" is a git worktree of `--before` run with
 * `--before-node-modules` (default: this checkout's; the alias-era commits need one that holds
 * `otlp-transformer-216`, e.g. a checkout of that commit after `npm ci`).
 *
 * Each round is one fresh process that loads both sides (the import order turned each round) and decodes the same
 * requests (written by this checkout). Per stage, both sides first run `--warmup` passes each, alternated, so the
 * codecs of both are optimised before any pass is timed; then `--passes` timed passes per side, alternated pass by
 * pass (ABBA), so a change in the machine's load falls on both sides alike. A pass is every request once. No GC is
 * forced between passes (a full GC shrinks the young generation and doubled the time of the pass after it): each
 * side pays the scavenges of its own garbage. Medians over every timed pass of every round, after/before.
 *
 *   node --import tsx bench/otlp-general-path.ts [--before 02477d8] [--before-node-modules DIR] [--rounds 3]
 *       [--requests 10] [--spans 512] [--warmup 10] [--passes 20]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { printBenchReport, spread } from './support/report.ts';
import { beforeWorktree } from './support/worktree.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = 1.05;

const { values: args } = parseArgs({
  options: {
    before: { type: 'string', default: '02477d8' },
    'before-node-modules': { type: 'string', default: join(ROOT, 'node_modules') },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '10' },
    spans: { type: 'string', default: '512' },
    warmup: { type: 'string', default: '10' },
    passes: { type: 'string', default: '20' },
    child: { type: 'string' },
  },
});

const SIDES = ['before', 'after'] as const;
type Side = (typeof SIDES)[number];
const STAGES = ['collector decode', 'ingest decode+flatten', 'encode'] as const;
type Stage = (typeof STAGES)[number];
/** Per stage, per side: CPU µs per span of each timed pass. */
type Samples = Record<Stage, Record<Side, number[]>>;

interface ChildTask {
  roots: Record<Side, string>;
  /** Which side is imported (and runs) first. */
  first: Side;
  payloads: string;
  warmup: number;
  passes: number;
}

interface PayloadFile {
  spans: number;
  bodies: string[];
}

type Run = (body: Buffer, k: number) => void;

/** Summed from what the collector reads of each span and printed, so no decoding can be optimised away. */
let seen = 0;

interface SideCodec {
  stage(stage: Stage, bodies: readonly Buffer[]): Run;
}

/** One side's general path, imported from `root`. */
async function loadSide(root: string): Promise<SideCodec> {
  const otlp = await import(pathToFileURL(join(root, 'platform/otlp/index.ts')).href);
  const { flatten } = await import(pathToFileURL(join(root, 'ingest/flatten.ts')).href);
  return {
    stage(stage, bodies) {
      if (stage === 'collector decode') {
        return (b) => {
          const checked = otlp.decodeExportTraceServiceRequestChecked(b);
          for (const rs of checked.request.resourceSpans)
            for (const ss of rs.scopeSpans)
              for (const s of ss.spans) seen += checked.invalidUtf8(s) + (checked.encodedSpan(s)?.length ?? 0);
        };
      }
      if (stage === 'ingest decode+flatten') return (b) => void flatten(otlp.decodeExportTraceServiceRequest(b));
      // Decoded by this side, for this stage only (a tree kept alive through the other stages would be theirs to mark).
      const decoded = bodies.map((b) => otlp.decodeExportTraceServiceRequest(b));
      return (_b, k) => void otlp.encodeExportTraceServiceRequest(decoded[k]);
    },
  };
}

/** CPU microseconds per span of one pass of `run` over every body. */
function pass(bodies: readonly Buffer[], spans: number, run: Run): number {
  const start = process.cpuUsage();
  for (let k = 0; k < bodies.length; k++) run(bodies[k] as Buffer, k);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / spans;
}

/** One round: both sides in this process, alternated pass by pass; prints the samples as JSON. */
async function child(task: ChildTask): Promise<void> {
  const file = JSON.parse(readFileSync(task.payloads, 'utf8')) as PayloadFile;
  const bodies = file.bodies.map((b) => Buffer.from(b, 'base64'));
  const order: readonly Side[] = task.first === 'before' ? SIDES : ['after', 'before'];
  const codecs = {} as Record<Side, SideCodec>;
  for (const side of order) codecs[side] = await loadSide(task.roots[side]);
  const samples = {} as Samples;
  for (const stage of STAGES) {
    const runs = { before: codecs.before.stage(stage, bodies), after: codecs.after.stage(stage, bodies) };
    for (let w = 0; w < task.warmup; w++) for (const side of order) pass(bodies, file.spans, runs[side]);
    const timed: Record<Side, number[]> = { before: [], after: [] };
    for (let p = 0; p < task.passes; p++) {
      for (const side of p % 2 === 0 ? order : [...order].reverse())
        timed[side].push(pass(bodies, file.spans, runs[side]));
    }
    samples[stage] = timed;
  }
  console.log(JSON.stringify({ samples, seen }));
}

async function main(): Promise<void> {
  const { syntheticMessage } = await import('../testkit/ingest.ts');
  const requests = Number(args.requests);
  const spansPerRequest = Number(args.spans);
  const bodies: Buffer[] = [];
  for (let seed = 0; seed < requests; seed++) {
    bodies.push(syntheticMessage({ seed, toolSpans: spansPerRequest - 1, tenant: 'bench', warningEvery: 5 }));
  }
  const payloads = join(mkdtempSync(join(tmpdir(), 'tooltrail-bench-otlp-')), 'payloads.json');
  const file: PayloadFile = { spans: requests * spansPerRequest, bodies: bodies.map((b) => b.toString('base64')) };
  writeFileSync(payloads, JSON.stringify(file));
  const before = beforeWorktree(ROOT, String(args.before), String(args['before-node-modules']));
  const all: Samples = {
    'collector decode': { before: [], after: [] },
    'ingest decode+flatten': { before: [], after: [] },
    encode: { before: [], after: [] },
  };
  const roundRatios: Record<Stage, number[]> = { 'collector decode': [], 'ingest decode+flatten': [], encode: [] };
  const rounds = Number(args.rounds);
  console.log(
    `otlp-general-path: before = ${before.commit}, after = this checkout; ${requests} requests of ${spansPerRequest} spans; ` +
      `${args.warmup} warm-up and ${args.passes} timed passes per side per stage, alternated in one process per round; ${rounds} rounds`,
  );
  try {
    for (let round = 0; round < rounds; round++) {
      const task: ChildTask = {
        roots: { before: before.dir, after: ROOT },
        first: round % 2 === 0 ? 'before' : 'after',
        payloads,
        warmup: Number(args.warmup),
        passes: Number(args.passes),
      };
      const out = execFileSync(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', JSON.stringify(task)],
        { encoding: 'utf8', cwd: ROOT, maxBuffer: 1 << 24 },
      );
      const { samples } = JSON.parse(out.trim().split('\n').at(-1) as string) as { samples: Samples };
      const line = STAGES.map((stage) => {
        const b = spread(samples[stage].before).value;
        const a = spread(samples[stage].after).value;
        all[stage].before.push(...samples[stage].before);
        all[stage].after.push(...samples[stage].after);
        roundRatios[stage].push(a / b);
        return `${stage} ${a.toFixed(2)} vs ${b.toFixed(2)} us/span (${(a / b).toFixed(2)}x)`;
      });
      console.log(`round ${round + 1} (${task.first} first): after vs before: ${line.join(', ')}`);
    }
  } finally {
    before.remove();
    rmSync(dirname(payloads), { recursive: true, force: true });
  }
  const figures = STAGES.map((stage) => {
    const after = spread(all[stage].after);
    const base = spread(all[stage].before);
    const ratio = after.value / base.value;
    const perRound = roundRatios[stage].map((r) => r.toFixed(2)).join(', ');
    console.log(
      `${stage}: after ${after.value.toFixed(2)} us/span, before ${base.value.toFixed(2)}, ratio ${ratio.toFixed(2)} (rounds ${perRound})`,
    );
    return {
      name: `${stage} CPU per span`,
      ...after,
      unit: 'us/span',
      baseline: { name: `before (${before.commit})`, value: base.value },
      ratio,
      target: `≤ ${TARGET}x before`,
      met: ratio <= TARGET,
    };
  });
  printBenchReport({ bench: 'otlp-general-path', figures });
}

if (args.child !== undefined) await child(JSON.parse(args.child) as ChildTask);
else await main();
