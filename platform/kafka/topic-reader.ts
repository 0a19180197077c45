/**
 * Reads a topic as it is now: every partition from its log start to the high watermark taken when the read starts
 * (what is appended meanwhile is left for the next read), without committing anything. For tools that look at a
 * small topic whole (the dead letters), not for the ingest. Built on the client-neutral interface only.
 */
import { randomBytes } from 'node:crypto';
import type { BatchMessage, KafkaClient } from './types.ts';

/**
 * Calls `onMessage` for each message of `topic` below the high watermarks of the moment, in offset order per
 * partition; resolves when every partition is read (`exists: false`: there is no such topic). It reads through a
 * throwaway consumer group that commits nothing.
 */
export async function readTopic(
  kafka: KafkaClient,
  topic: string,
  onMessage: (m: BatchMessage) => void,
  options: { timeoutMs?: number } = {},
): Promise<{ exists: boolean }> {
  const groupId = `tooltrail-reader-${randomBytes(6).toString('hex')}`;
  // Asked first: the offsets of a topic that does not exist are retried, and a broker may create it on the way.
  if (!(await kafka.listTopics()).includes(topic)) return { exists: false };
  const ends = await kafka.fetchConsumerLag(groupId, topic);
  // Nothing committed for a new group: lag = high watermark - log start.
  const remaining = new Map<number, number>();
  for (const e of ends) if (e.lag > 0) remaining.set(e.partition, Number(e.highWatermark));
  if (remaining.size === 0) return { exists: true };
  const consumer = await kafka.createBatchConsumer({ groupId, topic, fromBeginning: true, maxWaitTimeMs: 100 });
  let finish: () => void = () => {};
  let fail: (err: Error) => void = () => {};
  const finished = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const timeoutMs = options.timeoutMs ?? 60_000;
  const timer = setTimeout(
    () =>
      fail(new Error(`reading ${topic}: not done after ${timeoutMs} ms (partitions left: ${[...remaining.keys()]})`)),
    timeoutMs,
  );
  consumer.onCrash((error, restart) => {
    if (!restart) fail(error);
  });
  try {
    await consumer.run(async (batch, control) => {
      const high = remaining.get(batch.partition);
      if (high === undefined) return;
      for (const m of batch.messages) {
        if (Number(m.offset) >= high) break;
        onMessage(m);
        control.markFetched(m.offset);
        if (Number(m.offset) + 1 >= high) {
          remaining.delete(batch.partition);
          break;
        }
      }
      if (remaining.size === 0) finish();
    });
    await finished;
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
  return { exists: true };
}
