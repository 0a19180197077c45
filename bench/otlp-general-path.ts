/**
 * The OTLP general path (platform/otlp/protobuf.ts: what both stages take when the streaming reader declines a
 * body) before and after a change, in one run: the collector's checked decoding, the ingest's decoding plus
 * flatten, and re-encoding, in CPU microseconds per span. "Before" is a git worktree of `--before` run with
 * `--before-node-modules` (default: this checkout's; the alias-era commits need one that holds
 * `otlp-transformer-216`, e.g. a checkout of that commit after `npm ci`). Each round runs one fresh process per
 * side, the sides alternating; both decode the same requests (written by this checkout). Medians, after/before.
 *
 *   node --import tsx bench/otlp-general-path.ts [--before 02477d8] [--before-node-modules DIR] [--rounds 5]
 *       [--requests 40] [--spans 512] [--passes 5]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { printBenchReport, spread } from './support/report.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const { values: args } = parseArgs({
  options: {
    before: { type: 'string', default: '02477d8' },
    'before-node-modules': { type: 'string', default: join(ROOT, 'node_modules') },
    rounds: { type: 'string', default: '5' },
    requests: { type: 'string', default: '40' },
    spans: { type: 'string', default: '512' },
    passes: { type: 'string', default: '5' },
    child: { type: 'string' },
    payloads: { type: 'string' },
  },
});

type Stage = 'collector decode' | 'ingest decode+flatten' | 'encode';
const STAGES: readonly Stage[] = ['collector decode', 'ingest decode+flatten', 'encode'];
type Timings = Record<Stage, number>;

interface PayloadFile {
  spans: number;
  bodies: string[];
}

/** CPU microseconds per span of `run` over every body, `passes` times (after one warm-up pass). */
function cpuPerSpan(bodies: Buffer[], spans: number, passes: number, run: (body: Buffer) => void): number {
  for (const body of bodies) run(body);
  const start = process.cpuUsage();
  for (let p = 0; p < passes; p++) for (const body of bodies) run(body);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (passes * spans);
}

/** One side: imports the general path from `root` and prints its timings as JSON. */
async function child(root: string, payloadFile: string): Promise<void> {
  const otlp = await import(pathToFileURL(join(root, 'platform/otlp/index.ts')).href);
  const { flatten } = await import(pathToFileURL(join(root, 'ingest/flatten.ts')).href);
  const file = JSON.parse(readFileSync(payloadFile, 'utf8')) as PayloadFile;
  const bodies = file.bodies.map((b) => Buffer.from(b, 'base64'));
  const passes = Number(args.passes);
  const decoded = bodies.map((b) => otlp.decodeExportTraceServiceRequest(b));
  let k = 0;
  let seen = 0;
  const timings: Timings = {
    'collector decode': cpuPerSpan(bodies, file.spans, passes, (b) => {
      const checked = otlp.decodeExportTraceServiceRequestChecked(b);
      for (const rs of checked.request.resourceSpans)
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans) seen += checked.invalidUtf8(s) + (checked.encodedSpan(s)?.length ?? 0);
    }),
    'ingest decode+flatten': cpuPerSpan(bodies, file.spans, passes, (b) => {
      flatten(otlp.decodeExportTraceServiceRequest(b));
    }),
    encode: cpuPerSpan(bodies, file.spans, passes, () => {
      otlp.encodeExportTraceServiceRequest(decoded[k++ % decoded.length]);
    }),
  };
  console.log(JSON.stringify({ ...timings, seen }));
}

function beforeWorktree(commit: string, nodeModules: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tooltrail-bench-otlp-before-'));
  execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', dir, commit], { stdio: 'ignore' });
  symlinkSync(nodeModules, join(dir, 'node_modules'));
  return dir;
}

function removeWorktree(dir: string): void {
  try {
    execFileSync('git', ['-C', ROOT, 'worktree', 'remove', '--force', dir], { stdio: 'ignore' });
  } catch {}
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
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
  const before = beforeWorktree(String(args.before), String(args['before-node-modules']));
  const commit = execFileSync('git', ['-C', before, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const roots = { before, after: ROOT } as const;
  const samples = { before: [] as Timings[], after: [] as Timings[] };
  const rounds = Number(args.rounds);
  console.log(
    `otlp-general-path: before = ${commit}, after = this checkout; ${requests} requests of ${spansPerRequest} spans, ${args.passes} passes, ${rounds} rounds`,
  );
  try {
    for (let round = 0; round < rounds; round++) {
      const sides = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const side of sides) {
        const out = execFileSync(
          process.execPath,
          [
            '--import',
            'tsx',
            fileURLToPath(import.meta.url),
            '--child',
            roots[side],
            '--payloads',
            payloads,
            '--passes',
            String(args.passes),
          ],
          { encoding: 'utf8', cwd: roots[side], maxBuffer: 1 << 20 },
        );
        const timings = JSON.parse(out.trim().split('\n').at(-1) as string) as Timings;
        samples[side].push(timings);
        console.log(
          `round ${round + 1} ${side}: ${STAGES.map((s) => `${s} ${timings[s].toFixed(2)} us/span`).join(', ')}`,
        );
      }
    }
  } finally {
    removeWorktree(before);
    rmSync(dirname(payloads), { recursive: true, force: true });
  }
  const figures = STAGES.map((stage) => {
    const after = spread(samples.after.map((t) => t[stage]));
    const base = spread(samples.before.map((t) => t[stage]));
    const ratio = after.value / base.value;
    console.log(
      `${stage}: after ${after.value.toFixed(2)} us/span, before ${base.value.toFixed(2)}, ratio ${ratio.toFixed(2)}`,
    );
    return {
      name: `${stage} CPU per span`,
      ...after,
      unit: 'us/span',
      baseline: { name: `before (${commit})`, value: base.value },
      ratio,
      target: '≤ 1.1x before',
      met: ratio <= 1.1,
    };
  });
  printBenchReport({ bench: 'otlp-general-path', figures });
}

if (args.child !== undefined) await child(args.child, String(args.payloads));
else await main();
