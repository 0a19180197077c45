import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { loadCollectorConfig } from '../../../collector/config.ts';
import { loadIngestConfig, validateIngestConfig } from '../../../ingest/config.ts';
import { ConfigError, loadConnectionSettings } from '../../../platform/connections.ts';
import { explainKafkaError, KafkaConnectError } from '../../../platform/kafka/errors.ts';
import { Secret } from '../../../platform/secret.ts';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '../../../bin/tooltrail.js');
const PASSWORD = 'Sasl-Pw-0c7e55aa';
const dir = mkdtempSync(join(tmpdir(), 'tt-kafka-security-'));
const caFile = join(dir, 'ca.pem');
writeFileSync(caFile, 'not checked here: the broker test reads real ones\n');
const TOKENS = { TOOLTRAIL_COLLECTOR_TOKENS: 'token-a-0123456789abcdef=tenant-a' };

const problemsOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a configuration error');
};

describe('Kafka TLS and SASL settings (platform/kafka/security.ts)', () => {
  it('the environment gives TLS with a CA and SASL SCRAM; the CA alone turns TLS on', () => {
    const { security } = loadConnectionSettings({
      TOOLTRAIL_KAFKA_TLS_CA_FILE: caFile,
      TOOLTRAIL_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      TOOLTRAIL_KAFKA_SASL_USERNAME: 'ingest',
      TOOLTRAIL_KAFKA_SASL_PASSWORD: PASSWORD,
    }).kafka;
    assert.equal(security.tls.enabled, true);
    assert.equal(security.tls.caFile, caFile);
    assert.equal(security.sasl.mechanism, 'scram-sha-512');
    assert.equal(security.sasl.password.reveal(), PASSWORD);
  });

  it('the password can come from a file (a mounted secret), its final newline dropped', () => {
    const file = join(dir, 'password');
    writeFileSync(file, `${PASSWORD}\n`);
    const { security } = loadConnectionSettings({
      TOOLTRAIL_KAFKA_SASL_MECHANISM: 'plain',
      TOOLTRAIL_KAFKA_SASL_USERNAME: 'u',
      TOOLTRAIL_KAFKA_SASL_PASSWORD_FILE: file,
    }).kafka;
    assert.equal(security.sasl.password.reveal(), PASSWORD);
  });

  it('every problem is reported at once, each naming its variable', () => {
    const message = problemsOf(() =>
      loadConnectionSettings({
        TOOLTRAIL_KAFKA_TLS: 'yes',
        TOOLTRAIL_KAFKA_TLS_CA_FILE: join(dir, 'missing.pem'),
        TOOLTRAIL_KAFKA_TLS_CERT_FILE: caFile,
        TOOLTRAIL_KAFKA_SASL_MECHANISM: 'gssapi',
      }),
    );
    for (const key of [
      'TOOLTRAIL_KAFKA_TLS:',
      'TOOLTRAIL_KAFKA_TLS_CA_FILE: cannot read',
      'TOOLTRAIL_KAFKA_TLS_KEY_FILE: a client certificate needs both',
      'TOOLTRAIL_KAFKA_SASL_MECHANISM: must be one of',
    ]) {
      assert.ok(message.includes(key), `${key} in: ${message}`);
    }
    const missing = problemsOf(() => loadConnectionSettings({ TOOLTRAIL_KAFKA_SASL_MECHANISM: 'scram-sha-256' }));
    assert.match(missing, /TOOLTRAIL_KAFKA_SASL_USERNAME: must not be empty with SASL SCRAM-SHA-256/);
    assert.match(missing, /TOOLTRAIL_KAFKA_SASL_PASSWORD: must not be empty/);
  });

  it('the password is never printed: settings as JSON, inspected, or in a configuration error', () => {
    const env = {
      TOOLTRAIL_KAFKA_SASL_MECHANISM: 'plain',
      TOOLTRAIL_KAFKA_SASL_USERNAME: 'u',
      TOOLTRAIL_KAFKA_SASL_PASSWORD: PASSWORD,
      TOOLTRAIL_CLICKHOUSE_PASSWORD: `${PASSWORD}-ch`,
    };
    const settings = loadConnectionSettings(env);
    for (const printed of [
      JSON.stringify(settings),
      inspect(settings, { depth: 10 }),
      `${settings.kafka.security.sasl.password}`,
    ]) {
      assert.ok(!printed.includes(PASSWORD), printed);
    }
    const collector = loadCollectorConfig({ env: { ...env, ...TOKENS } });
    assert.ok(!JSON.stringify(collector).includes(PASSWORD));
    assert.ok(!inspect(collector, { depth: 10 }).includes(PASSWORD));
    const bad = problemsOf(() => loadConnectionSettings({ ...env, TOOLTRAIL_KAFKA_PORT: 'x' }));
    assert.ok(!bad.includes(PASSWORD));
    assert.ok(!inspect(loadIngestConfig({}, env), { depth: 10 }).includes(PASSWORD));
  });

  it('`--help` of every command prints no password from the environment', () => {
    for (const command of [[], ['collector'], ['ingest'], ['up']]) {
      const r = spawnSync(process.execPath, [CLI, ...command, '--help'], {
        env: { ...process.env, TOOLTRAIL_KAFKA_SASL_PASSWORD: PASSWORD, TOOLTRAIL_CLICKHOUSE_PASSWORD: PASSWORD },
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
      assert.ok(!`${r.stdout}${r.stderr}`.includes(PASSWORD), command.join(' '));
    }
  });
});

describe('collector and ingest Kafka security keys', () => {
  it("a config file's kafka.sasl.password is held as a Secret; problems name collector.kafka.* keys", () => {
    const file = join(dir, 'collector.yaml');
    writeFileSync(
      file,
      `collector:\n  kafka:\n    tls: { enabled: false, caFile: ${caFile} }\n    sasl: { mechanism: scram-sha-256, password: ${PASSWORD} }\n`,
    );
    const message = problemsOf(() => loadCollectorConfig({ file, env: { ...TOKENS } }));
    assert.match(message, /collector\.kafka\.tls\.caFile: is set but TLS is off \(collector\.kafka\.tls\.enabled\)/);
    assert.match(message, /collector\.kafka\.sasl\.username: must not be empty with SASL SCRAM-SHA-256/);
    assert.ok(!message.includes(PASSWORD));
    writeFileSync(file, `collector:\n  kafka:\n    sasl: { mechanism: plain, username: u, password: ${PASSWORD} }\n`);
    const config = loadCollectorConfig({ file, env: { ...TOKENS } });
    assert.ok(config.kafka.sasl.password instanceof Secret);
    assert.equal(config.kafka.sasl.password.reveal(), PASSWORD);
  });

  it('HTTPS needs both http.tls.certFile and keyFile, and client certificates need HTTPS', () => {
    const message = problemsOf(() =>
      loadCollectorConfig({
        env: { ...TOKENS },
        overrides: { http: { tls: { keyFile: caFile, clientCaFile: caFile } } },
      }),
    );
    assert.match(message, /collector\.http\.tls\.certFile: HTTPS needs both/);
    assert.match(message, /collector\.http\.tls\.clientCaFile: client certificates need HTTPS/);
  });

  it('the ingest names ingest.kafka.* keys', () => {
    const base = loadIngestConfig({}, {});
    const message = problemsOf(() =>
      validateIngestConfig({
        ...base,
        kafka: { ...base.kafka, sasl: { mechanism: 'plain', username: '', password: new Secret(PASSWORD) } },
      }),
    );
    assert.match(message, /ingest\.kafka\.sasl\.username: must not be empty with SASL PLAIN/);
    assert.ok(!message.includes(PASSWORD));
  });
});

describe('Kafka connection errors explained (platform/kafka/errors.ts)', () => {
  it('a SASL refusal names the mechanism as users configure it', () => {
    // The client's refusal: an authentication error that names no mechanism, the broker's answer as its cause.
    const err = Object.assign(new Error('SASL authentication failed.'), {
      code: 'PLT_KFK_AUTHENTICATION',
      cause: new Error('Authentication failed during authentication due to invalid credentials with SASL mechanism'),
    });
    const explained = explainKafkaError(err, 'SCRAM-SHA-256');
    assert.ok(explained instanceof KafkaConnectError);
    assert.equal(explained.reason, 'sasl_authentication_failed');
    assert.match(explained.message, /SASL SCRAM-SHA-256/);
    assert.match(explained.message, /invalid credentials/);
  });

  it('an untrusted broker certificate points at the CA setting; other errors pass unchanged', () => {
    const err = new Error('Connection error: unable to verify the first certificate');
    const explained = explainKafkaError(err);
    assert.ok(explained instanceof KafkaConnectError && explained.reason === 'tls_untrusted_broker');
    const other = new Error('Connection error: connect ECONNREFUSED 127.0.0.1:9092');
    assert.equal(explainKafkaError(other), other);
  });
});

describe('configuration errors keep their type', () => {
  it('a bad connection key is a ConfigError', () => {
    assert.throws(() => loadConnectionSettings({ TOOLTRAIL_KAFKA_TLS: 'maybe' }), ConfigError);
  });
});
