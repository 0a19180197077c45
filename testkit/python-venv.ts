/**
 * A Python virtual environment with a requirements file's packages from PyPI, cached under the services home and
 * re-created when the requirements change, for the tests that run real Python OpenTelemetry code.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { services } from './services.ts';

const run = promisify(execFile);

/** The venv's python (`<services home>/<name>`), with `requirements` installed. */
export async function pythonVenv(name: string, requirements: string): Promise<string> {
  const venv = join(services.home, name);
  const bin = join(venv, 'bin', 'python');
  const stamp = join(venv, 'requirements.sha256');
  const wanted = createHash('sha256').update(readFileSync(requirements)).digest('hex');
  if (existsSync(bin) && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return bin;
  rmSync(venv, { recursive: true, force: true });
  try {
    await run('python3', ['-m', 'venv', venv]);
  } catch (err) {
    throw new Error(`python3 -m venv failed (install python3-venv; .ci/run does): ${(err as Error).message}`);
  }
  await run(bin, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', requirements], {
    timeout: 300_000,
  });
  writeFileSync(stamp, wanted);
  return bin;
}
