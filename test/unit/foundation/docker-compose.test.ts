import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';

interface ComposeService {
  image?: string;
  healthcheck?: { test: unknown };
  volumes?: string[];
  environment?: Record<string, unknown>;
}
// Compose resolves YAML merge keys (`<<: *tooltrail`), so the test does too.
const compose = parse(readFileSync(resolve(import.meta.dirname, '../../../docker-compose.yml'), 'utf8'), {
  merge: true,
}) as {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
};

test('docker-compose names Kafka, ClickHouse, Grafana and Alertmanager from their official images', () => {
  const images: Record<string, RegExp> = {
    kafka: /^apache\/kafka:/,
    clickhouse: /^clickhouse\/clickhouse-server:/,
    grafana: /^grafana\/grafana:/,
    alertmanager: /^prom\/alertmanager:/,
  };
  for (const [name, image] of Object.entries(images)) {
    assert.match(compose.services[name]?.image ?? '', image, `${name} image`);
  }
});

test('every infrastructure service has a health check and a named volume for its data', () => {
  for (const name of ['kafka', 'clickhouse', 'grafana', 'alertmanager']) {
    const s = compose.services[name]!;
    assert.ok(s.healthcheck?.test, `${name} has no healthcheck`);
    const named = (s.volumes ?? []).map((v) => v.split(':')[0]!).filter((v) => !v.startsWith('.'));
    assert.ok(named.length > 0 && named.every((v) => v in compose.volumes), `${name} needs a declared named volume`);
  }
});

test('grafana installs the ClickHouse datasource plugin', () => {
  assert.match(String(compose.services.grafana?.environment?.GF_INSTALL_PLUGINS), /grafana-clickhouse-datasource/);
});

test("tooltrail's own services run from the project's Dockerfile, after the schema migration and the broker", () => {
  const own = compose.services as Record<
    string,
    ComposeService & { build?: string; command?: string[]; depends_on?: Record<string, { condition: string }> }
  >;
  for (const name of ['migrate', 'collector', 'ingest', 'alerts']) {
    assert.equal(own[name]?.build, '.', `${name} builds from the Dockerfile`);
  }
  assert.deepEqual(own.migrate?.command, ['migrate']);
  assert.equal(own.ingest?.depends_on?.migrate?.condition, 'service_completed_successfully');
  assert.equal(own.alerts?.depends_on?.migrate?.condition, 'service_completed_successfully');
  assert.equal(own.collector?.depends_on?.kafka?.condition, 'service_healthy');
  assert.equal(own.ingest?.depends_on?.kafka?.condition, 'service_healthy');
  assert.ok(own.collector?.healthcheck && own.ingest?.healthcheck, 'collector and ingest have health checks');
});

test('the collector in compose requires tokens: no unauthenticated collector on a network', () => {
  const env = compose.services.collector?.environment ?? {};
  assert.match(String(env.TOOLTRAIL_COLLECTOR_TOKENS), /^\$\{TOOLTRAIL_COLLECTOR_TOKENS:\?/);
});

test('the ingest in compose requires a checkpoint key: the audit log it writes is signed', () => {
  const env = compose.services.ingest?.environment ?? {};
  assert.match(String(env.TOOLTRAIL_CHECKPOINT_KEY), /^\$\{TOOLTRAIL_CHECKPOINT_KEY:\?/);
});

test('every command the compose services run exists in the tooltrail CLI', async () => {
  const { spawnSync } = await import('node:child_process');
  const help = spawnSync(process.execPath, [resolve(import.meta.dirname, '../../../bin/tooltrail.js'), '--help'], {
    encoding: 'utf8',
  });
  for (const name of ['migrate', 'collector', 'ingest', 'alerts']) {
    const cmd = (compose.services[name] as { command?: string[] }).command?.[0];
    assert.ok(cmd && new RegExp(`^  ${cmd}\\b`, 'm').test(help.stdout), `${name}: "${cmd}" is not a tooltrail command`);
  }
});

test('every file or folder compose mounts from the repository exists', async () => {
  const { existsSync } = await import('node:fs');
  for (const [name, s] of Object.entries(compose.services)) {
    for (const v of s.volumes ?? []) {
      const src = v.split(':')[0]!;
      if (src.startsWith('.'))
        assert.ok(existsSync(resolve(import.meta.dirname, '../../..', src)), `${name} mounts missing ${src}`);
    }
  }
});
