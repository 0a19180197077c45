import type { BatchConsumer, SimpleConsumer } from './types.ts';

/** A per-message consumer on a batch consumer: each message handled, marked and committed before the next. */
export function simpleConsumerOf(consumer: BatchConsumer): SimpleConsumer {
  return {
    async run(onMessage) {
      await consumer.run(async (batch, control) => {
        for (const m of batch.messages) {
          if (!control.isActive()) return;
          await onMessage(m);
          control.markFetched(m.offset);
          await consumer.commit(batch.partition, String(BigInt(m.offset) + 1n));
        }
      });
    },
    disconnect: () => consumer.disconnect(),
  };
}
