/** Replication factor when a topic names none: 3 on a cluster of 3 or more brokers (survives one loss), else all. */
export function defaultReplicationFactor(brokers: number): number {
  return Math.max(1, Math.min(3, brokers));
}
