/**
 * Shared set-up of the ingest's integration tests: a fresh database, fresh topics and a fresh consumer group per
 * test, a producer, and polling helpers. Everything it opens, `close()` removes.
 */

import { type IngestConfig, loadIngestConfig } from '../../../ingest/config.ts';
import { createClickHouse } from '../../../platform/clickhouse.ts';
import {
  createIdempotentProducer,
  createSimpleConsumer,
  deleteTopics,
  ensureTopics,
  type IncomingMessage,
  type KafkaClient,
  type KafkaClientKind,
  kafkaClientKindOf,
  type Producer,
} from '../../../platform/kafka/index.ts';
import { keyHash } from '../../../platform/kafka/murmur2.ts';
import { DEFAULT_RETENTION_DAYS } from '../../../schema/config.ts';
import { migrateUp } from '../../../schema/migrations.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { freshDatabase, requireKafka, services, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { sleep, until } from '../../../testkit/wait.ts';

export interface Harness {
  db: TestDatabase;
  /** The Kafka client everything of this harness uses (the ingest's config, its child processes, the producer). */
  client: KafkaClientKind;
  kafka: KafkaClient;
  producer: Producer;
  topic: string;
  dlqTopic: string;
  groupId: string;
  /** The ingest configuration for this harness (small batches, quick backoff), with `overrides` applied. */
  config(overrides?: Partial<IngestConfig['batch']> & { defaultTenant?: string }): IngestConfig;
  /** Environment for a child `tooltrail ingest` process with the same configuration. */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  /** Sends the messages with distinct keys (so they spread over the partitions), in order per key. */
  produce(values: Buffer[]): Promise<void>;
  count(sql: string): Promise<number>;
  /** Polls until `sql` (a count) reaches `expected` or `timeoutMs` passes; returns the last value. */
  waitForCount(sql: string, expected: number, timeoutMs?: number): Promise<number>;
  /**
   * Sends one marker message to every partition, after everything sent so far, and waits until the ingest stored
   * them all. A partition's batches are stored in order, so whatever the ingest was still to store of the messages
   * before them (a late duplicate too) is stored by then: how a test shows that nothing more comes. The markers are
   * tool spans of the tenant `MARKER_TENANT`: count your own tenant's rows.
   */
  storedThroughMarkers(timeoutMs?: number): Promise<void>;
  readDeadLetters(expected: number, timeoutMs?: number): Promise<IncomingMessage[]>;
  close(): Promise<void>;
}

export const PARTITIONS = 3;
export const MARKER_TENANT = 'marker';

/** One key per partition of `PARTITIONS` (murmur2 of the key, as the producer's Java-compatible partitioner). */
function keyPerPartition(prefix: string): string[] {
  const keys = new Map<number, string>();
  for (let i = 0; keys.size < PARTITIONS; i++) {
    const key = `${prefix}-${i}`;
    const p = keyHash(Buffer.from(key)) % PARTITIONS;
    if (!keys.has(p)) keys.set(p, key);
  }
  return [...keys.values()];
}

/** A fresh migrated database on another ClickHouse (e.g. one the test stops and starts). */
export async function databaseOn(url: string, prefix: string): Promise<TestDatabase> {
  const database = uniqueName(prefix);
  const schema = { database, retentionDays: DEFAULT_RETENTION_DAYS };
  const ch = createClickHouse({ url });
  await migrateUp(ch, schema);
  return {
    ch,
    schema,
    database,
    async drop() {
      await ch.command({ query: `DROP DATABASE IF EXISTS ${database}` }).catch(() => {});
      await ch.close();
    },
  };
}

