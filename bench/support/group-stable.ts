/**
 * Where the benches that time a consumer start their window: once its consumer group is STABLE (the member holds
 * its partitions, nothing fetched yet). Timed from the first row visible instead, a consumer that stores batches of
 * up to 100,000 rows had decoded most of a small topic before the window opened (docs/performance.md, "The window
 * of the Kafka -> ClickHouse leg").
 */
import { describeGroup, type KafkaClient } from '../../platform/kafka/index.ts';
import { sleep } from '../../testkit/wait.ts';

/** Resolves once `groupId` is STABLE with a member; throws after `timeoutMs`, or when `alive()` turns false. */
export async function untilGroupStable(
  kafka: KafkaClient,
  groupId: string,
  {
    timeoutMs = 120_000,
    everyMs = 20,
    alive = () => true,
  }: { timeoutMs?: number; everyMs?: number; alive?: () => boolean } = {},
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (!alive()) throw new Error(`the consumer of group ${groupId} stopped before its group was STABLE`);
    const g = await describeGroup(kafka, groupId);
    if (g.state === 'STABLE' && g.members > 0) return;
    if (performance.now() > deadline) throw new Error(`group ${groupId} not STABLE after ${timeoutMs} ms (${g.state})`);
    await sleep(everyMs);
  }
}
