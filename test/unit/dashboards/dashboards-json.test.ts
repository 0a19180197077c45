/**
 * The committed dashboards and provisioning: what Grafana loads at start must parse, be exactly what the typed
 * builders generate, keep stable uids, reference only the provisioned datasources, and be mounted where the
 * provisioning files look for it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { SQL_DIR } from '../../../dashboards/clickhouse-query.ts';
import { CLICKHOUSE, PROMETHEUS } from '../../../dashboards/datasources.ts';
import { DASHBOARD_UIDS } from '../../../dashboards/definitions/common.ts';
import { DASHBOARDS, JSON_DIR, renderDashboards } from '../../../dashboards/generate.ts';

const ROOT = join(import.meta.dirname, '../../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Ref {
  type?: string;
  uid?: string;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: Ref;
  targets?: Array<{ refId: string; datasource?: Ref; rawSql?: string; expr?: string }>;
}
interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  annotations?: { list?: Array<{ datasource?: Ref }> };
  panels: Panel[];
  templating?: { list: Array<{ name: string; type: string; datasource?: Ref; query?: unknown }> };
}

const files = readdirSync(JSON_DIR).filter((f) => f.endsWith('.json'));
const parsed = new Map(files.map((f) => [f, JSON.parse(readFileSync(join(JSON_DIR, f), 'utf8')) as Dashboard]));

const provisionedDatasources = (
  parse(read('dashboards/provisioning/datasources/tooltrail.yaml')) as {
    datasources: Array<{ uid: string; type: string; jsonData: Record<string, unknown> }>;
  }
).datasources;

describe('dashboards/json', () => {
  test('holds exactly the generated dashboards, byte for byte (run npm run dashboards after a change)', () => {
    const generated = renderDashboards();
    assert.deepEqual(files.sort(), [...generated.keys()].sort());
    for (const [file, text] of generated) {
      assert.equal(readFileSync(join(JSON_DIR, file), 'utf8'), text, `${file} is stale`);
    }
  });

  test('every file parses as a dashboard with a title, panels and a current schema version', () => {
    for (const [file, d] of parsed) {
      assert.ok(d.title && Array.isArray(d.panels) && d.panels.length > 0, file);
      assert.ok(d.schemaVersion >= 39, `${file}: schemaVersion ${d.schemaVersion} predates Grafana 11`);
      // Grafana's dashboard model walks annotations.list on load; only its built-in annotation source is used.
      assert.ok(Array.isArray(d.annotations?.list), `${file}: annotations.list`);
      for (const a of d.annotations?.list ?? [])
        assert.deepEqual(a.datasource, { type: 'grafana', uid: '-- Grafana --' });
    }
  });

  test('every dashboard keeps its stable uid, unique across dashboards', () => {
    const uids = [...parsed.values()].map((d) => d.uid);
    assert.deepEqual(new Set(uids), new Set(Object.values(DASHBOARD_UIDS).filter((u) => uids.includes(u))));
    assert.equal(new Set(uids).size, uids.length);
    for (const uid of uids) assert.match(uid, /^[a-z0-9-]{1,40}$/, 'Grafana uids are at most 40 url-safe characters');
    assert.equal(parsed.get('completeness-overview.json')?.uid, DASHBOARD_UIDS.completeness);
    assert.equal(parsed.get('mutations-after-incomplete-reads.json')?.uid, DASHBOARD_UIDS.mutations);
    assert.equal(parsed.get('warning-lifecycle.json')?.uid, DASHBOARD_UIDS.warnings);
    assert.equal(parsed.get('session-reconstruction.json')?.uid, DASHBOARD_UIDS.session);
  });

  test('panel ids are unique within each dashboard', () => {
    for (const [file, d] of parsed) {
      const ids = d.panels.map((p) => p.id);
      assert.ok(
        ids.every((id) => Number.isInteger(id) && id > 0),
        `${file}: ids must be positive integers`,
      );
      assert.equal(new Set(ids).size, ids.length, `${file}: duplicate panel id`);
    }
  });

  test('panels sit inside the 24-column grid without overlapping', () => {
    for (const [file, d] of parsed) {
      const cells = new Set<string>();
      for (const p of d.panels) {
        const { x, y, w, h } = p.gridPos;
        assert.ok(x >= 0 && w > 0 && x + w <= 24 && y >= 0 && h > 0, `${file}: ${p.title} is off the grid`);
        for (let i = x; i < x + w; i++)
          for (let j = y; j < y + h; j++) {
            assert.ok(!cells.has(`${i},${j}`), `${file}: ${p.title} overlaps another panel`);
            cells.add(`${i},${j}`);
          }
      }
    }
  });

  test('every panel, query and variable references only a provisioned datasource', () => {
    const provisioned = new Set(provisionedDatasources.map((d) => `${d.type}/${d.uid}`));
    const key = (r: Ref | undefined) => `${r?.type}/${r?.uid}`;
    for (const [file, d] of parsed) {
      for (const p of d.panels) {
        assert.ok(provisioned.has(key(p.datasource)), `${file}: ${p.title} uses ${key(p.datasource)}`);
        assert.ok((p.targets ?? []).length > 0, `${file}: ${p.title} has no query`);
        for (const t of p.targets ?? []) {
          assert.ok(provisioned.has(key(t.datasource)), `${file}: ${p.title} query uses ${key(t.datasource)}`);
          assert.equal(key(t.datasource), key(p.datasource), `${file}: ${p.title} mixes datasources`);
        }
      }
      for (const v of d.templating?.list ?? []) {
        if (v.type === 'query') assert.ok(provisioned.has(key(v.datasource)), `${file}: variable ${v.name}`);
      }
    }
  });

  test('every ClickHouse query is SQL for the plugin: editor type sql, a query type and a format', () => {
    for (const [file, d] of parsed) {
      for (const p of d.panels) {
        for (const t of p.targets ?? []) {
          if (t.datasource?.uid !== CLICKHOUSE.uid) continue;
          const q = t as Record<string, unknown>;
          assert.equal(q.editorType, 'sql', `${file}: ${p.title}`);
          assert.equal(q.queryType, p.type === 'timeseries' ? 'timeseries' : 'table', `${file}: ${p.title}`);
          assert.equal(q.format, p.type === 'timeseries' ? 0 : 1, `${file}: ${p.title}`);
          assert.ok(typeof t.rawSql === 'string' && t.rawSql.length > 0);
        }
      }
    }
  });

  test('the agent-data dashboards filter by tenant, agent and tool: multi-select query variables with All', () => {
    const filtered: string[] = [DASHBOARD_UIDS.completeness, DASHBOARD_UIDS.mutations, DASHBOARD_UIDS.warnings];
    for (const [file, d] of parsed) {
      if (!filtered.includes(d.uid)) continue;
      for (const name of ['tenant', 'agent', 'tool']) {
        const v = (d.templating?.list ?? []).find((x) => x.name === name) as Record<string, unknown> | undefined;
        assert.ok(v, `${file}: no ${name} variable`);
        assert.equal(v.type, 'query');
        assert.equal(v.includeAll, true);
        assert.equal(v.multi, true);
        assert.match(String(v.query), /FROM tool_calls/);
      }
    }
  });

  test('every SQL file in dashboards/sql is used by a dashboard', () => {
    const all = [...parsed.values()].map((d) => JSON.stringify(d)).join('\n');
    const sqlFiles = readdirSync(SQL_DIR, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.sql'));
    assert.ok(sqlFiles.length > 0);
    for (const f of sqlFiles) {
      const body = readFileSync(join(SQL_DIR, f), 'utf8')
        .split('\n')
        .filter((l) => !l.startsWith('--'))
        .join('\n')
        .trim();
      assert.ok(all.includes(JSON.stringify(body).slice(1, -1)), `${f} is not used by any dashboard`);
    }
  });

  test('the generator registers every dashboard it writes', () => {
    assert.deepEqual(Object.keys(DASHBOARDS).sort(), files.sort());
  });
});

describe('provisioning', () => {
  const ds = provisionedDatasources.find((d) => d.uid === CLICKHOUSE.uid);

  test('the ClickHouse datasource uses the plugin over HTTP on 8123 as the read-only user', () => {
    assert.ok(ds, 'the ClickHouse datasource is provisioned');
    assert.equal(ds.type, 'grafana-clickhouse-datasource');
    assert.equal(ds.jsonData.protocol, 'http');
    assert.equal(ds.jsonData.port, 8123);
    const usersXml = read('dashboards/clickhouse/users.d/tooltrail-grafana.xml');
    assert.match(usersXml, new RegExp(`<${String(ds.jsonData.username)}>`), 'the user is the one users.d defines');
    assert.match(usersXml, /<readonly>2<\/readonly>/);
    assert.match(usersXml, new RegExp(`GRANT SELECT ON ${String(ds.jsonData.defaultDatabase)}\\.\\*`));
  });

  test('the password comes from the environment, never from the file', () => {
    const yaml = read('dashboards/provisioning/datasources/tooltrail.yaml');
    assert.match(yaml, /password: \$TOOLTRAIL_GRAFANA_CLICKHOUSE_PASSWORD/);
    assert.match(
      read('dashboards/clickhouse/users.d/tooltrail-grafana.xml'),
      /from_env="TOOLTRAIL_GRAFANA_CLICKHOUSE_PASSWORD"/,
    );
  });

  test('the Prometheus datasource uid matches the one the pipeline dashboard uses', () => {
    const prom = provisionedDatasources.find((d) => d.type === 'prometheus');
    if (![...parsed.values()].some((d) => JSON.stringify(d).includes(PROMETHEUS.uid))) return;
    assert.equal(prom?.uid, PROMETHEUS.uid);
  });

  test('docker-compose mounts the provisioning, the dashboards and the read-only user where they are read', () => {
    const compose = parse(read('docker-compose.yml')) as {
      services: Record<string, { volumes?: string[]; environment?: Record<string, string> }>;
    };
    const provider = parse(read('dashboards/provisioning/dashboards/tooltrail.yaml')) as {
      providers: Array<{ type: string; options: { path: string } }>;
    };
    const grafana = compose.services.grafana?.volumes ?? [];
    assert.ok(grafana.some((v) => v.startsWith('./dashboards/provisioning:/etc/grafana/provisioning')));
    assert.ok(grafana.some((v) => v.startsWith(`./dashboards/json:${provider.providers[0]?.options.path}`)));
    assert.ok(
      (compose.services.clickhouse?.volumes ?? []).some((v) =>
        v.startsWith('./dashboards/clickhouse/users.d/tooltrail-grafana.xml:/etc/clickhouse-server/users.d/'),
      ),
      'the ClickHouse server loads the read-only user',
    );
    for (const service of ['grafana', 'clickhouse']) {
      assert.ok(
        'TOOLTRAIL_GRAFANA_CLICKHOUSE_PASSWORD' in (compose.services[service]?.environment ?? {}),
        `${service} gets the datasource password`,
      );
    }
  });
});