export async function createHarness(
  name: string,
  options: { clickhouseUrl?: string; client?: KafkaClientKind } = {},
): Promise<Harness> {
  const client = options.client ?? kafkaClientKindOf(process.env);
  const kafka = await requireKafka(client);
  const clickhouseUrl = options.clickhouseUrl ?? services.clickhouse.url;
  const db = options.clickhouseUrl ? await databaseOn(clickhouseUrl, `tt_${name}`) : await freshDatabase(`tt_${name}`);
  const topic = uniqueName(`otlp_${name}`);
  const dlqTopic = `${topic}_dlq`;
  const groupId = uniqueName(`ingest_${name}`);
  await ensureTopics(kafka, [
    { topic, numPartitions: PARTITIONS },
    { topic: dlqTopic, numPartitions: 1 },
  ]);
  const producer = createIdempotentProducer(kafka);
  // Marker seeds of their own: never the ids of a test's own messages.
  const markerSeedBase = 4_000_000_000 + Math.floor(Math.random() * 1_000_000) * 100;
  let markerRounds = 0;
  await producer.connect();
  const q = async (sql: string) => {
    const rs = await db.ch.query({ query: sql, format: 'JSONEachRow' });
    const rows = await rs.json<{ n: number | string }>();
    return Number(rows[0]?.n ?? 0);
  };
  const h: Harness = {
    db,
    client,
    kafka,
    producer,
    topic,
    dlqTopic,
    groupId,
    config(o = {}) {
      const base = loadIngestConfig({
        topic,
        groupId,
        deadLetterTopic: dlqTopic,
        database: db.database,
        maxRows: o.maxRows ?? 200,
        lingerMs: o.lingerMs ?? 50,
        createTopics: false,
        ...(o.defaultTenant ? { defaultTenant: o.defaultTenant } : {}),
      });
      return {
        ...base,
        kafka: { ...base.kafka, client },
        clickhouse: { ...base.clickhouse, url: clickhouseUrl },
        batch: { ...base.batch, minFetchBytes: o.minFetchBytes ?? 1, ...(o.maxBytes ? { maxBytes: o.maxBytes } : {}) },
        retry: { initialBackoffMs: 100, maxBackoffMs: 1_000 },
        metrics: { ...base.metrics, lagIntervalMs: 500 },
      };
    },
    env(extra = {}) {
      return {
        ...process.env,
        TOOLTRAIL_INGEST_TOPIC: topic,
        TOOLTRAIL_INGEST_GROUP_ID: groupId,
        TOOLTRAIL_INGEST_DLQ_TOPIC: dlqTopic,
        TOOLTRAIL_CLICKHOUSE_DATABASE: db.database,
        TOOLTRAIL_INGEST_CREATE_TOPICS: 'false',
        // A killed member's partitions move after 6 s (the broker minimum) instead of 30.
        TOOLTRAIL_INGEST_SESSION_TIMEOUT_MS: '6000',
        TOOLTRAIL_CLICKHOUSE_URL: clickhouseUrl,
        TOOLTRAIL_KAFKA_BROKERS: services.kafka.brokers.join(','),
        TOOLTRAIL_KAFKA_CLIENT: client,
        ...extra,
      };
    },
    async produce(values) {
      // Chunks: one produce request must stay under the broker's message.max.bytes.
      for (let i = 0; i < values.length; i += 50) {
        await producer.send(
          topic,
          values.slice(i, i + 50).map((value, j) => ({ key: `k${i + j}`, value })),
        );
      }
    },
    count: q,
    async waitForCount(sql, expected, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      let n = await q(sql);
      while (n < expected && Date.now() < deadline) {
        await sleep(100);
        n = await q(sql);
      }
      return n;
    },
    async storedThroughMarkers(timeoutMs = 60_000) {
      const round = markerRounds++;
      const keys = keyPerPartition(`marker-${round}`);
      const seed = markerSeedBase + round * PARTITIONS;
      await producer.send(
        topic,
        keys.map((key, p) => ({
          key,
          value: syntheticMessage({ tenant: MARKER_TENANT, toolSpans: 1, seed: seed + p, incompleteEvery: 0 }),
        })),
      );
      const ids = keys.map((_, p) => `'call-${seed + p}-0'`).join(', ');
      const sql = `SELECT count() AS n FROM ${db.database}.tool_calls WHERE tenant = '${MARKER_TENANT}' AND tool_call_id IN (${ids})`;
      await until(
        `the ingest stored a marker on each of the ${PARTITIONS} partitions`,
        async () => (await q(sql)) >= PARTITIONS,
        {
          timeoutMs,
          everyMs: 100,
        },
      );
    },
    async readDeadLetters(expected, timeoutMs = 15_000) {
      const consumer = await createSimpleConsumer(kafka, uniqueName('dlq_reader'), dlqTopic);
      const got: IncomingMessage[] = [];
      let done: () => void = () => {};
      const enough = new Promise<void>((r) => {
        done = r;
      });
      await consumer.run(async (m) => {
        got.push(m);
        if (got.length >= expected) done();
      });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([enough, new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
      clearTimeout(timer);
      await consumer.disconnect();
      return got;
    },
    async close() {
      await producer.disconnect();
      await deleteTopics(kafka, [topic, dlqTopic]).catch(() => {});
      await db.drop();
    },
  };
  return h;
}
