/**
 * Builds every dashboard and writes dashboards/json/<name>.json, the files Grafana provisions.
 *   npm run dashboards            regenerate
 *   npm run dashboards -- --check exit 1 when a committed file differs from what the builders make
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { completenessDashboard } from './definitions/completeness.ts';
import { mutationsDashboard } from './definitions/mutations.ts';
import { pipelineDashboard } from './definitions/pipeline.ts';
import { sessionDashboard } from './definitions/session.ts';
import { warningsDashboard } from './definitions/warnings.ts';

export const JSON_DIR = join(dirname(fileURLToPath(import.meta.url)), 'json');

/** File name -> builder. Adding a dashboard is one line here. */
export const DASHBOARDS: Readonly<Record<string, () => Dashboard>> = {
  'completeness-overview.json': completenessDashboard,
  'mutations-after-incomplete-reads.json': mutationsDashboard,
  'warning-lifecycle.json': warningsDashboard,
  'pipeline-health.json': pipelineDashboard,
  'session-reconstruction.json': sessionDashboard,
};

/** The exact text of each dashboard file. */
export function renderDashboards(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [file, build] of Object.entries(DASHBOARDS)) out.set(file, `${JSON.stringify(build(), null, 2)}\n`);
  return out;
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function main(argv: string[]): number {
  const check = argv.includes('--check');
  let stale = 0;
  for (const [file, text] of renderDashboards()) {
    const path = join(JSON_DIR, file);
    if (readOrEmpty(path) === text) continue;
    stale++;
    if (check) console.error(`${file} differs from its generator: run npm run dashboards`);
    else {
      writeFileSync(path, text);
      console.log(`wrote dashboards/json/${file}`);
    }
  }
  if (!check && stale === 0) console.log('dashboards/json is up to date');
  return check && stale > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  process.exitCode = main(process.argv.slice(2));
