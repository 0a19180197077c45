/**
 * kafkajs 2.2.4 can resolve a send without having written some of its messages. A send spanning several brokers
 * keeps each broker's answer across its retries and, on a retry, asks only the brokers that have not answered yet:
 * when a leader dies (or a partition is reassigned) mid-send, its partitions move to a broker that already answered
 * for its own ones, so nobody is asked for them again, and the send resolves without them (acknowledged, never
 * written). The answers still tell it: each partition written has one, without an error.
 */

/** The part of kafkajs' RecordMetadata this check reads. */
export interface PartitionAnswer {
  topicName: string;
  partition: number;
  errorCode: number;
}

/** The messages of `messages` whose partition (`partitionOf`) has no error-free answer in `answers` for `topic`. */
export function unansweredMessages<M>(
  topic: string,
  messages: readonly M[],
  partitionOf: (message: M) => number | undefined,
  answers: readonly PartitionAnswer[],
): M[] {
  const written = new Set<number>();
  for (const a of answers) if (a.topicName === topic && a.errorCode === 0) written.add(a.partition);
  return messages.filter((m) => {
    const p = partitionOf(m);
    return p === undefined || !written.has(p);
  });
}
