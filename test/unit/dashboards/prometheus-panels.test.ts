/**
 * The pipeline dashboard's Prometheus panels query series the collector and the ingest really export: every
 * metric name exists in what their /metrics renders, counters are only read through rate()/increase(), and
 * gauges are never rate()d. (No Prometheus runs here; this checks the queries against the exporters' own code.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CollectorMetrics } from '../../../collector/metrics.ts';
import { PROMETHEUS } from '../../../dashboards/datasources.ts';
import { JSON_DIR } from '../../../dashboards/generate.ts';
import { IngestMetrics } from '../../../ingest/metrics.ts';

interface Panel {
  title: string;
  targets?: Array<{ datasource?: { uid?: string }; expr?: string }>;
}

/** metric name -> Prometheus type, from the `# TYPE` lines the exporters render. */
async function exportedTypes(): Promise<Map<string, string>> {
  const text = `${await new CollectorMetrics({ tenantLabels: true }).render()}\n${await new IngestMetrics().render()}`;
  const types = new Map<string, string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(m[1]!, m[2]!);
  return types;
}

const dashboard = JSON.parse(readFileSync(join(JSON_DIR, 'pipeline-health.json'), 'utf8')) as { panels: Panel[] };
const queries = dashboard.panels.flatMap((p) =>
  (p.targets ?? [])
    .filter((t) => t.datasource?.uid === PROMETHEUS.uid)
    .map((t) => ({ panel: p.title, expr: t.expr ?? '' })),
);

test('the pipeline dashboard has Prometheus panels for the collector and the ingest', () => {
  assert.ok(queries.some((q) => q.expr.includes('tooltrail_collector_')));
  assert.ok(queries.some((q) => q.expr.includes('tooltrail_ingest_')));
});

test('every metric a Prometheus panel queries is exported by the collector or the ingest', async () => {
  const types = await exportedTypes();
  for (const { panel, expr } of queries) {
    const names = [...expr.matchAll(/\btooltrail_[a-z_]+\b/g)].map((m) => m[0]);
    assert.ok(names.length > 0, `${panel}: ${expr} queries no tooltrail metric`);
    for (const name of names) {
      const base = name.replace(/_(bucket|sum|count)$/, '');
      assert.ok(types.has(name) || types.get(base) === 'histogram', `${panel}: ${name} is not exported`);
    }
  }
});

test('counters are read through rate() or increase(), gauges never are', async () => {
  const types = await exportedTypes();
  for (const { panel, expr } of queries) {
    for (const m of expr.matchAll(/\btooltrail_[a-z_]+\b/g)) {
      const before = expr.slice(0, m.index);
      const wrapped = /(rate|increase)\($/.test(before);
      const type = types.get(m[0]);
      if (type === 'counter') assert.ok(wrapped, `${panel}: counter ${m[0]} used raw in ${expr}`);
      if (type === 'gauge') assert.ok(!wrapped, `${panel}: gauge ${m[0]} rate()d in ${expr}`);
    }
  }
});

test("range vectors use Grafana's $__rate_interval or $__range, never a hard-coded window", () => {
  for (const { panel, expr } of queries) {
    for (const m of expr.matchAll(/\[([^\]]+)\]/g)) {
      assert.ok(['$__rate_interval', '$__range'].includes(m[1]!), `${panel}: window [${m[1]}]`);
    }
  }
});
