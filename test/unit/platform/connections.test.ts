import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConnectionSettings } from '../../../platform/connections.ts';

describe('connection settings (platform/connections.ts)', () => {
  it('a user-given broker list, ClickHouse URL and Alertmanager URL make those services external', () => {
    const s = loadConnectionSettings({
      TOOLTRAIL_KAFKA_BROKERS: 'k1:9092, k2:9092',
      TOOLTRAIL_CLICKHOUSE_URL: 'https://ch.example:8443',
      TOOLTRAIL_ALERTMANAGER_URL: 'http://am.example:9093',
    });
    assert.deepEqual(s.kafka.brokers, ['k1:9092', 'k2:9092']);
    assert.equal(s.kafka.mode, 'external');
    assert.equal(s.clickhouse.url, 'https://ch.example:8443');
    assert.equal(s.alertmanager.mode, 'external');
  });

  it('without them, the local services on the configured ports', () => {
    const s = loadConnectionSettings({ TOOLTRAIL_KAFKA_PORT: '21092', TOOLTRAIL_CLICKHOUSE_PORT: '21123' });
    assert.deepEqual(s.kafka.brokers, ['127.0.0.1:21092']);
    assert.equal(s.clickhouse.url, 'http://127.0.0.1:21123');
    assert.equal(s.clickhouse.mode, 'local');
    assert.equal(s.alertmanager.url, 'http://127.0.0.1:9193');
  });

  it('reports every bad key at once, each by name', () => {
    assert.throws(
      () => loadConnectionSettings({ TOOLTRAIL_KAFKA_PORT: '70000', TOOLTRAIL_CLICKHOUSE_URL: 'not a url' }),
      (err: unknown) =>
        err instanceof ConfigError &&
        /TOOLTRAIL_KAFKA_PORT/.test(err.message) &&
        /TOOLTRAIL_CLICKHOUSE_URL/.test(err.message),
    );
  });
});
