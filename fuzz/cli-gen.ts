/**
 * Command lines for the CLI fuzzer: the commands that read or write the database and exit, with random and
 * garbage arguments and option values (durations, tenants, ids, paths, numbers, times). Commands that serve
 * forever or manage the services are never generated: `up`, `services *`, `collector`, `ingest`, `serve-api`, and
 * `alerts` without `--once`; `migrate` without `--print` only when the database is a throwaway (`allowMigrate`).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Rng } from './rng.ts';

export const EXCLUDED_COMMANDS = ['up', 'services', 'collector', 'ingest', 'serve-api'] as const;

function garbage(rng: Rng): string {
  return rng.pick<() => string>([
    () => '',
    () => ' ',
    () => '-',
    () => '--',
    () => '-1',
    () => '0',
    () => 'NaN',
    () => 'Infinity',
    () => '1e309',
    () => '0x10',
    () => '9'.repeat(rng.int(10, 40)),
    () => rng.string(20),
    () => rng.string(300),
    () => '--json',
    () => '--help',
    () => "' OR 1=1 --",
    () => '{tenant:String}',
    () => '../../etc/passwd',
    () => '\u0000',
  ])();
}

const duration = (rng: Rng) =>
  rng.bool(0.4)
    ? rng.pick(['1h', '30m', '24h', '7d', '0s', '1s', '90s', '2w'])
    : rng.bool(0.5)
      ? `${rng.pick(['-5', '0', '1e9', '99999999999999999', '1.5', ''])}${rng.pick(['h', 'm', 's', 'd', 'ms', 'y', ''])}`
      : garbage(rng);
const tenant = (rng: Rng) => (rng.bool(0.5) ? rng.pick(['acme', 't-1', 'a.b:c']) : garbage(rng));
const token = (rng: Rng) => (rng.bool(0.3) ? `tok-${rng.hex(12)}` : garbage(rng));
const session = (rng: Rng) => (rng.bool(0.4) ? `s-${rng.hex(4)}` : garbage(rng));
const trace = (rng: Rng) => (rng.bool(0.4) ? rng.hex(16) : rng.bool(0.3) ? rng.hex(rng.int(0, 20)) : garbage(rng));
const fingerprint = (rng: Rng) => (rng.bool(0.4) ? rng.hex(rng.int(4, 32)) : garbage(rng));
const time = (rng: Rng) =>
  rng.pick<() => string>([
    () => '-24h',
    () => '-1h',
    () => '2026-11-30T00:00:00Z',
    () => '1970-01-01T00:00:00Z',
    () => '0001-01-01T00:00:00Z',
    () => '1900-01-01T00:00:00Z',
    () => '9999-12-31T23:59:59Z',
    () => '2026-02-30T25:61Z',
    () => `-${rng.int(0, 99999)}${rng.pick(['h', 'd', 'm', 'y', ''])}`,
    () => garbage(rng),
  ])();
const number = (rng: Rng) => (rng.bool(0.3) ? String(rng.int(1, 10_000)) : garbage(rng));
const htmlPath = (rng: Rng) =>
  rng.pick([join(tmpdir(), `tooltrail-fuzz-${rng.hex(4)}.html`), '/nonexistent-dir/x.html', tmpdir(), '', '\u0000']);
const kind = (rng: Rng) => (rng.bool(0.6) ? rng.pick(['tool', 'agent', 'warning']) : garbage(rng));

type Opt = [flag: string, value: ((rng: Rng) => string) | null];

const COMMANDS: { words: string[]; positional?: ((rng: Rng) => string)[]; options: Opt[] }[] = [
  {
    words: ['reconstruct'],
    options: [
      ['--session', session],
      ['--trace', trace],
      ['--finding', fingerprint],
      ['--tenant', tenant],
      ['--json', null],
      ['--html', htmlPath],
      ['--max-calls', number],
      ['--schema', null],
    ],
  },
  {
    words: ['verify'],
    options: [
      ['--tenant', tenant],
      ['--from', time],
      ['--to', time],
      ['--json', null],
    ],
  },
  {
    words: ['findings'],
    options: [
      ['--since', duration],
      ['--token', token],
      ['--tenant', tenant],
      ['--all-tenants', null],
      ['--json', null],
    ],
  },
  {
    words: ['alerts', '--once'],
    options: [
      ['--interval', duration],
      ['--tenant', tenant],
      ['--pending-period', duration],
      ['--json', null],
    ],
  },
  {
    words: ['owners', 'set'],
    positional: [kind, garbage],
    options: [
      ['--owner', garbage],
      ['--team', garbage],
      ['--source', garbage],
      ['--tenant', tenant],
      ['--by', garbage],
      ['--reason', garbage],
    ],
  },
  {
    words: ['owners', 'remove'],
    positional: [kind, garbage],
    options: [
      ['--source', garbage],
      ['--tenant', tenant],
      ['--by', garbage],
      ['--reason', garbage],
    ],
  },
  {
    words: ['owners', 'list'],
    options: [
      ['--tenant', tenant],
      ['--json', null],
    ],
  },
  {
    words: ['warnings'],
    options: [
      ['--token', token],
      ['--tenant', tenant],
      ['--all-tenants', null],
      ['--json', null],
    ],
  },
  {
    words: ['warnings', 'retire'],
    positional: [garbage, garbage],
    options: [
      ['--tenant', tenant],
      ['--by', garbage],
      ['--reason', garbage],
    ],
  },
  {
    words: ['warnings', 'ack'],
    positional: [garbage, garbage],
    options: [
      ['--tenant', tenant],
      ['--due', duration],
      ['--owner', garbage],
      ['--team', garbage],
      ['--by', garbage],
      ['--reason', garbage],
    ],
  },
  {
    words: ['warnings', 'history'],
    positional: [garbage, garbage],
    options: [
      ['--token', token],
      ['--tenant', tenant],
      ['--all-tenants', null],
      ['--json', null],
    ],
  },
  { words: ['migrate', '--print'], options: [['--down', number]] },
];

/**
 * What a process can receive as an argument: the OS passes NUL-terminated bytes and node decodes them as UTF-8, so
 * an argument never holds NUL or a lone surrogate (invalid bytes arrive as U+FFFD).
 */
export function asArgv(s: string): string {
  return s
    .replaceAll(String.fromCharCode(0), '')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** Arguments after `tooltrail` (never an excluded command; `migrate --down` only when `allowMigrate`). */
export function cliArgs(rng: Rng, allowMigrate: boolean): string[] {
  return rawArgs(rng, allowMigrate).map(asArgv);
}

function rawArgs(rng: Rng, allowMigrate: boolean): string[] {
  if (rng.bool(0.05)) {
    // Unknown commands and stray words at the top level.
    return Array.from({ length: rng.int(0, 3) }, () =>
      rng.bool(0.3) ? rng.pick(['--version', '-h', '--bogus']) : garbage(rng),
    );
  }
  const c = rng.pick(COMMANDS);
  const args = [...c.words];
  if (c.words[0] === 'migrate' && allowMigrate && rng.bool(0.3)) args.pop();
  for (const p of c.positional ?? []) if (rng.bool(0.9)) args.push(p(rng));
  for (const [flag, value] of c.options) {
    if (!rng.bool(0.4)) continue;
    args.push(rng.bool(0.95) ? flag : `${flag}x`);
    if (value && rng.bool(0.95)) args.push(value(rng));
  }
  if (rng.bool(0.05)) args.push(garbage(rng));
  if (rng.bool(0.03)) args.splice(rng.int(c.words.length, args.length), 0, rng.pick(['--', '-', '--help']));
  return args;
}
