import type { KafkaClient } from './client.ts';

export interface IncomingMessage {
  topic: string;
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | string | undefined>;
}

export interface SimpleConsumer {
  /** Calls `onMessage` for each message; the offset is committed after the handler resolves. */
  run(onMessage: (m: IncomingMessage) => Promise<void>): Promise<void>;
  disconnect(): Promise<void>;
}

/** A consumer-group member reading `topic` from the beginning. The ingest builds its own batch consumer. */
export async function createSimpleConsumer(
  kafka: KafkaClient,
  groupId: string,
  topic: string,
): Promise<SimpleConsumer> {
  const consumer = kafka.consumer({ groupId });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  return {
    async run(onMessage) {
      await consumer.run({
        eachMessage: async ({ topic: t, partition, message }) => {
          const headers: Record<string, Buffer | string | undefined> = {};
          for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = Array.isArray(v) ? v[0] : v;
          await onMessage({
            topic: t,
            partition,
            offset: message.offset,
            key: message.key,
            value: message.value,
            headers,
          });
        },
      });
    },
    disconnect: () => consumer.disconnect(),
  };
}
