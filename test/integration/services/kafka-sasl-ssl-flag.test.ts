/**
 * `tooltrail services up --kafka-sasl-ssl` driven as a user would, on a private home and private ports (Kafka is
 * the only local service; the others point at the shared ones): the local broker serves SASL_SSL with certificates
 * and a password it made, says how to connect without printing the password, and a client connecting as told
 * (SCRAM-SHA-512, the CA it named, the password from its 0600 file) produces and reads back a message.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConnectionSettings } from '../../../platform/connections.ts';
import {
  createIdempotentProducer,
  createKafkaClient,
  describeCluster,
  ensureTopics,
  KAFKA_CLIENTS,
  KafkaConnectError,
  readTopic,
} from '../../../platform/kafka/index.ts';
import { Secret } from '../../../platform/secret.ts';
import { kafkaJarsDir } from '../../../services/kafka/kafka.ts';
import { freePortRun } from '../../../services/process.ts';
import { services, uniqueName } from '../../../testkit/services.ts';

const repo = resolve(import.meta.dirname, '../../..');

function cli(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [join(repo, 'bin/tooltrail.js'), ...args], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 180_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** KEY=value lines (comments and blanks skipped), as `set -a; . file` would export them. */
function envFileOf(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    if (m) env[m[1] as string] = m[2] as string;
  }
  return env;
}

describe('tooltrail services up --kafka-sasl-ssl (a real local broker with a SASL_SSL listener)', () => {
  let home: string;
  let env: Record<string, string>;
  let securePort: number;
  let first: ReturnType<typeof cli>;

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'tooltrail-sasl-flag-'));
    mkdirSync(join(home, 'cache'), { recursive: true });
    symlinkSync(kafkaJarsDir(services.home), kafkaJarsDir(home));
    const base = await freePortRun(3);
    securePort = base + 2;
    env = {
      TOOLTRAIL_HOME: home,
      TOOLTRAIL_KAFKA_PORT: String(base),
      TOOLTRAIL_KAFKA_CONTROLLER_PORT: String(base + 1),
      TOOLTRAIL_KAFKA_SASL_SSL_PORT: String(securePort),
      TOOLTRAIL_CLICKHOUSE_URL: services.clickhouse.url,
      TOOLTRAIL_ALERTMANAGER_URL: services.alertmanager.url,
      TOOLTRAIL_POSTGRES_URL: services.postgres.url,
    };
    first = cli(['services', 'up', '--kafka-sasl-ssl'], env);
  });

  after(() => {
    if (!home) return;
    cli(['services', 'down'], env);
    rmSync(home, { recursive: true, force: true });
  });

  it('starts the broker and prints the bootstrap, the CA file and the user, never the password', () => {
    assert.equal(first.status, 0, `${first.stdout}\n${first.stderr}`);
    const dir = join(home, 'kafka', 'sasl-ssl');
    assert.match(first.stdout, new RegExp(`kafka SASL_SSL 127\\.0\\.0\\.1:${securePort} `));
    assert.ok(first.stdout.includes(`CA file      ${join(dir, 'local-ca.pem')}`), first.stdout);
    assert.ok(
      first.stdout.includes(
        `user         tooltrail, its generated local-dev password in ${join(dir, 'password')} (mode 0600)`,
      ),
    );
    const password = readFileSync(join(dir, 'password'), 'utf8').trim();
    assert.ok(password.length >= 24, 'a generated password');
    assert.equal(
      statSync(join(dir, 'password')).mode & 0o777,
      0o600,
      'the password file is readable by its owner only',
    );
    assert.ok(!first.stdout.includes(password) && !first.stderr.includes(password), 'the password is not printed');
    assert.ok(!readFileSync(join(dir, 'client.env'), 'utf8').includes(password), 'nor written in the env file');
  });

  for (const client of KAFKA_CLIENTS) {
    it(`a client (${client}) connecting as printed, SCRAM-SHA-512 over TLS, produces and reads back a message`, async () => {
      const settings = loadConnectionSettings(envFileOf(join(home, 'kafka', 'sasl-ssl', 'client.env')));
      assert.deepEqual(settings.kafka.brokers, [`127.0.0.1:${securePort}`]);
      assert.equal(settings.kafka.security.sasl.mechanism, 'scram-sha-512');
      assert.equal(settings.kafka.security.tls.enabled, true);
      const kafka = createKafkaClient({
        brokers: settings.kafka.brokers,
        clientId: 'sasl-flag-test',
        security: settings.kafka.security,
        quiet: true,
        client,
      });
      assert.equal((await describeCluster(kafka)).brokers, 1);
      const topic = uniqueName(`sasl_flag_${client}`);
      await ensureTopics(kafka, [{ topic, numPartitions: 1 }]);
      const producer = createIdempotentProducer(kafka);
      await producer.connect();
      try {
        await producer.send(topic, [{ key: 'k', value: Buffer.from(`over SASL_SSL with ${client}`) }]);
      } finally {
        await producer.disconnect();
      }
      const read: string[] = [];
      await readTopic(kafka, topic, (m) => read.push(String(m.value)));
      assert.deepEqual(read, [`over SASL_SSL with ${client}`]);
    });
  }

  it('the same user also authenticates with SASL PLAIN, and a wrong password is refused', async () => {
    const settings = loadConnectionSettings(envFileOf(join(home, 'kafka', 'sasl-ssl', 'client.env')));
    const connect = (mechanism: 'plain' | 'scram-sha-256', password?: string) =>
      describeCluster(
        createKafkaClient({
          brokers: settings.kafka.brokers,
          clientId: 'sasl-flag-test',
          quiet: true,
          security: {
            ...settings.kafka.security,
            sasl: {
              ...settings.kafka.security.sasl,
              mechanism,
              ...(password ? { password: new Secret(password) } : {}),
            },
          },
        }),
      );
    assert.equal((await connect('plain')).brokers, 1);
    assert.equal((await connect('scram-sha-256')).brokers, 1);
    await assert.rejects(
      connect('scram-sha-256', 'not-the-password'),
      (err: unknown) => err instanceof KafkaConnectError && err.reason === 'sasl_authentication_failed',
    );
  });

  it('a second up is a no-op that keeps the password and prints the same access', () => {
    const password = readFileSync(join(home, 'kafka', 'sasl-ssl', 'password'), 'utf8');
    const again = cli(['services', 'up', '--kafka-sasl-ssl'], env);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /kafka\s+already running/);
    assert.match(again.stdout, new RegExp(`kafka SASL_SSL 127\\.0\\.0\\.1:${securePort} `));
    assert.equal(readFileSync(join(home, 'kafka', 'sasl-ssl', 'password'), 'utf8'), password);
  });

  it('is refused, naming the flag, with the replicated cluster or an external Kafka', () => {
    const cluster = cli(['services', 'up', '--kafka-sasl-ssl', '--kafka-brokers', '3'], env);
    assert.equal(cluster.status, 1);
    assert.match(cluster.stderr, /--kafka-sasl-ssl is served by the single local broker/);
    const external = cli(['services', 'up', '--kafka-sasl-ssl'], {
      ...env,
      TOOLTRAIL_KAFKA_BROKERS: services.kafka.brokers.join(','),
    });
    assert.equal(external.status, 1);
    assert.match(external.stderr, /--kafka-sasl-ssl starts a listener on the local broker/);
  });
});
