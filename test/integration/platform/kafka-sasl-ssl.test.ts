// test-lane: self-contained (its own Kafka on free ports, a fresh database; scripts/test-lanes.js)
/**
 * TLS and SASL to a real broker: its OWN local Kafka (other ports, never the shared one) started with a SASL_SSL
 * listener that requires client certificates, with certificates made here by openssl, a PLAIN user in its JAAS
 * config and SCRAM-SHA-256/512 users created through its admin API. Spans go collector -> Kafka -> ingest ->
 * ClickHouse over that listener with each mechanism; refusals come back at once, named, without the password.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadIngestConfig } from '../../../ingest/config.ts';
import { startIngest } from '../../../ingest/service.ts';
import {
  createKafkaClient,
  describeCluster,
  KAFKA_CLIENTS,
  type KafkaClientKind,
  KafkaConnectError,
  type KafkaSecurity,
  type SaslMechanism,
} from '../../../platform/kafka/index.ts';
import { bytesToHex } from '../../../platform/otlp/index.ts';
import { Secret } from '../../../platform/secret.ts';
import { loadServicesConfig } from '../../../services/config.ts';
import { kafkaJarsDir, kafkaService } from '../../../services/kafka/kafka.ts';
import { portFree } from '../../../services/process.ts';
import type { ManagedService } from '../../../services/service.ts';
import { protobufBody, request, span } from '../../../testkit/otlp-requests.ts';
import { freshDatabase, services, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { makeCa, makeCertificate, type TestCa, type TestCertificate } from '../../../testkit/tls.ts';
import { until } from '../../../testkit/wait.ts';
import { TENANT_A, TOKEN_A } from '../../unit/collector/fixtures.ts';
import { body, startCollector } from '../collector/harness.ts';

async function freePorts(n: number): Promise<number[]> {
  for (let i = 0; i < 50; i++) {
    const base = 20_000 + Math.floor(Math.random() * 20_000);
    const ports = Array.from({ length: n }, (_, j) => base + j);
    if ((await Promise.all(ports.map((p) => portFree(p)))).every(Boolean)) return ports;
  }
  throw new Error(`no ${n} free consecutive ports found`);
}

/** Span times of now: the fixtures' 2023 ones would be past the tables' retention (TTL) and dropped. */
function nowTimes() {
  const start = BigInt(Date.now()) * 1_000_000n;
  return { startTimeUnixNano: start.toString(), endTimeUnixNano: (start + 1_000_000n).toString() };
}

const USERS: Record<Exclude<SaslMechanism, 'none'>, { username: string; password: string }> = {
  plain: { username: 'alice', password: 'alice-Pw-7f3a9c' },
  'scram-sha-256': { username: 'bob', password: 'bob-Pw-2b8e41' },
  'scram-sha-512': { username: 'carol', password: 'carol-Pw-9d0c55' },
};
const MECHANISMS = Object.keys(USERS) as (keyof typeof USERS)[];

