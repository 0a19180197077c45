// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${var} is Grafana variable syntax under test, not a JS template
/**
 * Each expectation is the output grafana-clickhouse-datasource documents or tests for the same input
 * (pkg/macros/macros.go and its tests, src/data/CHDatasource.ts applyConditionalAll, Grafana's templateSrv).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ALL,
  applyConditionalAll,
  expandMacros,
  interpolateVariables,
  MacroError,
  type QueryContext,
  renderPanelSql,
} from '../../../dashboards/macros.ts';

// 2014-11-12T11:45:26Z .. 2015-11-12T11:45:26Z, the plugin's own test range (1415792726 .. 1447328726).
const ctx: QueryContext = {
  from: new Date(1415792726_000),
  to: new Date(1447328726_000),
  intervalMs: 30_000,
  variables: {},
};

describe('backend macros expand like pkg/macros/macros.go', () => {
  test('$__timeFilter(col) filters on whole seconds with toDateTime', () => {
    assert.equal(
      expandMacros('WHERE $__timeFilter(start_time)', ctx),
      'WHERE start_time >= toDateTime(1415792726) AND start_time <= toDateTime(1447328726)',
    );
  });

  test('$__timeFilter_ms(col) filters on milliseconds with fromUnixTimestamp64Milli', () => {
    const c = { ...ctx, from: new Date(1415792726_123), to: new Date(1447328726_456) };
    assert.equal(
      expandMacros('$__timeFilter_ms(t)', c),
      't >= fromUnixTimestamp64Milli(1415792726123) AND t <= fromUnixTimestamp64Milli(1447328726456)',
    );
  });

  test('$__fromTime and $__toTime are DateTime literals of the range bounds (seconds)', () => {
    assert.equal(expandMacros('$__fromTime, $__toTime', ctx), 'toDateTime(1415792726), toDateTime(1447328726)');
  });

  test('$__fromTime_ms and $__toTime_ms keep milliseconds', () => {
    const c = { ...ctx, from: new Date(1000_001), to: new Date(2000_002) };
    assert.equal(
      expandMacros('$__fromTime_ms $__toTime_ms', c),
      'fromUnixTimestamp64Milli(1000001) fromUnixTimestamp64Milli(2000002)',
    );
  });

  test('$__dateFilter(col) compares UTC days', () => {
    assert.equal(expandMacros('$__dateFilter(d)', ctx), "d >= toDate('2014-11-12') AND d <= toDate('2015-11-12')");
  });

  test('$__dateTimeFilter(date, time) and its alias $__dt combine a day and a second filter', () => {
    const expected =
      "(d >= toDate('2014-11-12') AND d <= toDate('2015-11-12')) AND (t >= toDateTime(1415792726) AND t <= toDateTime(1447328726))";
    assert.equal(expandMacros('$__dateTimeFilter(d, t)', ctx), expected);
    assert.equal(expandMacros('$__dt(d,t)', ctx), expected);
  });

  test('$__timeInterval(col) buckets by the panel interval in whole seconds', () => {
    assert.equal(
      expandMacros('$__timeInterval(start_time)', ctx),
      'toStartOfInterval(toDateTime(start_time), INTERVAL 30 second)',
    );
  });

  test('$__timeInterval never uses an interval below one second', () => {
    assert.equal(
      expandMacros('$__timeInterval(t)', { ...ctx, intervalMs: 200 }),
      'toStartOfInterval(toDateTime(t), INTERVAL 1 second)',
    );
  });

  test('$__timeInterval_ms(col) buckets in milliseconds on a DateTime64(3)', () => {
    assert.equal(
      expandMacros('$__timeInterval_ms(t)', { ...ctx, intervalMs: 1500 }),
      'toStartOfInterval(toDateTime64(t, 3), INTERVAL 1500 millisecond)',
    );
  });

  test('$__interval_s is the interval in whole seconds', () => {
    assert.equal(expandMacros('count() / $__interval_s', { ...ctx, intervalMs: 300_000 }), 'count() / 300');
  });

  test('a macro argument keeps nested parentheses and commas whole (sqlutil parseArgs)', () => {
    assert.equal(
      expandMacros('$__timeFilter(toDateTime64(x, 3))', ctx),
      'toDateTime64(x, 3) >= toDateTime(1415792726) AND toDateTime64(x, 3) <= toDateTime(1447328726)',
    );
  });

  test('a macro takes arguments only when ( follows its name at once', () => {
    assert.equal(expandMacros('$__fromTime (1)', ctx), 'toDateTime(1415792726) (1)');
  });

  test('a macro name is matched on a word boundary, so $__timeFilter does not eat $__timeFilter_ms', () => {
    assert.match(
      expandMacros('$__timeFilter_ms(t) AND $__timeFilter(t)', ctx),
      /fromUnixTimestamp64Milli.*toDateTime\(/,
    );
  });

  test('a wrong argument count fails like the plugin (bad argument count)', () => {
    assert.throws(() => expandMacros('$__timeFilter(a, b)', ctx), MacroError);
    assert.throws(() => expandMacros('$__timeFilter', ctx), MacroError);
  });

  test('an unknown macro is an error rather than SQL ClickHouse would reject later', () => {
    assert.throws(() => expandMacros('$__timeGroupAlias(t)', ctx), /unknown macro/);
  });

  test('a missing closing bracket is an error', () => {
    assert.throws(() => expandMacros('$__timeFilter(t', ctx), /missing close bracket/);
  });
});

describe('$__conditionalAll expands like the plugin frontend', () => {
  const sql = 'WHERE $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)';

  test('keeps the condition for a concrete selection', () => {
    assert.equal(applyConditionalAll(sql, { tenant: { value: 'acme' } }), 'WHERE tenant IN (${tenant:singlequote})');
  });

  test('becomes 1=1 when All is selected (single or multi value)', () => {
    assert.equal(applyConditionalAll(sql, { tenant: { value: ALL } }), 'WHERE 1=1');
    assert.equal(applyConditionalAll(sql, { tenant: { value: [ALL] } }), 'WHERE 1=1');
  });

  test('becomes 1=1 for an empty selection', () => {
    assert.equal(applyConditionalAll(sql, { tenant: { value: '' } }), 'WHERE 1=1');
  });

  test('handles several occurrences, innermost last', () => {
    const two = '$__conditionalAll(a IN ($a), $a) AND $__conditionalAll(b IN ($b), $b)';
    assert.equal(applyConditionalAll(two, { a: { value: ALL }, b: { value: 'x' } }), '1=1 AND b IN ($b)');
  });

  test('only the $var form names the variable (the plugin strips one character)', () => {
    assert.equal(applyConditionalAll('$__conditionalAll(x IN ($t), ${t})', { t: { value: ALL } }), 'x IN ($t)');
  });
});

describe('template variables interpolate like Grafana with the plugin format', () => {
  const vars = { tenant: { value: 'acme', options: ['acme', 'globex'] }, tools: { value: ['a', "o'k"] } };

  test(':singlequote quotes one value and each of several, escaping quotes', () => {
    assert.equal(interpolateVariables('(${tenant:singlequote})', vars), "('acme')");
    assert.equal(interpolateVariables('(${tools:singlequote})', vars), "('a','o\\'k')");
  });

  test('the plugin default format leaves one value raw and joins several as quoted csv', () => {
    assert.equal(interpolateVariables("'$tenant'", vars), "'acme'");
    assert.equal(interpolateVariables('($tools)', vars), "('a','o'k')");
  });

  test('All expands to every option of the variable', () => {
    assert.equal(
      interpolateVariables('${tenant:singlequote}', { tenant: { value: ALL, options: ['acme', 'globex'] } }),
      "'acme','globex'",
    );
  });

  test('names that are not variables (macros) are left alone', () => {
    assert.equal(interpolateVariables('$__timeFilter(t) AND x = $unknown', vars), '$__timeFilter(t) AND x = $unknown');
  });
});

test('a panel query goes through conditionalAll, then variables, then backend macros', () => {
  const raw =
    'SELECT 1 FROM t WHERE $__timeFilter(ts) AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)';
  const one = renderPanelSql(raw, { ...ctx, variables: { tenant: { value: 'acme' } } });
  assert.equal(
    one,
    "SELECT 1 FROM t WHERE ts >= toDateTime(1415792726) AND ts <= toDateTime(1447328726) AND tenant IN ('acme')",
  );
  const all = renderPanelSql(raw, { ...ctx, variables: { tenant: { value: ALL, options: ['acme'] } } });
  assert.equal(all, 'SELECT 1 FROM t WHERE ts >= toDateTime(1415792726) AND ts <= toDateTime(1447328726) AND 1=1');
});
