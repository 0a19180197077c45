/**
 * Reads a topic as it is now: every partition from its log start to the high watermark taken when the read starts
 * (what is appended meanwhile is left for the next read), without committing anything. For tools that look at a
 * small topic whole (the dead letters), not for the ingest. Built on the client-neutral interface only.
 */
import { randomBytes } from 'node:crypto';
import type { BatchMessage, KafkaClient } from './types.ts';

const DISCONNECT_GRACE_MS = 10_000;

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
  const timeoutMs = options.timeoutMs ?? 60_000;
  const remaining = new Map<number, number>();
  // One deadline for the whole read, the group join and the offsets included: a coordinator that never answers
  // (a cluster just through faults) must end in this error, not in a read that hangs.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `reading ${topic}: not done after ${timeoutMs} ms (${remaining.size ? `partitions left: ${[...remaining.keys()]}` : 'offsets or group join not answered'})`,
          ),
        ),
      timeoutMs,
    );
  });
  deadline.catch(() => {});
  const within = <T>(step: Promise<T>) => Promise.race([step, deadline]);
  try {
    // Asked first: the offsets of a topic that does not exist are retried, and a broker may create it on the way.
    if (!(await within(kafka.listTopics())).includes(topic)) return { exists: false };
    const ends = await within(kafka.fetchConsumerLag(groupId, topic));
    // Nothing committed for a new group: lag = high watermark - log start.
    for (const e of ends) if (e.lag > 0) remaining.set(e.partition, Number(e.highWatermark));
    if (remaining.size === 0) return { exists: true };
    const consumer = await within(
      kafka.createBatchConsumer({ groupId, topic, fromBeginning: true, maxWaitTimeMs: 100 }),
    );
    let finish: () => void = () => {};
    let fail: (err: Error) => void = () => {};
    const finished = new Promise<void>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
    consumer.onCrash((error, restart) => {
      if (!restart) fail(error);
    });
    try {
      await within(
        consumer.run(async (batch, control) => {
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
        }),
      );
      await within(finished);
    } finally {
      // Bounded too: the error (or the result) is worth more than a clean leave of the throwaway group.
      await Promise.race([consumer.disconnect(), new Promise((r) => setTimeout(r, DISCONNECT_GRACE_MS).unref())]);
    }
    return { exists: true };
  } finally {
    clearTimeout(timer);
  }
}
