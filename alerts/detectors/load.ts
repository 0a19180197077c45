/**
 * The detector loader: one `.sql` file per rule in this folder, run with bound parameters only. The parameters a
 * file declares (`{name:Type}`) are checked against the ones given, so a typo fails loudly instead of binding
 * nothing. A stage that two detectors share is written once, in `fragments/NAME.sql`, and a detector composes it in
 * with `{{include:NAME}}` (platform/sql-files.ts).
 */
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { composeFragments } from '../../platform/sql-files.ts';

export const DETECTOR_NAMES = [
  'mutation_after_incomplete_read',
  'absence_mutation_without_complete_evidence',
  'dangerous_empty_reads',
  'persistent_unowned_warning',
  'arrived_sessions',
  'incremental_mutation_after_incomplete_read',
  'incremental_absence_mutation_without_complete_evidence',
] as const;
export type DetectorName = (typeof DETECTOR_NAMES)[number];

const DIR = new URL('./', import.meta.url);
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
  const text = readFileSync(new URL(`${name}.sql`, DIR), 'utf8');
  const sql = composeFragments(text, `${name}.sql`, DIR);
  const params = new Map<string, string>();
  for (const m of sql.matchAll(PARAM_RE)) {
    const [, param, type] = m as unknown as [string, string, string];
    const seen = params.get(param);
    if (seen !== undefined && seen !== type) throw new Error(`${name}.sql declares {${param}} as ${seen} and ${type}`);
    params.set(param, type);
  }
  const rule = text
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
  const order = SPLITTABLE[name];
  const { since, until } = params;
  if (
    order &&
    since instanceof Date &&
    until instanceof Date &&
    until.getTime() - since.getTime() > SPLIT_MIN_RANGE_MS
  ) {
    // Two halves of the mutations' range, at once: each query's serial phases (hash-table builds between its
    // stages, the final sort, the JSON) overlap the other's parallel ones. 30 days of the bench's 10M tool calls:
    // 932-957 vs 1,050-1,092 ms (bench/detector-evaluation.ts data, alternated). Each half reads the reads and
    // evidence of its own window, so the rows are the same; merged in the SQL's ORDER BY.
    const mid = new Date(since.getTime() + Math.floor((until.getTime() - since.getTime()) / 2));
    const [first, second] = await Promise.all([
      queryRows(ch, d.sql, { ...params, until: mid }),
      queryRows(ch, d.sql, { ...params, since: mid }),
    ]);
    return mergeOrdered(first, second, order);
  }
  return queryRows(ch, d.sql, params);
}

/**
 * Detectors whose rows are one per mutation started in [since, until), with the columns of their SQL's ORDER BY:
 * a long range can run as two halves. Aggregating detectors (rates, counts over the range) cannot.
 */
const SPLITTABLE: Partial<Record<DetectorName, readonly string[]>> = {
  mutation_after_incomplete_read: ['tenant', 'mutation_time', 'mutation_span_id'],
  absence_mutation_without_complete_evidence: ['tenant', 'mutation_time', 'mutation_span_id'],
};
/** Below a week one query is quick (the evaluator's 24 h: ~0.1 s) and a second query's fixed cost would not pay. */
const SPLIT_MIN_RANGE_MS = 7 * 86_400_000;

/**
 * Strings in ClickHouse's String order (UTF-8 bytes, i.e. code points). UTF-16 units order the same way unless the
 * first difference involves a surrogate (a character past U+FFFF): only then are the bytes compared.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length < b.length ? -1 : 1;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  if (x < 0xd800 && y < 0xd800) return x < y ? -1 : 1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Merges two row lists each sorted by `order` (string columns, ascending) into one sorted list. */
export function mergeOrdered(
  a: Record<string, unknown>[],
  b: Record<string, unknown>[],
  order: readonly string[],
): Record<string, unknown>[] {
  const compare = (x: Record<string, unknown>, y: Record<string, unknown>) => {
    for (const column of order) {
      const c = compareStrings(String(x[column]), String(y[column]));
      if (c !== 0) return c;
    }
    return 0;
  };
  const out: Record<string, unknown>[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = compare(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/**
 * Runs a SELECT with bound parameters and returns its rows as objects. The result comes as one JSONCompact
 * document (column names once, then one array per row: half the bytes of JSONEachRow) parsed in one JSON.parse,
 * and rows become objects through a constructor compiled for the column list: every row gets the same shape at
 * once instead of 22 keyed stores each (a full-range detector run returns ~31k rows; this part went from ~300 to
 * ~130 ms of the run's main thread, bench/detector-evaluation.ts).
 */
export async function queryRows(
  ch: ClickHouseClient,
  query: string,
  params: Record<string, DetectorParamValue>,
): Promise<Record<string, unknown>[]> {
  const rs = await ch.query({ query, query_params: params, format: 'JSONCompact' });
  const { meta, data } = await rs.json<unknown[]>();
  if (!meta) throw new Error('ClickHouse returned a JSONCompact result without its column names');
  const build = rowBuilder(meta.map((m) => m.name));
  return data.map(build);
}

const builders = new Map<string, (values: unknown[]) => Record<string, unknown>>();

/**
 * `(values) => ({ name0: values[0], ... })` for these column names. Names are quoted with JSON.stringify, never
 * spliced raw; `__proto__` is refused (in an object literal it would set the prototype, not a property).
 */
export function rowBuilder(names: readonly string[]): (values: unknown[]) => Record<string, unknown> {
  const key = JSON.stringify(names);
  let build = builders.get(key);
  if (!build) {
    if (names.includes('__proto__')) throw new Error('a result column may not be named __proto__');
    const fields = names.map((n, i) => `${JSON.stringify(n)}: values[${i}]`).join(', ');
    build = new Function('values', `return { ${fields} };`) as (values: unknown[]) => Record<string, unknown>;
    builders.set(key, build);
  }
  return build;
}
