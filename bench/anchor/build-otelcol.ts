/**
 * Builds the anchor OpenTelemetry Collector (bench/anchor/builder-config.yaml) once, with the collector builder from
 * the Go module proxy, into .tooltrail/cache/otelcol/ (ignored by git: neither the generated sources nor the binary
 * are ever committed). A second call finds the binary and returns at once; the build is keyed by the config's
 * content, so editing the component list rebuilds.
 *
 *   node --import tsx bench/anchor/build-otelcol.ts [--force]
 * Needs Go (PATH or /usr/local/go/bin). GOFLAGS=-p=1 and `nice` keep it from starving the shared cores.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(HERE, '..', '..');
export const CACHE_DIR = join(REPO_ROOT, '.tooltrail', 'cache', 'otelcol');
export const BUILDER_VERSION = 'v0.165.0';
const CONFIG = join(HERE, 'builder-config.yaml');

/** The binary's path for the current builder config (its content hash names the build folder). */
export function otelcolPath(): string {
  const key = createHash('sha256').update(readFileSync(CONFIG)).update(BUILDER_VERSION).digest('hex').slice(0, 12);
  return join(CACHE_DIR, `build-${key}`, 'otelcol-anchor');
}

function goEnv(): NodeJS.ProcessEnv {
  const path = [process.env.PATH ?? '', '/usr/local/go/bin'].filter(Boolean).join(':');
  return { ...process.env, PATH: path, GOFLAGS: process.env.GOFLAGS ?? '-p=1', GOBIN: join(CACHE_DIR, 'bin') };
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): void {
  const r = spawnSync('nice', ['-n', '10', cmd, ...args], { cwd, env, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with ${r.status ?? r.signal}`);
}

/** Returns the anchor collector's binary, building it first when it is not cached. */
export function ensureOtelcol(options: { force?: boolean; log?: (line: string) => void } = {}): string {
  const log = options.log ?? ((l: string) => console.error(l));
  const binary = otelcolPath();
  if (existsSync(binary) && !options.force) return binary;
  const env = goEnv();
  const builder = join(CACHE_DIR, 'bin', 'builder');
  const t0 = performance.now();
  mkdirSync(CACHE_DIR, { recursive: true });
  if (!existsSync(builder)) {
    log(`installing go.opentelemetry.io/collector/cmd/builder@${BUILDER_VERSION} into ${dirname(builder)}`);
    run('go', ['install', `go.opentelemetry.io/collector/cmd/builder@${BUILDER_VERSION}`], CACHE_DIR, env);
  }
  const buildDir = dirname(binary);
  mkdirSync(buildDir, { recursive: true });
  const config = join(buildDir, 'builder-config.yaml');
  writeFileSync(config, readFileSync(CONFIG, 'utf8').replace('OUTPUT_PATH', buildDir));
  log(`building the anchor collector into ${buildDir} (minutes on 2 shared cores)`);
  run(builder, ['--config', config], buildDir, env);
  if (!existsSync(binary)) throw new Error(`the builder finished but ${binary} is missing`);
  log(`built ${binary} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return binary;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(ensureOtelcol({ force: process.argv.includes('--force') }));
}
