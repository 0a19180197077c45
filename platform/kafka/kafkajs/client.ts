/** The kafkajs implementation of the Kafka interface (kafkajs 2.2.4, pinned: in maintenance, patched here). */
import kafkajs, { type SASLOptions } from 'kafkajs';
import './offset-out-of-range.ts';
import './throttle-timer.ts';
import type { KafkaSecurity } from '../security.ts';
import { tlsOptionsOf } from '../tls.ts';
import type { KafkaClient, KafkaClientOptions } from '../types.ts';
import * as admin from './admin.ts';
import { createBatchConsumer, createSimpleConsumer, fetchConsumerLag } from './consumer.ts';
import { createIdempotentProducer } from './producer.ts';

const { Kafka, logLevel } = kafkajs;
export type Kafkajs = InstanceType<typeof Kafka>;

function saslOptionsOf(security: KafkaSecurity | undefined): SASLOptions | undefined {
  const sasl = security?.sasl;
  if (!sasl || sasl.mechanism === 'none') return undefined;
  return { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password.reveal() };
}

export function createKafkajsClient(options: KafkaClientOptions): KafkaClient {
  const ssl = tlsOptionsOf(options.security);
  const sasl = saslOptionsOf(options.security);
  const kafka = new Kafka({
    brokers: options.brokers,
    clientId: options.clientId,
    ...(ssl ? { ssl } : {}),
    ...(sasl ? { sasl } : {}),
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    retry: { retries: options.retries ?? 5, initialRetryTime: 100, maxRetryTime: 2_000 },
    logLevel: options.quiet ? logLevel.NOTHING : logLevel.ERROR,
  });
  return {
    kind: 'kafkajs',
    createIdempotentProducer: (o) => createIdempotentProducer(kafka, o),
    createSimpleConsumer: (groupId, topic) => createSimpleConsumer(kafka, groupId, topic),
    createBatchConsumer: (o) => createBatchConsumer(kafka, o),
    ensureTopics: (topics) => admin.ensureTopics(kafka, topics),
    listTopics: () => admin.listTopics(kafka),
    deleteTopics: (topics) => admin.deleteTopics(kafka, topics),
    describeCluster: () => admin.describeCluster(kafka),
    partitionStates: (topic) => admin.partitionStates(kafka, topic),
    reassignPartition: (topic, partition, replicas) => admin.reassignPartition(kafka, topic, partition, replicas),
    reassignmentsInProgress: (topic) => admin.reassignmentsInProgress(kafka, topic),
    fetchConsumerLag: (groupId, topic) => fetchConsumerLag(kafka, groupId, topic),
  };
}
