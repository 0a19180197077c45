import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  CollectorConfigError,
  DEFAULT_PORT,
  DEFAULT_TOPIC,
  defaultCollectorConfig,
  loadCollectorConfig,
  validateCollectorConfig,
} from '../../../collector/config.ts';

const TOKENS = { TOOLTRAIL_COLLECTOR_TOKENS: 'aaaaaaaaaaaaaaaa=acme,bbbbbbbbbbbbbbbb=globex' };

describe('collector configuration', () => {
  it('defaults to OTLP port 4318, topic otlp_spans, bearer auth on loopback', () => {
    const c = loadCollectorConfig({ env: TOKENS });
    assert.equal(c.http.port, DEFAULT_PORT);
    assert.equal(c.http.port, 4318);
    assert.equal(c.http.host, '127.0.0.1');
    assert.equal(c.kafka.topic, DEFAULT_TOPIC);
    assert.equal(c.kafka.topic, 'otlp_spans');
    assert.equal(c.auth.mode, 'bearer');
    assert.deepEqual(c.auth.tokens, [
      { token: 'aaaaaaaaaaaaaaaa', tenant: 'acme' },
      { token: 'bbbbbbbbbbbbbbbb', tenant: 'globex' },
    ]);
  });

  it('names every malformed token pair at once, by position, without echoing a token', () => {
    assert.throws(
      () => loadCollectorConfig({ env: { TOOLTRAIL_COLLECTOR_TOKENS: 'aaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbb=globex,=x' } }),
      (err: unknown) =>
        err instanceof CollectorConfigError &&
        /TOOLTRAIL_COLLECTOR_TOKENS\.0: "aaaa…" is not token=tenant/.test(err.message) &&
        /TOOLTRAIL_COLLECTOR_TOKENS\.2: "=x…" is not token=tenant/.test(err.message) &&
        !err.message.includes('aaaaaaaaaaaaaaaa'),
    );
  });

  it('reports every problem at once, each naming its exact key', () => {
    const c = defaultCollectorConfig({});
    const problems = validateCollectorConfig({
      ...c,
      http: { ...c.http, port: 70_000 },
      kafka: { ...c.kafka, topic: '' },
      limits: { ...c.limits, maxBodyBytes: -1 },
    });
    assert.equal(problems.length, 3, problems.join('\n'));
    assert.ok(problems.some((p) => p.startsWith('collector.http.port:')));
    assert.ok(problems.some((p) => p.startsWith('collector.kafka.topic: must not be empty')));
    assert.ok(problems.some((p) => p.startsWith('collector.limits.maxBodyBytes:')));
  });

  it('refuses bearer auth without tokens, naming the key and the variable to set', () => {
    assert.throws(
      () => loadCollectorConfig({ env: {} }),
      (e: CollectorConfigError) =>
        e.problems.some((p) => /^collector\.auth\.tokens: .*TOOLTRAIL_COLLECTOR_TOKENS/.test(p)),
    );
  });

  it('refuses no-auth mode on a non-loopback address', () => {
    assert.throws(
      () => loadCollectorConfig({ env: {}, overrides: { auth: { mode: 'none' }, http: { host: '0.0.0.0' } } }),
      (e: CollectorConfigError) => e.problems.some((p) => p.startsWith('collector.http.host:')),
    );
    assert.equal(loadCollectorConfig({ env: {}, overrides: { auth: { mode: 'none' } } }).auth.mode, 'none');
  });

  it('refuses unknown keys, short tokens and a malformed token list', () => {
    const c = defaultCollectorConfig({});
    const problems = validateCollectorConfig({
      ...c,
      auth: { ...c.auth, tokens: [{ token: 'short', tenant: 'has space' }] },
      kafak: {},
    });
    assert.ok(problems.some((p) => p.startsWith('collector.auth.tokens.0.token:')));
    assert.ok(problems.some((p) => p.startsWith('collector.auth.tokens.0.tenant:')));
    assert.ok(problems.some((p) => p.startsWith('collector:') && p.includes('kafak')));
    assert.throws(
      () => loadCollectorConfig({ env: { TOOLTRAIL_COLLECTOR_TOKENS: 'no-equals-sign' } }),
      CollectorConfigError,
    );
  });

  it('reads the collector section of a YAML file, adds the environment tokens, and lets flags win', () => {
    const dir = mkdtempSync(join(tmpdir(), 'collector-config-'));
    try {
      const file = join(dir, 'tooltrail.yaml');
      writeFileSync(
        file,
        'collector:\n  http: { port: 14318 }\n  kafka: { topic: spans_from_file }\n  auth:\n    tokens:\n      - { token: cccccccccccccccc, tenant: initech }\n',
      );
      const c = loadCollectorConfig({ file, env: TOKENS, overrides: { kafka: { topic: 'spans_from_flag' } } });
      assert.equal(c.http.port, 14318);
      assert.equal(c.kafka.topic, 'spans_from_flag');
      assert.deepEqual(
        c.auth.tokens.map((t) => t.tenant),
        ['initech', 'acme', 'globex'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
