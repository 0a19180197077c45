/** The local broker's SASL_SSL listener as asked for (services up --kafka-sasl-ssl): its keys, its refusals. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadServicesConfig } from '../../../services/config.ts';
import { ServiceError } from '../../../services/errors.ts';
import { prepareLocalSaslSsl } from '../../../services/kafka/sasl-ssl.ts';

test('no SASL_SSL listener unless TOOLTRAIL_KAFKA_SASL_SSL=true; then on 9094 or TOOLTRAIL_KAFKA_SASL_SSL_PORT', () => {
  assert.equal(loadServicesConfig({}).kafka.saslSslPort, undefined);
  assert.equal(loadServicesConfig({ TOOLTRAIL_KAFKA_SASL_SSL: 'false' }).kafka.saslSslPort, undefined);
  assert.equal(loadServicesConfig({ TOOLTRAIL_KAFKA_SASL_SSL: 'true' }).kafka.saslSslPort, 9094);
  assert.equal(
    loadServicesConfig({ TOOLTRAIL_KAFKA_SASL_SSL: 'true', TOOLTRAIL_KAFKA_SASL_SSL_PORT: '29094' }).kafka.saslSslPort,
    29094,
  );
});

test('a bad TOOLTRAIL_KAFKA_SASL_SSL or port is refused naming each key', () => {
  assert.throws(
    () => loadServicesConfig({ TOOLTRAIL_KAFKA_SASL_SSL: 'yes', TOOLTRAIL_KAFKA_SASL_SSL_PORT: '70000' }),
    (err: Error) =>
      /TOOLTRAIL_KAFKA_SASL_SSL: must be true or false/.test(err.message) &&
      /TOOLTRAIL_KAFKA_SASL_SSL_PORT/.test(err.message),
  );
});

test('nothing is prepared (no certificate, no password) when no listener is asked for', () => {
  const home = mkdtempSync(join(tmpdir(), 'tooltrail-sasl-unit-'));
  try {
    assert.equal(prepareLocalSaslSsl(loadServicesConfig({ TOOLTRAIL_HOME: home })), undefined);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('refused for an external Kafka and for the replicated local cluster, before anything is made', () => {
  const home = mkdtempSync(join(tmpdir(), 'tooltrail-sasl-unit-'));
  try {
    const on = { TOOLTRAIL_HOME: home, TOOLTRAIL_KAFKA_SASL_SSL: 'true' };
    assert.throws(
      () => prepareLocalSaslSsl(loadServicesConfig({ ...on, TOOLTRAIL_KAFKA_BROKERS: 'kafka.example:9093' })),
      (err: unknown) => err instanceof ServiceError && /TOOLTRAIL_KAFKA_BROKERS/.test(err.message),
    );
    assert.throws(
      () => prepareLocalSaslSsl(loadServicesConfig({ ...on, TOOLTRAIL_KAFKA_BROKER_COUNT: '3' })),
      (err: unknown) => err instanceof ServiceError && /single local broker/.test(err.message),
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
