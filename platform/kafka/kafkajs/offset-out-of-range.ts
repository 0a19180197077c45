/**
 * kafkajs 2.2.4 (pinned, unmaintained) answers a fetch's OFFSET_OUT_OF_RANGE by committing the group's default
 * offset (earliest, as `fromBeginning`) and reading the partition again from there. Since Fetch v11 a follower
 * serves consumer fetches too, so a fetch sent on stale metadata to a former leader that a reassignment has just
 * re-added as an empty replica is "out of range" though the leader holds the offset: the group then re-reads the
 * whole partition. This puts the method back so that it first refreshes the metadata and lets the next fetch ask
 * the leader; only a partition still out of range after `REFRESHES` refreshes within `WINDOW_MS` is reset.
 */
import { createRequire } from 'node:module';

/** Refreshes granted to one partition within the window before kafkajs' reset runs. */
export const REFRESHES = 3;
export const WINDOW_MS = 60_000;

interface OutOfRange {
  topic: string;
  partition: number;
}
interface ConsumerGroupLike {
  cluster: { refreshMetadata(): Promise<void> };
}
type Recover = (this: ConsumerGroupLike, e: OutOfRange) => Promise<void>;

const ConsumerGroup = createRequire(import.meta.url)('kafkajs/src/consumer/consumerGroup.js') as {
  prototype: { recoverFromOffsetOutOfRange: Recover };
};
const reset = ConsumerGroup.prototype.recoverFromOffsetOutOfRange;
/** Per group, per partition: when its window opened and the refreshes granted in it. */
const granted = new WeakMap<ConsumerGroupLike, Map<string, { since: number; count: number }>>();

export const recoverFromOffsetOutOfRange: Recover = async function (e) {
  let refreshes = granted.get(this);
  if (refreshes === undefined) {
    refreshes = new Map();
    granted.set(this, refreshes);
  }
  const key = `${e.topic}\u0000${e.partition}`;
  const now = Date.now();
  let seen = refreshes.get(key);
  if (seen === undefined || now - seen.since > WINDOW_MS) {
    seen = { since: now, count: 0 };
    refreshes.set(key, seen);
  }
  if (seen.count < REFRESHES) {
    seen.count++;
    await this.cluster.refreshMetadata();
    return;
  }
  refreshes.delete(key);
  await reset.call(this, e);
};

ConsumerGroup.prototype.recoverFromOffsetOutOfRange = recoverFromOffsetOutOfRange;
