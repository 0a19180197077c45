/**
 * Every ClickHouse panel and variable of the committed dashboards, with macros expanded the way
 * grafana-clickhouse-datasource expands them and variables set (All, one value, several), runs against the real
 * schema filled with the scenario corpus (scenario.ts), returns what its panel type needs, and has data where the
 * scenario says there must be some.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ALL, type QueryContext, type VariableSelection } from '../../../dashboards/macros.ts';
import { type ClickHouseClient, createClickHouse } from '../../../platform/clickhouse.ts';
import { freshDatabase, services, type TestDatabase } from '../../../testkit/services.ts';
import {
  isClickHouse,
  type JsonDashboard,
  type JsonPanel,
  loadDashboards,
  type QueryResult,
  runPanelSql,
  shapeProblems,
  variableOptions,
  withOptions,
} from './panel-queries.ts';
import { CRITICAL_SESSION, type Scenario, writeScenario } from './scenario.ts';

const DAY_MS = 86_400_000;
// Whole minutes, so the range bounds are exact seconds as Grafana's are.
const NOW = new Date(Math.floor(Date.now() / 60_000) * 60_000);
// The pipeline panels filter on ingested_at (wall clock at insert, just after NOW): leave room for the setup.
const BASE: Omit<QueryContext, 'variables'> = {
  from: new Date(NOW.getTime() - 91 * DAY_MS),
  to: new Date(NOW.getTime() + 10 * 60_000),
  intervalMs: 3_600_000,
};

let db: TestDatabase;
let grafana: ClickHouseClient;
let scenario: Scenario;
const dashboards = loadDashboards();

before(async () => {
  db = await freshDatabase('tt_dashboards');
  scenario = await writeScenario(db, NOW);
  // What the provisioned datasource does: the default database, and a read-only session.
  grafana = createClickHouse({
    url: services.clickhouse.url,
    user: services.clickhouse.user,
    password: services.clickhouse.password,
    database: db.database,
    settings: { readonly: 2 },
  });
});

after(async () => {
  await grafana?.close();
  await db?.drop();
});

const all = (): VariableSelection => ({ value: [ALL] });

interface Selection {
  name: string;
  variables: Record<string, VariableSelection>;
  /** Every panel must return rows under this selection (the scenario has data for each). */
  expectData: boolean;
  /** Row values that must belong to the selection, by result column. */
  restrict?: Record<string, readonly string[]>;
}

const FILTERED: Selection[] = [
  { name: 'tenant=All agent=All tool=All', variables: { tenant: all(), agent: all(), tool: all() }, expectData: true },
  {
    name: 'tenant=acme (single) agent=All tool=All',
    variables: { tenant: { value: 'acme' }, agent: all(), tool: all() },
    expectData: true,
    restrict: { tenant: ['acme'] },
  },
  {
    name: 'tenant=acme,globex (multi) agent=cleanup-agent tool=All',
    variables: { tenant: { value: ['acme', 'globex'] }, agent: { value: ['cleanup-agent'] }, tool: all() },
    expectData: false,
    restrict: { tenant: ['acme', 'globex'], agent: ['cleanup-agent'] },
  },
  {
    name: 'tenant=globex agent=report-agent tool=close_tickets',
    variables: {
      tenant: { value: ['globex'] },
      agent: { value: ['report-agent'] },
      tool: { value: ['close_tickets'] },
    },
    expectData: false,
    restrict: { tenant: ['globex'], agent: ['report-agent'], tool: ['close_tickets'] },
  },
];

const SESSION: Selection[] = [
  {
    name: `tenant=acme session=${CRITICAL_SESSION}`,
    variables: { tenant: { value: 'acme' }, session: { value: CRITICAL_SESSION } },
    expectData: true,
    restrict: { tenant: ['acme'] },
  },
  {
    name: `tenant=All session=${CRITICAL_SESSION} (a link that only knows the session)`,
    variables: { tenant: { value: ALL }, session: { value: CRITICAL_SESSION } },
    expectData: true,
    restrict: { tenant: ['acme'] },
  },
  {
    name: 'tenant=globex session=globex-s-unknown',
    variables: { tenant: { value: 'globex' }, session: { value: 'globex-s-unknown' } },
    expectData: false,
  },
];

