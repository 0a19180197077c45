/**
 * The `tooltrail` CLI in-process (cli/program.ts, as cli/main.ts runs it) with generated command lines. Rules: an
 * error escaping the program is one main.ts turns into one line (else main rethrows it: a stack trace); nothing
 * prints a stack trace; a failing command says why on stderr in one line; nothing hangs (10 s) and no promise
 * rejection goes unhandled. Output is captured; commands that serve forever or manage services are never run.
 *
 * `offline`: ClickHouse, Kafka and Alertmanager point at a closed port, so no command touches a service.
 * `database`: ClickHouse is the shared one with a throwaway database (TOOLTRAIL_CLICKHOUSE_DATABASE).
 */
import { CommanderError } from 'commander';
import { buildProgram, userErrorLine } from '../../cli/program.ts';
import { freshDatabase } from '../../testkit/services.ts';
import { cliArgs, EXCLUDED_COMMANDS } from '../cli-gen.ts';
import { clip, type FuzzTarget, TargetReport } from '../report.ts';
import { Rng } from '../rng.ts';

const CLOSED = 'http://127.0.0.1:9';
/** A command still running after this long is reported as hung (migrations run DDL: slower under load). */
const HANG_MS = 10_000;
const MIGRATE_HANG_MS = 60_000;
const CLIENT_LOG = /^\[[^\]]+\]\[(ERROR|WARN)\]\[@clickhouse\/client\]/;
/** Notices a command prints on purpose before its work (not part of an error). */
const NOTICE = /^tooltrail: every tenant \(--all-tenants, operator mode\)$/;
const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>\)?)$/m;

export interface CliOutcome {
  code: number;
  /** Commander's own error code (usage errors, help), whose output is commander's. */
  commander?: string;
  /** Log blocks the ClickHouse client printed itself (with stack traces): known, reported, not the CLI's own. */
  clientLogs: number;
  out: string;
  err: string;
  /** The error main.ts would rethrow (a crash with a stack trace), if any. */
  escaped?: unknown;
  hung?: boolean;
}

class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

/** Runs one command line in-process with stdout/stderr captured and process.exit trapped. */
export async function runCli(args: string[]): Promise<CliOutcome> {
  const out: string[] = [];
  const err: string[] = [];
  const origOut = process.stdout.write;
  const origErr = process.stderr.write;
  const origExit = process.exit;
  // Commands write strings; a Buffer is someone else's (node's test runner reports through stdout): passed through.
  const capture = (into: string[], orig: typeof process.stdout.write, stream: NodeJS.WriteStream) =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      if (typeof chunk !== 'string') return (orig as (...a: unknown[]) => boolean).call(stream, chunk, ...rest);
      into.push(chunk);
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = capture(out, origOut, process.stdout);
  process.stderr.write = capture(err, origErr, process.stderr);
  process.exit = ((code?: number) => {
    throw new ExitCalled(code ?? 0);
  }) as typeof process.exit;
  process.exitCode = undefined;
  let code = 0;
  let commander: string | undefined;
  let escaped: unknown;
  let hung = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const program = buildProgram({
      exitOverride: true,
      output: { writeOut: (s) => out.push(s), writeErr: (s) => err.push(s) },
    });
    const run = program.parseAsync(['node', 'tooltrail', ...args]);
    const timeout = new Promise<'hung'>((resolve) => {
      timer = setTimeout(() => resolve('hung'), args[0] === 'migrate' ? MIGRATE_HANG_MS : HANG_MS);
    });
    const r = await Promise.race([run, timeout]);
    if (r === 'hung') {
      hung = true;
      run.catch(() => {});
    }
    code = Number(process.exitCode ?? 0);
  } catch (e) {
    if (e instanceof CommanderError) {
      code = e.exitCode;
      commander = e.code;
    } else if (e instanceof ExitCalled) code = e.code;
    else {
      const line = userErrorLine(e);
      if (line !== undefined) {
        err.push(`${line}\n`);
        code = 1;
      } else {
        escaped = e;
        code = 1;
      }
    }
  } finally {
    clearTimeout(timer);
    process.stdout.write = origOut;
    process.stderr.write = origErr;
    process.exit = origExit;
    process.exitCode = undefined;
  }
  const clientLog = (chunk: string) => CLIENT_LOG.test(chunk);
  const clientLogs = err.filter(clientLog).length;
  return {
    code,
    clientLogs,
    ...(commander !== undefined ? { commander } : {}),
    out: out.join(''),
    err: err.filter((c) => !clientLog(c)).join(''),
    ...(escaped !== undefined ? { escaped } : {}),
    ...(hung ? { hung } : {}),
  };
}

