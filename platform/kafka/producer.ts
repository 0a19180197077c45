import kafkajs from 'kafkajs';
import type { KafkaClient } from './client.ts';

const { Partitioners } = kafkajs;

export interface OutgoingMessage {
  key: Buffer | string | null;
  value: Buffer;
  headers?: Record<string, string | Buffer>;
}

export interface Producer {
  connect(): Promise<void>;
  /** Resolves only once every message is acknowledged by all in-sync replicas. */
  send(topic: string, messages: OutgoingMessage[]): Promise<void>;
  disconnect(): Promise<void>;
}

/** An idempotent producer that waits for acks from all in-sync replicas. */
export function createIdempotentProducer(kafka: KafkaClient): Producer {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  return {
    connect: () => producer.connect(),
    async send(topic, messages) {
      await producer.send({ topic, acks: -1, messages });
    },
    disconnect: () => producer.disconnect(),
  };
}
