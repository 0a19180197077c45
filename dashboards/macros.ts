/**
 * How a panel's SQL becomes the SQL ClickHouse runs, mirroring grafana-clickhouse-datasource (v4) step by step, so
 * the tests run exactly what Grafana would send:
 *
 * 1. Frontend, `applyConditionalAll` (src/data/CHDatasource.ts): `$__conditionalAll(cond, $var)` becomes `1=1`
 *    when `$var` is All (`$__all`) or empty, else `cond`. Runs BEFORE variables are replaced.
 * 2. Frontend, Grafana's templateSrv.replace with the plugin's format function: `$var`, `${var}`, `[[var]]`,
 *    `${var:format}`. The plugin's default format joins arrays as `'a','b'` and leaves a single value raw;
 *    `:singlequote` quotes every value (escaping `'` as `\'`). All expands to every option's value.
 * 3. Backend, the plugin's macros (pkg/macros/macros.go) through grafana-plugin-sdk-go's sqlutil interpolation:
 *    `$__name` matched on a word boundary; arguments only when `(` follows immediately, split on top-level commas
 *    and trimmed (nested parentheses are kept whole).
 */

/** A template variable's current selection, and the values "All" stands for. */
export interface VariableSelection {
  /** One value, several, or `ALL` (Grafana's `$__all`). */
  value: string | readonly string[];
  /** Every option of the variable: what All expands to. */
  options?: readonly string[];
}

export const ALL = '$__all';

export interface QueryContext {
  from: Date;
  to: Date;
  /** The panel interval Grafana computed (range / max data points, rounded); at least 1 s is used. */
  intervalMs: number;
  variables: Readonly<Record<string, VariableSelection>>;
}

export class MacroError extends Error {
  override name = 'MacroError';
}

// ---------------------------------------------------------------------------------------------------------------
// Step 1: $__conditionalAll (frontend)

/** The arguments of a call whose `(` is at `openIndex`, split on top-level commas (untrimmed, like the plugin). */
function callArgs(sql: string, openIndex: number): { args: string[]; end: number } | undefined {
  const args: string[] = [];
  let depth = 0;
  let start = openIndex + 1;
  for (let i = openIndex; i < sql.length; i++) {
    const c = sql[i];
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) {
        args.push(sql.slice(start, i));
        return { args, end: i + 1 };
      }
    } else if (c === ',' && depth === 1) {
      args.push(sql.slice(start, i));
      start = i + 1;
    }
  }
  return undefined;
}

function isAll(selection: VariableSelection | undefined): boolean {
  if (selection === undefined) return false;
  const v = Array.isArray(selection.value) ? selection.value.join(',') : String(selection.value);
  return v === '' || v === ALL;
}

/** `$__conditionalAll(condition, $var)`: `1=1` when `$var` is All or empty, else the condition (innermost last). */
export function applyConditionalAll(sql: string, variables: QueryContext['variables']): string {
  const macro = '$__conditionalAll(';
  let out = sql;
  let index = out.lastIndexOf(macro);
  while (index !== -1) {
    const call = callArgs(out, index + macro.length - 1);
    // The plugin gives up (leaves the query as is) on anything but two arguments.
    if (call?.args.length !== 2) return out;
    const [condition, variable] = call.args as [string, string];
    // Like the plugin: the second argument minus its first character, so only the `$var` form is recognised.
    const name = variable.trim().slice(1);
    const phrase = isAll(variables[name]) ? '1=1' : condition;
    out = out.slice(0, index) + phrase + out.slice(call.end);
    index = out.lastIndexOf(macro);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Step 2: template variables (Grafana templateSrv)

// Grafana's variable regex: $name | [[name(:fmt)]] | ${name(.fieldPath)(:fmt)}
const VARIABLE_RE = /\$(\w+)|\[\[(\w+?)(?::(\w+))?\]\]|\$\{(\w+)(?:\.([^:^}]+))?(?::([^}]+))?\}/g;

function selectedValues(selection: VariableSelection): string | string[] {
  if (isAll(selection) && selection.value !== '') return [...(selection.options ?? [])];
  return Array.isArray(selection.value) ? [...selection.value] : (selection.value as string);
}

/** The plugin's format function (the default when a variable names no format). */
function pluginFormat(value: string | string[]): string {
  return Array.isArray(value) ? `'${value.join("','")}'` : value;
}

function formatValue(value: string | string[], format: string | undefined): string {
  switch (format) {
    case undefined:
      return pluginFormat(value);
    case 'singlequote': {
      const quote = (v: string) => `'${v.replace(/'/g, "\\'")}'`;
      return Array.isArray(value) ? value.map(quote).join(',') : quote(value);
    }
    case 'doublequote': {
      const quote = (v: string) => `"${v.replace(/"/g, '\\"')}"`;
      return Array.isArray(value) ? value.map(quote).join(',') : quote(value);
    }
    case 'csv':
      return Array.isArray(value) ? value.join(',') : value;
    case 'raw':
      return Array.isArray(value) ? value.join(',') : value;
    default:
      throw new MacroError(`variable format :${format} is not implemented here`);
  }
}