/** The environment of a run: services at a closed port, or the real ClickHouse with `database`. */
function environment(database: string | undefined): Record<string, string> {
  return {
    TOOLTRAIL_KAFKA_BROKERS: '127.0.0.1:9',
    TOOLTRAIL_ALERTMANAGER_URL: CLOSED,
    TOOLTRAIL_USER: 'fuzz',
    ...(database === undefined ? { TOOLTRAIL_CLICKHOUSE_URL: CLOSED } : { TOOLTRAIL_CLICKHOUSE_DATABASE: database }),
  };
}

export async function fuzzCli(cases: number, seed: number, report: TargetReport, database?: string): Promise<void> {
  const rng = new Rng(seed);
  const env = environment(database);
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    for (let i = 0; i < cases; i++) {
      const args = cliArgs(rng, database !== undefined);
      const first = args.find((a) => !a.startsWith('-'));
      if (
        (EXCLUDED_COMMANDS as readonly string[]).includes(first ?? '') ||
        (first === 'alerts' && !args.includes('--once'))
      ) {
        continue; // a stray word that names a long-running command: never run
      }
      report.cases++;
      const input = `tooltrail ${args.map((a) => JSON.stringify(a)).join(' ')}`;
      const r = await runCli(args);
      report.outcome(`exit ${r.code}`);
      if (r.clientLogs > 0) report.outcome('clickhouse-client-log');
      const answer = `exit ${r.code} stderr=${clip(r.err, 300)}`;
      if (r.hung) report.violation({ kind: 'hang', index: i, input, answer });
      if (r.escaped !== undefined) {
        report.violation({
          kind: 'crash',
          index: i,
          input,
          answer: `${answer} escaped=${clip(String((r.escaped as Error)?.stack ?? r.escaped), 500)}`,
        });
      } else if (STACK_FRAME.test(r.err) || STACK_FRAME.test(r.out)) {
        report.violation({ kind: 'stack_trace', index: i, input, answer: `${answer} stdout=${clip(r.out, 1500)}` });
      } else if (r.code !== 0 && !r.hung && r.commander === undefined) {
        // Commander's usage errors print the error and the help; anything else fails with exactly one line (more
        // only when the message quotes an argument that holds line breaks).
        const lines = r.err.split('\n').filter((l) => l.trim() !== '' && !NOTICE.test(l));
        const quoted = args.reduce((n, a) => n + a.split(/[\n\r]/).length - 1, 0);
        if (lines.length === 0 || lines.length > 1 + quoted)
          report.violation({ kind: 'not_one_line', index: i, input, answer });
      }
      if (unhandled.length) {
        report.violation({
          kind: 'crash',
          index: i,
          input,
          answer: `unhandled rejection: ${clip(String(unhandled.splice(0)[0]))}`,
        });
      }
    }
  } finally {
    process.off('unhandledRejection', onUnhandled);
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

export const cliTarget: FuzzTarget = {
  name: 'cli',
  async run(cases, seed) {
    const report = new TargetReport('cli');
    await fuzzCli(cases, seed, report);
    return report;
  },
};

/** The CLI against the shared ClickHouse, in a throwaway database (migrated, then dropped). */
export const cliDatabaseTarget: FuzzTarget = {
  name: 'cli-database',
  async run(cases, seed) {
    const db = await freshDatabase('tt_fuzz_cli');
    const report = new TargetReport('cli-database');
    try {
      await fuzzCli(cases, seed, report, db.database);
    } finally {
      await db.drop().catch(() => {});
    }
    return report;
  },
};
