/**
 * The kafkajs idempotent producer never reports a message acknowledged that no partition leader answered for, and never
 * hands a failed send's sequence numbers to other messages. kafkajs is faked here (its partitioner is called as
 * kafkajs calls it); the real cluster case is test/integration/platform/kafka-leader-failover.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OutgoingMessage } from '../../../platform/kafka/index.ts';
import type { Kafkajs } from '../../../platform/kafka/kafkajs/client.ts';
import { createIdempotentProducer, KafkaUnwrittenError } from '../../../platform/kafka/kafkajs/producer.ts';
import { type PartitionAnswer, unansweredMessages } from '../../../platform/kafka/kafkajs/unanswered.ts';

const PARTITIONS = Array.from({ length: 6 }, (_, i) => ({ partitionId: i, leader: i % 3 }));

interface FakeSend {
  producer: number;
  values: string[];
  partitions: number[];
}

type Route = (args: { topic: string; partitionMetadata: typeof PARTITIONS; message: OutgoingMessage }) => number;

/** A kafkajs client whose sends route like kafkajs and answer what `answer` leaves in (by partition). */
function fakeKafka(answer: (call: number, partitions: number[]) => number[] | Error) {
  const sends: FakeSend[] = [];
  let producers = 0;
  const client = {
    producer(o: { createPartitioner: () => Route }) {
      const id = producers++;
      const route = o.createPartitioner();
      return {
        connect: async () => {},
        disconnect: async () => {},
        async send({ topic, messages }: { topic: string; messages: OutgoingMessage[] }) {
          const partitions = messages.map((message) => route({ topic, partitionMetadata: PARTITIONS, message }));
          sends.push({ producer: id, values: messages.map((m) => m.value.toString()), partitions });
          const answered = answer(sends.length - 1, [...new Set(partitions)]);
          if (answered instanceof Error) throw answered;
          return answered.map((partition) => ({ topicName: topic, partition, errorCode: 0, baseOffset: '0' }));
        },
      };
    },
  };
  return { kafka: client as unknown as Kafkajs, sends, producers: () => producers };
}

const messages = (n: number): OutgoingMessage[] =>
  Array.from({ length: n }, (_, i) => ({ key: `trace-${i}`, value: Buffer.from(`m${i}`) }));

test('a send kafkajs resolved without answering some partitions sends exactly their messages again before it resolves', async () => {
  // First call: the broker leading partitions 0 and 3 died and nobody was asked for them again.
  const fake = fakeKafka((call, parts) => (call === 0 ? parts.filter((p) => p % 3 !== 0) : parts));
  const producer = createIdempotentProducer(fake.kafka);
  await producer.send('spans', messages(24));
  assert.equal(fake.sends.length, 2);
  const [first, again] = fake.sends as [FakeSend, FakeSend];
  const dropped = first.values.filter((_, i) => first.partitions[i]! % 3 === 0);
  assert.ok(dropped.length > 0, 'the test routes some messages to partitions 0 and 3');
  assert.deepEqual(again.values, dropped, 'only the unanswered messages, in their order');
  assert.equal(
    again.producer,
    first.producer,
    'the same producer: its sequence numbers let the broker drop a batch written after all',
  );
});

test('a send whose partitions stay unanswered fails with KafkaUnwrittenError instead of resolving', async () => {
  const fake = fakeKafka((_, parts) => parts.filter((p) => p !== 1));
  const producer = createIdempotentProducer(fake.kafka);
  const all = messages(24);
  await assert.rejects(producer.send('spans', all), (err: Error) => {
    assert.ok(err instanceof KafkaUnwrittenError);
    assert.match(err.message, /partitions 1\)/);
    return true;
  });
  assert.equal(fake.sends.length, 6, 'the first send and five rounds of the unanswered ones');
});

test('after a failed send the next send goes through a fresh kafkajs producer (a new producer id, no reused sequence numbers)', async () => {
  const fake = fakeKafka((call, parts) => (call === 0 ? new Error('Connection error: ECONNREFUSED') : parts));
  const producer = createIdempotentProducer(fake.kafka);
  await producer.connect();
  await assert.rejects(producer.send('spans', messages(4)), /ECONNREFUSED/);
  await producer.send('spans', messages(4));
  await producer.send('spans', messages(4));
  assert.deepEqual(
    fake.sends.map((s) => s.producer),
    [0, 1, 1],
    'replaced once after the failure, kept while sends succeed',
  );
});

test('an answer with an error code or for another topic does not count as written', () => {
  const answers: PartitionAnswer[] = [
    { topicName: 'spans', partition: 0, errorCode: 0 },
    { topicName: 'spans', partition: 1, errorCode: 6 },
    { topicName: 'other', partition: 2, errorCode: 0 },
  ];
  const ms = [
    { p: 0, v: 'a' },
    { p: 1, v: 'b' },
    { p: 2, v: 'c' },
    { p: undefined, v: 'd' },
  ];
  assert.deepEqual(
    unansweredMessages('spans', ms, (m) => m.p, answers).map((m) => m.v),
    ['b', 'c', 'd'],
  );
});
