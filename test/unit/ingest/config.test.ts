import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_GROUP_ID, DEFAULT_TOPIC, loadIngestConfig } from '../../../ingest/config.ts';

describe('ingest config', () => {
  it('defaults to the otlp_spans topic, the tooltrail-ingest group and the otlp_spans_dlq dead-letter topic', () => {
    const c = loadIngestConfig({}, {});
    assert.equal(c.kafka.topic, DEFAULT_TOPIC);
    assert.equal(c.kafka.groupId, DEFAULT_GROUP_ID);
    assert.equal(c.kafka.deadLetterTopic, 'otlp_spans_dlq');
    assert.equal(c.defaultTenant, undefined, 'spans without a tenant are dead-lettered unless configured');
  });

  it('serves metrics on loopback unless a host is configured, as a container needs', () => {
    assert.equal(loadIngestConfig({}, {}).metrics.host, '127.0.0.1');
    const c = loadIngestConfig({}, { TOOLTRAIL_INGEST_METRICS_PORT: '9464', TOOLTRAIL_INGEST_METRICS_HOST: '0.0.0.0' });
    assert.equal(c.metrics.host, '0.0.0.0');
    assert.equal(c.metrics.port, 9464);
  });

  it('lets flags win over the environment', () => {
    const c = loadIngestConfig(
      { topic: 'from-flag' },
      { TOOLTRAIL_INGEST_TOPIC: 'from-env', TOOLTRAIL_INGEST_BATCH_MAX_ROWS: '7' },
    );
    assert.equal(c.kafka.topic, 'from-flag');
    assert.equal(c.batch.maxRows, 7);
  });

  it('records audit digests unless switched off by flag or environment, and refuses a vague value', () => {
    assert.equal(loadIngestConfig({}, {}).auditDigests, true);
    assert.equal(loadIngestConfig({}, { TOOLTRAIL_INGEST_AUDIT_DIGESTS: 'false' }).auditDigests, false);
    assert.equal(loadIngestConfig({ auditDigests: false }, {}).auditDigests, false);
    assert.throws(
      () => loadIngestConfig({}, { TOOLTRAIL_INGEST_AUDIT_DIGESTS: 'no' }),
      /TOOLTRAIL_INGEST_AUDIT_DIGESTS/,
    );
  });

  it('looks for re-sent messages within 20,000 per partition unless the environment sets another window or 0', () => {
    assert.equal(loadIngestConfig({}, {}).dedupWindow, 20_000);
    assert.equal(loadIngestConfig({}, { TOOLTRAIL_INGEST_DEDUP_WINDOW: '0' }).dedupWindow, 0);
    assert.equal(loadIngestConfig({}, { TOOLTRAIL_INGEST_DEDUP_WINDOW: '500' }).dedupWindow, 500);
    assert.throws(() => loadIngestConfig({}, { TOOLTRAIL_INGEST_DEDUP_WINDOW: '-1' }), /ingest\.dedupWindow/);
    assert.throws(
      () => loadIngestConfig({}, { TOOLTRAIL_INGEST_DEDUP_WINDOW: 'lots' }),
      /TOOLTRAIL_INGEST_DEDUP_WINDOW/,
    );
  });

  it('reports every bad key at once, each by name', () => {
    assert.throws(
      () => loadIngestConfig({ topic: 'same', deadLetterTopic: 'same', maxRows: 0, database: 'bad-name' }, {}),
      (err: Error) =>
        /ingest\.kafka\.deadLetterTopic/.test(err.message) &&
        /ingest\.batch\.maxRows/.test(err.message) &&
        /ingest\.clickhouse\.database/.test(err.message),
    );
  });
});