function selectionsFor(d: JsonDashboard): Selection[] {
  const names = (d.templating?.list ?? []).map((v) => v.name);
  if (names.length === 0) return [{ name: 'no variables', variables: {}, expectData: true }];
  return names.includes('session') ? SESSION : FILTERED;
}

function clickhousePanels(d: JsonDashboard): JsonPanel[] {
  return d.panels.filter((p) => p.targets?.some((t) => isClickHouse(t.datasource)));
}

// Variable options depend on the dashboard and the selection only: computed once per pair, as Grafana does.
const optionsCache = new Map<string, Promise<Map<string, string[]>>>();

async function runPanel(d: JsonDashboard, panel: JsonPanel, s: Selection): Promise<QueryResult> {
  const key = `${d.uid}|${JSON.stringify(s.variables)}`;
  if (!optionsCache.has(key)) optionsCache.set(key, variableOptions(grafana, d, BASE, s.variables));
  const options = await optionsCache.get(key)!;
  const target = panel.targets!.find((t) => isClickHouse(t.datasource))!;
  return runPanelSql(grafana, target.rawSql!, { ...BASE, variables: withOptions(s.variables, options) });
}

test('the scenario went through the real path and the evaluator found what it should', () => {
  assert.ok(scenario.spans > 100, `only ${scenario.spans} spans stored`);
  assert.ok(scenario.evaluation.found >= 3, `the evaluator found ${scenario.evaluation.found} findings`);
});

for (const [file, d] of dashboards) {
  describe(`${file}: every ClickHouse variable query`, () => {
    test('returns one column of options, with data for the scenario', async () => {
      const options = await variableOptions(grafana, d, BASE, { tenant: all(), agent: all(), tool: all() });
      for (const [name, values] of options) assert.ok(values.length > 0, `variable ${name} has no options`);
      if (options.has('tenant')) assert.deepEqual(options.get('tenant'), ['acme', 'globex']);
    });
  });

  for (const s of selectionsFor(d)) {
    describe(`${file} [${s.name}]`, () => {
      for (const panel of clickhousePanels(d)) {
        test(`${panel.title} (${panel.type}) runs and returns what the panel needs`, async () => {
          const result = await runPanel(d, panel, s);
          assert.deepEqual(shapeProblems(panel, result), [], result.sql);
          if (s.expectData) assert.ok(result.rows.length > 0, `no rows; the scenario has data for it\n${result.sql}`);
          for (const [column, allowed] of Object.entries(s.restrict ?? {})) {
            if (!result.meta.some((c) => c.name === column)) continue;
            for (const row of result.rows) {
              assert.ok(allowed.includes(String(row[column])), `${column}=${row[column]} is outside the selection`);
            }
          }
        });
      }
    });
  }
}

