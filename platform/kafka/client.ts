/**
 * The one place a Kafka client is chosen: the caller's `client` option, else TOOLTRAIL_KAFKA_CLIENT (choice.ts).
 * Only the chosen implementation is loaded, on first use: a process never loads a client it does not run.
 */
import { kafkaClientKindOf } from './choice.ts';
import type { KafkaClient, KafkaClientKind, KafkaClientOptions, Producer } from './types.ts';

export type { KafkaClient } from './types.ts';

/** The implementation of `kind`, loaded when first asked for. */
async function load(kind: KafkaClientKind, options: KafkaClientOptions): Promise<KafkaClient> {
  switch (kind) {
    case 'platformatic':
      return (await import('./platformatic/client.ts')).createPlatformaticClient(options);
  }
}

/** A producer whose implementation is made once the client is loaded; every call waits for it. */
function lazyProducer(make: () => Promise<Producer>): Producer {
  let made: Promise<Producer> | undefined;
  const producer = () => {
    made ??= make();
    return made;
  };
  return {
    connect: async () => (await producer()).connect(),
    send: async (topic, messages) => (await producer()).send(topic, messages),
    disconnect: async () => {
      if (made === undefined) return;
      await (await made.catch(() => undefined))?.disconnect();
    },
  };
}

export function createKafkaClient(options: KafkaClientOptions): KafkaClient {
  const kind = options.client ?? kafkaClientKindOf(process.env);
  let loaded: Promise<KafkaClient> | undefined;
  const impl = () => {
    loaded ??= load(kind, options);
    return loaded;
  };
  return {
    kind,
    createIdempotentProducer: (o) => lazyProducer(async () => (await impl()).createIdempotentProducer(o)),
    createSimpleConsumer: async (groupId, topic) => (await impl()).createSimpleConsumer(groupId, topic),
    createBatchConsumer: async (o) => (await impl()).createBatchConsumer(o),
    ensureTopics: async (topics) => (await impl()).ensureTopics(topics),
    listTopics: async () => (await impl()).listTopics(),
    deleteTopics: async (topics) => (await impl()).deleteTopics(topics),
    describeCluster: async () => (await impl()).describeCluster(),
    partitionStates: async (topic) => (await impl()).partitionStates(topic),
    fetchConsumerLag: async (groupId, topic) => (await impl()).fetchConsumerLag(groupId, topic),
    describeGroup: async (groupId) => (await impl()).describeGroup(groupId),
  };
}