/** Replaces every known variable; unknown names (macros such as `$__timeFilter`) are left for step 3. */
export function interpolateVariables(sql: string, variables: QueryContext['variables']): string {
  return sql.replace(
    VARIABLE_RE,
    (
      match,
      plain?: string,
      bracket?: string,
      bracketFmt?: string,
      braced?: string,
      _path?: string,
      bracedFmt?: string,
    ) => {
      const name = plain ?? bracket ?? braced ?? '';
      const selection = variables[name];
      if (selection === undefined) return match;
      return formatValue(selectedValues(selection), bracketFmt ?? bracedFmt);
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Step 3: backend macros (pkg/macros/macros.go)

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
const toDateTime = (d: Date) => `toDateTime(${seconds(d)})`;
const toDateTime64 = (d: Date) => `fromUnixTimestamp64Milli(${d.getTime()})`;
const toDate = (d: Date) => `toDate('${d.toISOString().slice(0, 10)}')`;

type Macro = (ctx: QueryContext, args: string[]) => string;

function arity(name: string, args: string[], n: number): void {
  if (args.length !== n) {
    throw new MacroError(`$__${name}: unexpected number of arguments: expected ${n} argument, received ${args.length}`);
  }
}

const intervalSeconds = (ctx: QueryContext) => Math.max(Math.trunc(ctx.intervalMs / 1000), 1);

/** The plugin's macros by name, each documented with what it expands to. */
export const MACROS: Readonly<Record<string, Macro>> = {
  /** `toDateTime(<from, unix s>)` */
  fromTime: (ctx) => toDateTime(ctx.from),
  /** `toDateTime(<to, unix s>)` */
  toTime: (ctx) => toDateTime(ctx.to),
  /** `fromUnixTimestamp64Milli(<from, unix ms>)` */
  fromTime_ms: (ctx) => toDateTime64(ctx.from),
  /** `fromUnixTimestamp64Milli(<to, unix ms>)` */
  toTime_ms: (ctx) => toDateTime64(ctx.to),
  /** `col >= toDateTime(<from>) AND col <= toDateTime(<to>)` */
  timeFilter: (ctx, args) => {
    arity('timeFilter', args, 1);
    return `${args[0]} >= ${toDateTime(ctx.from)} AND ${args[0]} <= ${toDateTime(ctx.to)}`;
  },
  /** `col >= fromUnixTimestamp64Milli(<from>) AND col <= fromUnixTimestamp64Milli(<to>)` */
  timeFilter_ms: (ctx, args) => {
    arity('timeFilter_ms', args, 1);
    return `${args[0]} >= ${toDateTime64(ctx.from)} AND ${args[0]} <= ${toDateTime64(ctx.to)}`;
  },
  /** `col >= toDate('<from day>') AND col <= toDate('<to day>')` (UTC days) */
  dateFilter: (ctx, args) => {
    arity('dateFilter', args, 1);
    return `${args[0]} >= ${toDate(ctx.from)} AND ${args[0]} <= ${toDate(ctx.to)}`;
  },
  /** `(dateCol >= toDate(..) AND dateCol <= toDate(..)) AND (timeCol >= toDateTime(..) AND timeCol <= toDateTime(..))` */
  dateTimeFilter: (ctx, args) => dateTimeFilter('dateTimeFilter', ctx, args),
  dt: (ctx, args) => dateTimeFilter('dt', ctx, args),
  /** `toStartOfInterval(toDateTime(col), INTERVAL <interval s, at least 1> second)` */
  timeInterval: (ctx, args) => {
    arity('timeInterval', args, 1);
    return `toStartOfInterval(toDateTime(${args[0]}), INTERVAL ${intervalSeconds(ctx)} second)`;
  },
  /** `toStartOfInterval(toDateTime64(col, 3), INTERVAL <interval ms, at least 1> millisecond)` */
  timeInterval_ms: (ctx, args) => {
    arity('timeInterval_ms', args, 1);
    return `toStartOfInterval(toDateTime64(${args[0]}, 3), INTERVAL ${Math.max(Math.trunc(ctx.intervalMs), 1)} millisecond)`;
  },
  /** `<interval s, at least 1>` */
  interval_s: (ctx) => String(intervalSeconds(ctx)),
};

function dateTimeFilter(name: string, ctx: QueryContext, args: string[]): string {
  arity(name, args, 2);
  const [d, t] = args as [string, string];
  return `(${d} >= ${toDate(ctx.from)} AND ${d} <= ${toDate(ctx.to)}) AND (${t} >= ${toDateTime(ctx.from)} AND ${t} <= ${toDateTime(ctx.to)})`;
}

/** sqlutil's parseArgs: arguments only when `(` follows the name at once; top-level commas; trimmed. */
function macroArgs(rest: string): { args: string[]; length: number } {
  if (!rest.startsWith('(')) return { args: [], length: 0 };
  const call = callArgs(rest, 0);
  if (!call) throw new MacroError('failed to parse macro arguments (missing close bracket?)');
  const args = call.args.map((a) => a.trim());
  // `$__name()` is one empty argument in sqlutil; the zero-argument macros ignore it.
  return { args: args.length === 1 && args[0] === '' ? [] : args, length: call.end };
}

/** Expands every backend macro; a `$__name` that the plugin does not define is an error (ClickHouse would fail). */
export function expandMacros(sql: string, ctx: QueryContext): string {
  let out = '';
  let i = 0;
  const re = /\$__(\w+)\b/g;
  for (let m = re.exec(sql); m !== null; m = re.exec(sql)) {
    const name = m[1] as string;
    const macro = MACROS[name];
    if (!macro) throw new MacroError(`unknown macro $__${name}`);
    const { args, length } = macroArgs(sql.slice(m.index + m[0].length));
    out += sql.slice(i, m.index) + macro(ctx, args);
    i = m.index + m[0].length + length;
    re.lastIndex = i;
  }
  return out + sql.slice(i);
}

/** The SQL ClickHouse receives for a panel query (steps 1, 2, 3). */
export function renderPanelSql(rawSql: string, ctx: QueryContext): string {
  return expandMacros(interpolateVariables(applyConditionalAll(rawSql, ctx.variables), ctx.variables), ctx);
}