describe('the panels answer the on-call questions for the scenario', () => {
  const ALL_VARS = { tenant: all(), agent: all(), tool: all() };
  const panel = (file: string, title: string): [JsonDashboard, JsonPanel] => {
    const d = dashboards.get(file);
    const p = d?.panels.find((x) => x.title === title);
    assert.ok(d && p, `${file} has no panel "${title}"`);
    return [d, p];
  };
  const rows = async (file: string, title: string, variables: Record<string, VariableSelection> = ALL_VARS) => {
    const [d, p] = panel(file, title);
    return (await runPanel(d, p, { name: 'check', variables, expectData: false })).rows;
  };

  test('counts exactly the incomplete-and-empty reads as dangerous (unknown completeness included)', async () => {
    const [total] = await rows('completeness-overview.json', 'Dangerous empty reads');
    assert.equal(Number(total?.dangerous_empty_reads), 2);
    const [acme] = await rows('completeness-overview.json', 'Dangerous empty reads', {
      ...ALL_VARS,
      tenant: { value: 'acme' },
    });
    assert.equal(Number(acme?.dangerous_empty_reads), 1);
  });

  test('shows every guard decision, and mutations with no guard apart', async () => {
    const decisions = new Set(
      (await rows('completeness-overview.json', 'Guard decisions on mutations')).map((r) => r.decision),
    );
    for (const d of ['allowed', 'refused', 'review_requested']) assert.ok(decisions.has(d), `missing ${d}`);
  });

  test('counts a read that said nothing about completeness under COMPLETENESS_UNKNOWN', async () => {
    const reasons = new Set(
      (await rows('completeness-overview.json', 'Incomplete read rate by reason')).map((r) => r.reason),
    );
    for (const r of ['COMPLETENESS_UNKNOWN', 'MORE_PAGES_AVAILABLE', 'CLIENT_LIMIT_REACHED'])
      assert.ok(reasons.has(r), r);
  });

  test('lists the critical finding with its session, tool, reasons, target count and missing owner', async () => {
    const findings = await rows('mutations-after-incomplete-reads.json', 'Findings');
    const critical = findings.find((f) => f.session_id === CRITICAL_SESSION);
    assert.ok(critical, 'the absence-based delete after an empty incomplete read is listed');
    assert.equal(critical.severity, 'critical');
    assert.equal(critical.tool, 'delete_service_accounts');
    assert.equal(Number(critical.target_count), 120);
    assert.match(String(critical.reasons), /MORE_PAGES_AVAILABLE/);
    assert.equal(critical.owner, 'UNOWNED');
    assert.ok(!findings.some((f) => f.session_id === 'acme-s-clean'), 'a mutation on complete evidence is no finding');
  });

  test('shows active warnings with owner and state, and hides retired ones', async () => {
    const active = await rows('warning-lifecycle.json', 'Active warnings');
    const byKey = new Map(active.map((r) => [`${r.code}/${r.source}`, r]));
    assert.equal(byKey.get('PARTIAL_FIELD_SET/api.tickets')?.owner, 'UNOWNED');
    assert.equal(byKey.get('DEFAULT_SCOPE_APPLIED/api.accounts')?.owner, 'team-identity');
    assert.equal(byKey.get('DEFAULT_SCOPE_APPLIED/api.accounts')?.state, 'acknowledged');
    assert.ok(Number(byKey.get('PARTIAL_FIELD_SET/api.tickets')?.age_days) >= 60);
    assert.ok(byKey.has('STALE_INDEX/idx-accounts'));
    assert.ok(!byKey.has('SORT_OVERRIDDEN/api.legacy'), 'a retired warning is not active');
  });

  test('puts the persistent unowned warning on the escalation list, and not the owned one', async () => {
    const list = await rows('warning-lifecycle.json', 'Escalation list: persistent unowned warnings');
    const keys = list.map((r) => `${r.code}/${r.source}`);
    assert.ok(keys.includes('PARTIAL_FIELD_SET/api.tickets'), keys.join(', '));
    assert.ok(!keys.includes('DEFAULT_SCOPE_APPLIED/api.accounts'));
  });

  test('charts retirements and acknowledgements', async () => {
    const states = new Set((await rows('warning-lifecycle.json', 'Retired and acknowledged')).map((r) => r.state));
    assert.deepEqual([...states].sort(), ['acknowledged', 'retired']);
  });

  test('reconstructs the session a finding links to, in order, with what it could not see', async () => {
    const vars = { tenant: { value: 'acme' }, session: { value: CRITICAL_SESSION } };
    const calls = await rows('session-reconstruction.json', 'Tool calls, in order', vars);
    assert.deepEqual(
      calls.map((c) => [c.tool, c.effect]),
      [
        ['list_service_accounts', 'read'],
        ['delete_service_accounts', 'mutation'],
      ],
    );
    const blind = await rows('session-reconstruction.json', 'What the agent could not see', vars);
    assert.equal(blind.length, 1);
    assert.equal(blind[0]?.reasons, 'MORE_PAGES_AVAILABLE');
  });
});
