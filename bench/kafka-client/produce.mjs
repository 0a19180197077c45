/**
 * kafkajs vs @platformatic/kafka producing the collector's kind of messages (one ~4 KiB OTLP trace message per
 * record, keyed by trace id, acks from all in-sync replicas, gzip, batches of 512 records, 4 sends in flight), both
 * under the same Node 22 binary, alternated round by round in one process. Prints medians of messages/s and of
 * this process's CPU per 1,000 messages, and the ratio @platformatic/kafka / kafkajs.
 *
 *   cd bench/kafka-client && npm install && ./node_modules/.bin/node produce.mjs [messages=60000] [rounds=3]
 *   (Kafka at TOOLTRAIL_KAFKA_BROKERS, default 127.0.0.1:9092: `node bin/tooltrail.js services up`)
 */
import { randomBytes } from 'node:crypto';
import { ProduceAcks, Producer } from '@platformatic/kafka';
import kafkajs from 'kafkajs';

const MESSAGES = Number(process.argv[2] ?? 60_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const BATCH = 512;
const IN_FLIGHT = 4;
const brokers = (process.env.TOOLTRAIL_KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const topic = `bench_kafka_client_${Date.now().toString(36)}`;

// A trace message's shape: repeated attribute keys and values (compressible) around random ids (not).
const TEMPLATE = Buffer.from(
  Array.from(
    { length: 40 },
    (_, i) =>
      `gen_ai.tool.name=list_service_accounts;tooltrail.result.complete=${i % 3 === 0};tooltrail.scope.resource=accounts-${i % 7};`,
  ).join(''),
);
function message(i) {
  const value = Buffer.alloc(4096);
  TEMPLATE.copy(value, 0, 0, Math.min(TEMPLATE.length, 4096));
  for (let k = 0; k < 8; k++) randomBytes(24).copy(value, 200 + k * 480);
  return { key: Buffer.from(`trace-${i.toString(16).padStart(32, '0')}`), value };
}
const payload = Array.from({ length: MESSAGES }, (_, i) => message(i));

async function timed(send) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < MESSAGES) {
      const from = next;
      next += BATCH;
      await send(payload.slice(from, Math.min(from + BATCH, MESSAGES)));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  return { perSec: MESSAGES / seconds, cpuMsPer1k: (cpu.user + cpu.system) / 1000 / (MESSAGES / 1000) };
}

async function withKafkajs() {
  const kafka = new kafkajs.Kafka({ clientId: 'bench-kafkajs', brokers, logLevel: kafkajs.logLevel.NOTHING });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 5 });
  await producer.connect();
  try {
    return await timed((records) =>
      producer.send({ topic, acks: -1, compression: kafkajs.CompressionTypes.GZIP, messages: records }),
    );
  } finally {
    await producer.disconnect();
  }
}

async function withPlatformatic() {
  const producer = new Producer({
    clientId: 'bench-platformatic',
    bootstrapBrokers: brokers,
    acks: ProduceAcks.ALL,
    compression: 'gzip',
    idempotent: true,
  });
  try {
    return await timed((records) => producer.send({ messages: records.map((r) => ({ topic, ...r })) }));
  } finally {
    await producer.close();
  }
}

const admin = new kafkajs.Kafka({ clientId: 'bench-admin', brokers, logLevel: kafkajs.logLevel.NOTHING }).admin();
await admin.connect();
await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true });
const results = { kafkajs: [], platformatic: [] };
try {
  await withKafkajs(); // warm-up of both (connections, JIT), not counted
  await withPlatformatic();
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, run] of [
      ['kafkajs', withKafkajs],
      ['platformatic', withPlatformatic],
    ]) {
      const x = await run();
      results[name].push(x);
      console.log(
        `round ${r + 1} ${name.padEnd(12)} ${Math.round(x.perSec).toLocaleString('en')} msg/s, ${x.cpuMsPer1k.toFixed(1)} ms CPU per 1,000 messages`,
      );
    }
  }
} finally {
  await admin.deleteTopics({ topics: [topic] }).catch(() => {});
  await admin.disconnect();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const k = {
  perSec: median(results.kafkajs.map((x) => x.perSec)),
  cpu: median(results.kafkajs.map((x) => x.cpuMsPer1k)),
};
const p = {
  perSec: median(results.platformatic.map((x) => x.perSec)),
  cpu: median(results.platformatic.map((x) => x.cpuMsPer1k)),
};
console.log(
  `medians over ${ROUNDS} rounds of ${MESSAGES.toLocaleString('en')} messages (Node ${process.version}): ` +
    `kafkajs ${Math.round(k.perSec).toLocaleString('en')} msg/s, ${k.cpu.toFixed(1)} ms CPU/1k; ` +
    `@platformatic/kafka ${Math.round(p.perSec).toLocaleString('en')} msg/s, ${p.cpu.toFixed(1)} ms CPU/1k; ` +
    `CPU ratio platformatic/kafkajs ${(p.cpu / k.cpu).toFixed(2)}, msg/s ratio ${(p.perSec / k.perSec).toFixed(2)}`,
);
