/**
 * Collector memory under the security probe's two loads (issue 26), before and after the memory-budget fixes, in one
 * run: 16 concurrent 16 MiB OTLP protobuf bodies, and 60 connections each holding an unfinished 14 MiB body. For
 * each, the collector process's peak RSS (VmHWM) and the peak of its in-flight bytes gauge, against the budget
 * (limits.maxInFlightBytes, 256 MiB by default). "Before" is a git worktree of `--before` (default: the commit
 * before the timeouts, shares and declared-length reservation landed), run from the same node_modules; sides
 * alternate, each load on a fresh collector process with the defaults of its version. Medians and after/before.
 *
 *   node --import tsx bench/collector-memory.ts [--rounds 3] [--before a6e8512] [--sink kafka|discard]
 *       [--concurrent 16] [--concurrent-mib 16] [--slow 60] [--slow-mib 14] [--hold-ms 3000]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { COLLECTOR_NODE_FLAGS } from '../collector/node-flags.ts';
import { createKafkaClient, deleteTopics } from '../platform/kafka/index.ts';
import { loadServicesConfig } from '../services/config.ts';
import { toolSpansBody } from '../testkit/otlp-requests.ts';
import { printBenchReport, spread } from './support/report.ts';
import { beforeWorktree } from './support/worktree.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MiB = 1024 * 1024;
/** Four credentials: one alone is held to its share; four can fill the whole budget. */
const TOKENS = [0, 1, 2, 3].map((i) => `bench-memory-token-${i}-0123456789`);
const BUDGET = 256 * MiB;

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    before: { type: 'string', default: 'a6e8512' },
    sink: { type: 'string', default: 'kafka' },
    concurrent: { type: 'string', default: '16' },
    'concurrent-mib': { type: 'string', default: '16' },
    slow: { type: 'string', default: '60' },
    'slow-mib': { type: 'string', default: '14' },
    'hold-ms': { type: 'string', default: '3000' },
  },
});
const rounds = Number(args.rounds);
const sink = args.sink === 'discard' ? 'discard' : 'kafka';
const brokers = loadServicesConfig().kafka.brokers;

interface Sample {
  /** RSS of the collector started and idle, before the load: the part of the peak that is not the load's. */
  idleRssMiB: number;
  peakRssMiB: number;
  peakInFlightMiB: number;
  answers: Record<string, number>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fresh `tooltrail collector` of the checkout at `root`, on `port`, with the four tokens. */
async function startCollector(root: string, port: number, topic: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...COLLECTOR_NODE_FLAGS, '--import', 'tsx', join(root, 'cli/main.ts'), 'collector', '--sink', sink],
    {
      cwd: root,
      env: {
        ...process.env,
        TOOLTRAIL_COLLECTOR_TOKENS: TOKENS.map((t, i) => `${t}=bench-memory-${i}`).join(','),
        TOOLTRAIL_COLLECTOR_PORT: String(port),
        TOOLTRAIL_COLLECTOR_TOPIC: topic,
        TOOLTRAIL_KAFKA_BROKERS: brokers.join(','),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  child.stdout?.on('data', (d) => {
    log += d;
  });
  child.stderr?.on('data', (d) => {
    log += d;
  });
  for (let i = 0; i < 600; i++) {
    if (log.includes('listening on')) return child;
    if (child.exitCode !== null) throw new Error(`collector of ${root} exited: ${log}`);
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`collector of ${root} did not start: ${log}`);
}

async function stopCollector(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

function rssMiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
}

const peakRssMiB = (pid: number) => rssMiB(pid, 'VmHWM');

function inFlightBytes(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/metrics', agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        text += d;
      });
      res.once('end', () => resolve(Number(/^tooltrail_collector_in_flight_bytes (\d+)/m.exec(text)?.[1] ?? 0)));
    });
    req.once('error', () => resolve(0));
    req.end();
  });
}

/** Samples the in-flight gauge every 50 ms until `stop` resolves; resolves with the peak. */
async function peakInFlight(port: number, stop: Promise<unknown>): Promise<number> {
  let done = false;
  void stop.finally(() => {
    done = true;
  });
  let peak = 0;
  while (!done) {
    peak = Math.max(peak, await inFlightBytes(port));
    await sleep(50);
  }
  return Math.max(peak, await inFlightBytes(port));
}

function post(port: number, body: Buffer, token: string): Promise<string> {
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/traces',
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/x-protobuf',
          'content-length': body.length,
          authorization: `Bearer ${token}`,
        },
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(String(res.statusCode)));
      },
    );
    req.once('error', (err) => resolve(`error ${(err as NodeJS.ErrnoException).code ?? err.message}`));
    req.end(body);
  });
}

function count(answers: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) out[a] = (out[a] ?? 0) + 1;
  return out;
}

async function concurrentBodies(
  port: number,
  pid: number,
  body: Buffer,
  n: number,
): Promise<Omit<Sample, 'idleRssMiB'>> {
  const all = Promise.all(Array.from({ length: n }, (_, i) => post(port, body, TOKENS[i % TOKENS.length] as string)));
  const peak = await peakInFlight(port, all);
  return { peakRssMiB: peakRssMiB(pid), peakInFlightMiB: peak / MiB, answers: count(await all) };
}

