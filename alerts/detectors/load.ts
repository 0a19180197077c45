/**
 * The detector loader: one `.sql` file per rule in this folder, run with bound parameters only. The parameters a
 * file declares (`{name:Type}`) are checked against the ones given, so a typo fails loudly instead of binding
 * nothing.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClickHouseClient } from '../../platform/clickhouse.ts';

export const DETECTOR_NAMES = [
  'mutation_after_incomplete_read',
  'absence_mutation_without_complete_evidence',
  'dangerous_empty_reads',
  'persistent_unowned_warning',
] as const;
export type DetectorName = (typeof DETECTOR_NAMES)[number];

const DIR = dirname(fileURLToPath(import.meta.url));
const PARAM_RE = /\{([A-Za-z_][A-Za-z0-9_]*):([^}]+)\}/g;

export interface Detector {
  name: DetectorName;
  sql: string;
  /** Declared parameters and their ClickHouse types. */
  params: ReadonlyMap<string, string>;
  /** The header comment: the rule, in words. */
  rule: string;
}

const cache = new Map<DetectorName, Detector>();

export function loadDetector(name: DetectorName): Detector {
  const cached = cache.get(name);
  if (cached) return cached;
  const sql = readFileSync(join(DIR, `${name}.sql`), 'utf8');
  const params = new Map<string, string>();
  for (const m of sql.matchAll(PARAM_RE)) {
    const [, param, type] = m as unknown as [string, string, string];
    const seen = params.get(param);
    if (seen !== undefined && seen !== type) throw new Error(`${name}.sql declares {${param}} as ${seen} and ${type}`);
    params.set(param, type);
  }
  const rule = sql
    .split('\n')
    .filter((l) => l.startsWith('--'))
    .map((l) => l.replace(/^-- ?/, ''))
    .join('\n');
  const detector: Detector = { name, sql, params, rule };
  cache.set(name, detector);
  return detector;
}

export type DetectorParamValue = string | number | boolean | Date;

/** Runs one detector; `database` is bound as an Identifier, never interpolated. */
export async function runDetector(
  ch: ClickHouseClient,
  name: DetectorName,
  params: Record<string, DetectorParamValue>,
): Promise<unknown[]> {
  const d = loadDetector(name);
  const given = new Set(Object.keys(params));
  const missing = [...d.params.keys()].filter((p) => !given.has(p));
  const extra = [...given].filter((p) => !d.params.has(p));
  if (missing.length || extra.length) {
    throw new Error(
      `detector ${name}: ${missing.length ? `missing parameters ${missing.join(', ')}` : ''}${missing.length && extra.length ? '; ' : ''}${extra.length ? `unknown parameters ${extra.join(', ')}` : ''}`,
    );
  }
  return queryRows(ch, d.sql, params);
}

/**
 * Runs a SELECT with bound parameters and returns its rows as objects. Column names come once, then one JSON
 * array per row: half the bytes of JSONEachRow (which repeats every key in every row), so half the formatting,
 * transfer and parsing for a full-range detector run with tens of thousands of rows.
 */
export async function queryRows(
  ch: ClickHouseClient,
  query: string,
  params: Record<string, DetectorParamValue>,
): Promise<Record<string, unknown>[]> {
  const rs = await ch.query({ query, query_params: params, format: 'JSONCompactEachRowWithNames' });
  const [names, ...rows] = await rs.json<unknown[]>();
  if (!names) return [];
  const keys = names as string[];
  return rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) row[keys[i] as string] = values[i];
    return row;
  });
}
