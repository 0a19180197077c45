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
const compose = parse(readFileSync(resolve(import.meta.dirname, '../../../docker-compose.yml'), 'utf8')) as {
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
