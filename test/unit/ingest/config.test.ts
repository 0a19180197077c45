import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_GROUP_ID, DEFAULT_TOPIC, IngestConfigError, loadIngestConfig } from '../../../ingest/config.ts';
import { emitterOptions } from '../../../ingest/emitters/options.ts';
import { ConfigError } from '../../../platform/config-error.ts';

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

  it('reads the tool policy file and the payload key for other emitters, and names a bad policy key as a config error', () => {
    const good = join(tmpdir(), `tt-ingest-policy-${process.pid}.yaml`);
    writeFileSync(good, 'tools:\n  list_accounts:\n    effect: read\n');
    const config = loadIngestConfig({ policyFile: good }, { TOOLTRAIL_PAYLOAD_HASH_KEY: 'k'.repeat(16) });
    const options = emitterOptions(config.emitters);
    assert.equal(options.policy?.tools.list_accounts?.effect, 'read');
    assert.equal(options.payloadHashKey, 'k'.repeat(16));
    assert.doesNotMatch(JSON.stringify(config), /kkkkkkkk/, 'the key prints redacted');
    assert.throws(
      () => loadIngestConfig({}, { TOOLTRAIL_PAYLOAD_HASH_KEY: 'short' }),
      /payloadHashKey: must be at least 16/,
    );

    const bad = join(tmpdir(), `tt-ingest-bad-policy-${process.pid}.yaml`);
    writeFileSync(bad, 'tools:\n  x:\n    effect: delete\n');
    assert.throws(
      () => emitterOptions(loadIngestConfig({ policyFile: bad }, {}).emitters),
      (err) =>
        err instanceof IngestConfigError &&
        err instanceof ConfigError &&
        /policyFile: .*tools\.x\.effect/.test(err.message),
    );
  });
});