describe('Kafka over SASL_SSL (TLS with client certificates, SASL PLAIN and SCRAM) against a real broker', () => {
  let home: string;
  let broker: ManagedService;
  let secureBroker: string;
  let ca: TestCa;
  let client: TestCertificate;
  let otherCa: TestCa;
  let db: TestDatabase;

  const security = (
    mechanism: keyof typeof USERS,
    overrides: { password?: string; tls?: Partial<KafkaSecurity['tls']> } = {},
  ): KafkaSecurity => ({
    tls: { enabled: true, caFile: ca.caFile, certFile: client.certFile, keyFile: client.keyFile, ...overrides.tls },
    sasl: {
      mechanism,
      username: USERS[mechanism].username,
      password: new Secret(overrides.password ?? USERS[mechanism].password),
    },
  });
  const connectError = async (kind: KafkaClientKind, s: KafkaSecurity): Promise<KafkaConnectError> => {
    const kafka = createKafkaClient({
      brokers: [secureBroker],
      clientId: 'sasl-ssl-test',
      security: s,
      quiet: true,
      client: kind,
    });
    try {
      await describeCluster(kafka);
    } catch (err) {
      assert.ok(err instanceof KafkaConnectError, `a KafkaConnectError, not ${String(err)}`);
      return err;
    }
    throw new Error('the broker accepted the connection');
  };

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'tooltrail-sasl-ssl-'));
    mkdirSync(join(home, 'cache'), { recursive: true });
    symlinkSync(kafkaJarsDir(services.home), kafkaJarsDir(home));
    ca = makeCa(join(home, 'tls'));
    const server = makeCertificate(ca, 'broker');
    client = makeCertificate(ca, 'client', { usage: 'client' });
    otherCa = makeCa(join(home, 'tls-other'), 'other');
    const [port, controllerPort, securePort] = (await freePorts(3)) as [number, number, number];
    const config = loadServicesConfig({
      TOOLTRAIL_HOME: home,
      TOOLTRAIL_KAFKA_PORT: String(port),
      TOOLTRAIL_KAFKA_CONTROLLER_PORT: String(controllerPort),
    });
    config.kafka.saslSsl = {
      port: securePort,
      certFile: server.certFile,
      keyFile: server.keyFile,
      clientCaFile: ca.caFile,
      plainUsers: { [USERS.plain.username]: USERS.plain.password },
      scramUsers: [
        {
          name: USERS['scram-sha-256'].username,
          password: USERS['scram-sha-256'].password,
          mechanism: 'SCRAM-SHA-256',
        },
        {
          name: USERS['scram-sha-512'].username,
          password: USERS['scram-sha-512'].password,
          mechanism: 'SCRAM-SHA-512',
        },
      ],
    };
    secureBroker = `127.0.0.1:${securePort}`;
    broker = kafkaService(config);
    await broker.up();
    db = await freshDatabase('tt_sasl_ssl');
  });

  after(async () => {
    await db?.drop();
    await broker?.down();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  for (const kind of KAFKA_CLIENTS) {
    describe(`with ${kind}`, () => {
      for (const mechanism of MECHANISMS) {
        it(`spans reach ClickHouse through the collector, Kafka and the ingest over SASL_SSL with SASL ${mechanism.toUpperCase()}`, async () => {
          const s = security(mechanism);
          const ingestLog: string[] = [];
          const topic = uniqueName(`otlp_${mechanism.replaceAll('-', '_')}`);
          const collector = await startCollector({
            kafka: {
              brokers: [secureBroker],
              topic,
              createTopic: true,
              topicPartitions: 1,
              tls: s.tls,
              sasl: s.sasl,
              client: kind,
            },
          });
          const base = loadIngestConfig({
            topic,
            groupId: uniqueName('ingest_sasl'),
            deadLetterTopic: `${topic}_dlq`,
            database: db.database,
            lingerMs: 50,
          });
          const ingest = await startIngest(
            {
              ...base,
              kafka: { ...base.kafka, brokers: [secureBroker], tls: s.tls, sasl: s.sasl, client: kind },
              batch: { ...base.batch, minFetchBytes: 1 },
            },
            { log: (line) => ingestLog.push(line) },
          );
          try {
            const spans = Array.from({ length: 5 }, () => span(nowTimes()));
            const res = await fetch(collector.url, {
              method: 'POST',
              body: body(protobufBody(request(spans))),
              headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${TOKEN_A}` },
            });
            assert.equal(res.status, 200, await res.text());
            const ids = spans.map((x) => `'${bytesToHex(x.spanId)}'`).join(',');
            const sql = `SELECT count() AS n FROM ${db.database}.spans WHERE Tenant = '${TENANT_A}' AND SpanId IN (${ids})`;
            let n = 0;
            await until(
              'every acknowledged span is stored',
              async () => {
                const rs = await db.ch.query({ query: sql, format: 'JSONEachRow' });
                n = Number((await rs.json<{ n: string }>())[0]?.n ?? 0);
                return n >= spans.length;
              },
              { timeoutMs: 60_000, everyMs: 200, describe: () => `${n} stored; ingest said: ${ingestLog.join(' | ')}` },
            );
            assert.equal(
              n,
              spans.length,
              `every acknowledged span is stored, once (ingest said: ${ingestLog.join(' | ')})`,
            );
          } finally {
            await ingest.stop();
            await collector.close();
          }
        });

        it(`a wrong password is refused at once with an error naming SASL ${mechanism.toUpperCase()}, not the password`, async () => {
          const wrong = 'not-the-Pw-41c9e2';
          const started = Date.now();
          const err = await connectError(kind, security(mechanism, { password: wrong }));
          assert.equal(err.reason, 'sasl_authentication_failed');
          assert.match(err.message, new RegExp(`SASL ${mechanism.toUpperCase()} authentication`));
          assert.ok(!err.message.includes(wrong), 'the password is not in the message');
          assert.ok(Date.now() - started < 20_000, 'refused, not retried until a timeout');
        });
      }

      it('a broker certificate from a CA the client does not trust is a clear TLS error naming the CA setting', async () => {
        const err = await connectError(kind, security('plain', { tls: { caFile: otherCa.caFile } }));
        assert.equal(err.reason, 'tls_untrusted_broker');
        assert.match(err.message, /not trusted/);
        assert.match(err.message, /TOOLTRAIL_KAFKA_TLS_CA_FILE/);
      });

      it('without a client certificate the broker (mTLS required) refuses, and the error says so', async () => {
        const s = security('plain');
        const err = await connectError(kind, { ...s, tls: { enabled: true, caFile: ca.caFile } });
        assert.equal(err.reason, 'tls_client_refused');
        assert.match(err.message, /TOOLTRAIL_KAFKA_TLS_CERT_FILE/);
      });

      it('the ingest refuses to start with a wrong password, and says which mechanism', async () => {
        const base = loadIngestConfig({ topic: uniqueName('otlp_refused'), database: db.database });
        const s = security('scram-sha-512', { password: 'wrong-Pw-88aa01' });
        await assert.rejects(
          startIngest(
            { ...base, kafka: { ...base.kafka, brokers: [secureBroker], tls: s.tls, sasl: s.sasl, client: kind } },
            {
              log: () => {},
            },
          ),
          (err: unknown) => err instanceof KafkaConnectError && /SASL SCRAM-SHA-512/.test(err.message),
        );
      });
    });
  }
});