/** `n` connections each declaring `bytes` and sending all but the last 64 KiB; held `holdMs`, then dropped. */
async function slowBodies(
  port: number,
  pid: number,
  bytes: number,
  n: number,
  holdMs: number,
): Promise<Omit<Sample, 'idleRssMiB'>> {
  const chunk = Buffer.alloc(bytes - 64 * 1024, 0x0a);
  const sockets: Socket[] = [];
  const answers: string[] = [];
  const written = Array.from(
    { length: n },
    (_, i) =>
      new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        sockets.push(socket);
        let answer = '';
        socket.setEncoding('latin1');
        socket.on('data', (d: string) => {
          answer += d;
        });
        socket.on('error', () => resolve());
        socket.once('close', () => {
          answers.push(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 'closed');
          resolve();
        });
        socket.once('connect', () => {
          const head =
            `POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: ${bytes}\r\n` +
            `Authorization: Bearer ${TOKENS[i % TOKENS.length]}\r\n\r\n`;
          socket.write(head);
          socket.write(chunk, () => resolve());
        });
      }),
  );
  const hold = Promise.all(written).then(() => sleep(holdMs));
  const peak = await peakInFlight(port, hold);
  const rss = peakRssMiB(pid);
  const open = sockets.filter((s) => !s.destroyed).length;
  for (const s of sockets) s.destroy();
  return { peakRssMiB: rss, peakInFlightMiB: peak / MiB, answers: { ...count(answers), 'held open': open } };
}

type Side = 'before' | 'after';
type Load = 'concurrent' | 'slow';

async function main(): Promise<void> {
  const worktree = beforeWorktree(ROOT, String(args.before), join(ROOT, 'node_modules'));
  const commit = worktree.commit;
  const roots: Record<Side, string> = { before: worktree.dir, after: ROOT };
  const body = toolSpansBody(Number(args['concurrent-mib']) * MiB - 4096);
  const samples = new Map<string, Sample[]>();
  const kafka = sink === 'kafka' ? createKafkaClient({ brokers, clientId: 'bench-memory', quiet: true }) : undefined;
  console.log(
    `collector-memory: before = ${commit}, after = this checkout; sink ${sink}; ${rounds} rounds; body ${(body.length / MiB).toFixed(2)} MiB`,
  );
  try {
    for (let round = 0; round < rounds; round++) {
      const sides: Side[] = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      for (const load of ['concurrent', 'slow'] as Load[]) {
        for (const side of sides) {
          const port = 20_000 + Math.floor(Math.random() * 20_000);
          const topic = `bench_memory_${Date.now()}_${side}`;
          const child = await startCollector(roots[side], port, topic);
          try {
            const pid = child.pid as number;
            const idleRssMiB = rssMiB(pid, 'VmRSS');
            const measured =
              load === 'concurrent'
                ? await concurrentBodies(port, pid, body, Number(args.concurrent))
                : await slowBodies(
                    port,
                    pid,
                    Number(args['slow-mib']) * MiB,
                    Number(args.slow),
                    Number(args['hold-ms']),
                  );
            const s: Sample = { idleRssMiB, ...measured };
            const key = `${load}/${side}`;
            samples.set(key, [...(samples.get(key) ?? []), s]);
            console.log(
              `  round ${round + 1} ${key}: idle RSS ${s.idleRssMiB.toFixed(0)} MiB, peak RSS ${s.peakRssMiB.toFixed(0)} MiB, peak in-flight ${s.peakInFlightMiB.toFixed(1)} MiB, answers ${JSON.stringify(s.answers)}`,
            );
          } finally {
            await stopCollector(child);
            if (kafka) await deleteTopics(kafka, [topic]).catch(() => {});
          }
        }
      }
    }
  } finally {
    worktree.remove();
  }
  const figures = [];
  for (const load of ['concurrent', 'slow'] as Load[]) {
    const what =
      load === 'concurrent'
        ? `${args.concurrent} concurrent ${args['concurrent-mib']} MiB protobuf bodies`
        : `${args.slow} unfinished ${args['slow-mib']} MiB bodies`;
    for (const metric of ['peakRssMiB', 'idleRssMiB', 'peakInFlightMiB'] as const) {
      const b = spread((samples.get(`${load}/before`) ?? []).map((s) => s[metric]));
      const a = spread((samples.get(`${load}/after`) ?? []).map((s) => s[metric]));
      const label = {
        peakRssMiB: 'peak RSS',
        idleRssMiB: 'RSS idle before the load',
        peakInFlightMiB: 'peak in-flight bytes',
      };
      const name = `${what}: ${label[metric]}`;
      figures.push({
        name,
        ...a,
        unit: 'MiB',
        baseline: { name: `before (${commit})`, value: b.value },
        ...(b.value > 0 ? { ratio: Math.round((a.value / b.value) * 1000) / 1000 } : {}),
        ...(metric === 'peakInFlightMiB' ? { target: `≤ budget ${BUDGET / MiB} MiB`, met: a.max <= BUDGET / MiB } : {}),
      });
      console.log(
        `${name}: after ${a.value.toFixed(1)} MiB (${a.min.toFixed(1)}-${a.max.toFixed(1)}), before ${b.value.toFixed(1)} MiB (${b.min.toFixed(1)}-${b.max.toFixed(1)}), after/before ${b.value > 0 ? (a.value / b.value).toFixed(3) : 'n/a'}`,
      );
    }
  }
  printBenchReport({ bench: 'collector-memory', figures });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
