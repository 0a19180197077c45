/**
 * Reads the committed dashboard JSON the way Grafana would use it: every ClickHouse panel target and variable
 * query, rendered with dashboards/macros.ts (the plugin's expansion) for a time range and a variable selection,
 * then run as the read-only datasource would run it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLICKHOUSE } from '../../../dashboards/datasources.ts';
import { JSON_DIR } from '../../../dashboards/generate.ts';
import { type QueryContext, renderPanelSql, type VariableSelection } from '../../../dashboards/macros.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';

export interface JsonTarget {
  refId: string;
  datasource?: { type?: string; uid?: string };
  rawSql?: string;
  expr?: string;
  queryType?: string;
  format?: number;
}

export interface JsonOverride {
  matcher: { id: string; options: string };
  properties: Array<{ id: string; value?: unknown }>;
}

export interface JsonPanel {
  id: number;
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  targets?: JsonTarget[];
  fieldConfig?: { overrides?: JsonOverride[] };
}

export interface JsonVariable {
  type: string;
  name: string;
  query?: string;
  datasource?: { type?: string; uid?: string };
  includeAll?: boolean;
  multi?: boolean;
}

export interface JsonDashboard {
  uid: string;
  title: string;
  panels: JsonPanel[];
  templating?: { list: JsonVariable[] };
}

export function loadDashboards(): Map<string, JsonDashboard> {
  const out = new Map<string, JsonDashboard>();
  for (const file of readdirSync(JSON_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    out.set(file, JSON.parse(readFileSync(join(JSON_DIR, file), 'utf8')) as JsonDashboard);
  }
  return out;
}

export function isClickHouse(ref: { type?: string; uid?: string } | undefined): boolean {
  return ref?.type === CLICKHOUSE.type && ref.uid === CLICKHOUSE.uid;
}

export interface ColumnMeta {
  name: string;
  type: string;
}

export interface QueryResult {
  sql: string;
  meta: ColumnMeta[];
  rows: Array<Record<string, unknown>>;
}

export async function runPanelSql(ch: ClickHouseClient, rawSql: string, ctx: QueryContext): Promise<QueryResult> {
  const sql = renderPanelSql(rawSql, ctx);
  try {
    const rs = await ch.query({ query: sql, format: 'JSON' });
    const body = await rs.json<Record<string, unknown>>();
    return { sql, meta: body.meta as ColumnMeta[], rows: body.data as Array<Record<string, unknown>> };
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- SQL as ClickHouse received it:\n${sql}`);
  }
}

/** Runs each query variable in order (later ones see earlier selections) and returns their option values. */
export async function variableOptions(
  ch: ClickHouseClient,
  dashboard: JsonDashboard,
  base: Omit<QueryContext, 'variables'>,
  selection: Record<string, VariableSelection>,
): Promise<Map<string, string[]>> {
  const options = new Map<string, string[]>();
  for (const v of dashboard.templating?.list ?? []) {
    if (v.type !== 'query' || !isClickHouse(v.datasource) || !v.query) continue;
    const result = await runPanelSql(ch, v.query, { ...base, variables: withOptions(selection, options) });
    if (result.meta.length !== 1) throw new Error(`variable ${v.name} must return one column`);
    options.set(
      v.name,
      result.rows.map((r) => String(Object.values(r)[0])),
    );
  }
  return options;
}

/** The selection, each variable carrying the options All expands to. */
export function withOptions(
  selection: Record<string, VariableSelection>,
  options: Map<string, string[]>,
): Record<string, VariableSelection> {
  const out: Record<string, VariableSelection> = {};
  for (const [name, sel] of Object.entries(selection)) out[name] = { ...sel, options: options.get(name) ?? [] };
  return out;
}

const NUMERIC = /^(Nullable\()?(U?Int\d+|Float\d+|Decimal)/;
const STRING = /^(Nullable\()?(LowCardinality\()?(Nullable\()?String/;
const TIME = /^(Nullable\()?DateTime/;

/** What the panel type needs from the result; returns the problems (empty when the shape is right). */
export function shapeProblems(panel: JsonPanel, result: QueryResult): string[] {
  const problems: string[] = [];
  const names = result.meta.map((c) => c.name);
  if (new Set(names).size !== names.length) problems.push(`duplicate column names: ${names.join(', ')}`);
  if (panel.type === 'timeseries') {
    const [first, ...rest] = result.meta;
    if (first?.name !== 'time' || !TIME.test(first.type)) {
      problems.push(`a time series needs a first DateTime column named time, got ${first?.name}: ${first?.type}`);
    }
    if (!rest.some((c) => NUMERIC.test(c.type))) problems.push('a time series needs a numeric value column');
    for (const c of rest) {
      if (!NUMERIC.test(c.type) && !STRING.test(c.type))
        problems.push(`column ${c.name} (${c.type}) is neither a label nor a value`);
    }
    // The plugin turns long frames into series (Grafana's LongToWide), which requires ascending time.
    const times = result.rows.map((r) => String(r.time));
    for (let i = 1; i < times.length; i++) {
      if (times[i]! < times[i - 1]!) {
        problems.push(`rows are not in ascending time order at row ${i}`);
        break;
      }
    }
  } else if (panel.type === 'stat') {
    if (result.rows.length !== 1) problems.push(`a stat needs exactly one row, got ${result.rows.length}`);
    if (!result.meta.some((c) => NUMERIC.test(c.type))) problems.push('a stat needs a numeric column');
  } else if (panel.type === 'table') {
    if (result.meta.length === 0) problems.push('a table needs columns');
  } else {
    problems.push(`no shape rule for panel type ${panel.type}`);
  }
  // Field overrides and data links must name columns that exist (tables: by column; series are named by value).
  if (panel.type === 'table') {
    for (const o of panel.fieldConfig?.overrides ?? []) {
      if (o.matcher.id === 'byName' && !names.includes(o.matcher.options)) {
        problems.push(`override for column ${o.matcher.options}, which the query does not return`);
      }
      for (const p of o.properties) {
        for (const m of JSON.stringify(p.value ?? '').matchAll(/__data\.fields\.([A-Za-z0-9_]+)/g)) {
          if (!names.includes(m[1]!)) problems.push(`data link uses field ${m[1]}, which the query does not return`);
        }
      }
    }
  }
  return problems;
}
