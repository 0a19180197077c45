/**
 * The batch consumer on @platformatic/kafka. The library's MessagesStream hands out single messages and pauses or
 * seeks only as a whole, so this drives the group and the fetches itself: the library's Consumer joins the group
 * and heartbeats in the background (rejoining on a rebalance), and this loop fetches each assigned partition from
 * its leader (one fetch in flight per broker, as the library's fetch sessions need), hands each partition's batch
 * to the handler (one at a time per partition, `partitionsConcurrently` at once) and moves a partition's position
 * only as the handler marks messages fetched. After every group join all positions restart from the committed
 * offsets, and batches of the previous generation turn inactive.
 */
import { Consumer, ListOffsetTimestamps, type RecordsBatch } from '@platformatic/kafka';
import { explained } from '../errors.ts';
import type {
  BatchConsumer,
  BatchConsumerOptions,
  BatchControl,
  BatchMessage,
  FetchedBatch,
  KafkaClientOptions,
} from '../types.ts';
import { absorbLateConnectionErrors, baseOptionsOf, saslMechanismOf } from './options.ts';

const CONTROL_BATCH = 0x20;
const ERROR_BACKOFF_MS = 250;

type Handler = (batch: FetchedBatch, control: BatchControl) => Promise<void>;

interface Fetched {
  partition: number;
  epoch: number;
  batch: FetchedBatch;
}

/** Kafka record batches of one partition as our messages, from `from` on (a compressed batch may start before). */
function messagesOf(
  topic: string,
  partition: number,
  from: bigint,
  p: { records?: RecordsBatch[] | null },
): BatchMessage[] {
  const out: BatchMessage[] = [];
  for (const rb of p.records ?? []) {
    if ((rb.attributes & CONTROL_BATCH) !== 0) continue;
    for (const r of rb.records) {
      const offset = rb.firstOffset + BigInt(r.offsetDelta);
      if (offset < from) continue;
      const headers: Record<string, Buffer | string | undefined> = {};
      for (const [k, v] of r.headers) if (k) headers[k.toString()] = v ?? undefined;
      out.push({
        topic,
        partition,
        offset: String(offset),
        timestamp: String(rb.firstTimestamp + r.timestampDelta),
        key: r.key,
        value: r.value,
        size: (r.key?.length ?? 0) + (r.value?.length ?? 0),
        headers,
      });
    }
  }
  return out;
}

export async function createBatchConsumer(
  client: KafkaClientOptions,
  options: BatchConsumerOptions,
): Promise<BatchConsumer> {
  const topic = options.topic;
  const sessionTimeout = options.sessionTimeoutMs ?? 30_000;
  const group = {
    sessionTimeout,
    heartbeatInterval: options.heartbeatIntervalMs ?? Math.min(3_000, Math.floor(sessionTimeout / 3)),
    rebalanceTimeout: Math.max(sessionTimeout, 60_000),
  };
  const consumer = new Consumer({
    ...baseOptionsOf(client, '-consumer'),
    groupId: options.groupId,
    autocommit: false,
    ...group,
    minBytes: options.minBytes ?? 1,
    maxWaitTime: options.maxWaitTimeMs ?? 5_000,
    maxBytes: options.maxBytes ?? 10 * 1024 * 1024,
  });
  absorbLateConnectionErrors(consumer);
  const maxBytesPerPartition = options.maxBytesPerPartition ?? 1024 * 1024;
  const concurrency = Math.max(1, options.partitionsConcurrently ?? 1);
  const fromBeginning = options.fromBeginning ?? true;

  let running = false;
  let generation = 0;
  let assigned = new Set<number>();
  /** Next offset to fetch per assigned partition; absent until the committed offset is known. */
  const positions = new Map<number, bigint>();
  /** Bumped by a seek or a join: a batch or fetch of an older epoch is stale. */
  const epochs = new Map<number, number>();
  const paused = new Set<number>();
  /** Partitions whose fetched batch waits for or is in its handler. */
  const busy = new Set<number>();
  const inflightNodes = new Set<number>();
  /** Partitions with a fetch in flight. */
  const fetching = new Set<number>();
  const ready: Fetched[] = [];
  let handling = 0;
  const handlers = new Set<Promise<void>>();
  let onBatch: Handler | undefined;
  const assignmentListeners: ((partitions: number[], join?: { isLeader: boolean }) => void)[] = [];
  const crashListeners: ((error: Error, restart: boolean) => void)[] = [];
  let wake: () => void = () => {};
  let wakeup = new Promise<void>((r) => {
    wake = r;
  });
  const poke = () => {
    const w = wake;
    wakeup = new Promise<void>((r) => {
      wake = r;
    });
    w();
  };
  let loopDone: Promise<void> | undefined;

  const epochOf = (p: number) => epochs.get(p) ?? 0;
  const bump = (p: number) => epochs.set(p, epochOf(p) + 1);
  /** Fetch-path failures are retried here; the first of a run of them is reported, not each retry. */
  let failing = false;
  const transient = (error: Error) => {
    if (!failing) crash(error, true);
    failing = true;
  };
  const crash = (error: Error, restart: boolean) => {
    for (const l of crashListeners) {
      try {
        l(error, restart);
      } catch {
        // a listener must not break the consumer
      }
    }
  };

  /** The committed offsets of this generation's partitions (the log start when none, as `fromBeginning`). */
  const loadPositions = async (gen: number, partitions: number[]) => {
    for (;;) {
      if (!running || gen !== generation) return;
      try {
        const committed = await consumer.listCommittedOffsets({ topics: [{ topic, partitions }] });
        const offsets = committed.get(topic) ?? [];
        const missing = partitions.filter((p) => (offsets[p] ?? -1n) < 0n);
        const start = missing.length
          ? await consumer.listOffsets({
              topics: [topic],
              partitions: { [topic]: missing },
              timestamp: fromBeginning ? ListOffsetTimestamps.EARLIEST : ListOffsetTimestamps.LATEST,
            })
          : undefined;
        if (gen !== generation) return;
        for (const p of partitions) {
          // A seek made in this generation while the offsets were read is newer than them: a commit may even have
          // moved past them since (the soak's duplicates, docs/reliability.md).
          if (positions.has(p)) continue;
          const c = offsets[p] ?? -1n;
          positions.set(p, c >= 0n ? c : (start?.get(topic)?.[p] ?? 0n));
        }
        poke();
        return;
      } catch (err) {
        transient(err as Error);
        await new Promise((r) => setTimeout(r, ERROR_BACKOFF_MS));
      }
    }
  };

  consumer.on('consumer:group:join', (payload) => {
    generation++;
    const gen = generation;
    const partitions = (payload.assignments ?? []).filter((a) => a.topic === topic).flatMap((a) => a.partitions);
    assigned = new Set(partitions);
    positions.clear();
    for (const p of partitions) bump(p);
    for (const p of [...epochs.keys()]) if (!assigned.has(p)) bump(p);
    ready.length = 0;
    for (const l of assignmentListeners)
      l(
        [...partitions].sort((a, b) => a - b),
        { isLeader: payload.isLeader ?? false },
      );
    void loadPositions(gen, partitions);
    poke();
  });
  // A rejoin that failed for good leaves the group: join again.
  consumer.on('error', (err: Error) => {
    if (!running) return;
    crash(err, true);
    setTimeout(() => {
      if (running) consumer.joinGroup(group).catch((e: unknown) => crash(e as Error, true));
    }, ERROR_BACKOFF_MS).unref();
  });

  const commit = async (partition: number, nextOffset: string) => {
    if (!assigned.has(partition)) throw new Error(`${topic}[${partition}] is not assigned to this member`);
    const before = generation;
    await consumer.commit({ offsets: [{ topic, partition, offset: BigInt(nextOffset), leaderEpoch: -1 }] });
    if (generation !== before) throw new Error(`${topic}[${partition}]: the group rebalanced during the commit`);
  };

  const handle = (f: Fetched) => {
    handling++;
    const p = f.partition;
    const control: BatchControl = {
      isActive: () => running && epochOf(p) === f.epoch && assigned.has(p),
      heartbeat: async () => {
        if (!control.isActive()) throw new Error(`${topic}[${p}]: rebalanced or sought, batch abandoned`);
      },
      markFetched: (offset) => {
        if (control.isActive()) positions.set(p, BigInt(offset) + 1n);
      },
    };
    const work = (async () => {
      try {
        await onBatch?.(f.batch, control);
      } catch (err) {
        crash(err as Error, true);
      } finally {
        handling--;
        busy.delete(p);
        poke();
      }
    })();
    handlers.add(work);
    void work.finally(() => handlers.delete(work));
  };

  const fetchFrom = async (node: number, partitions: number[]) => {
    const requested = partitions.map((p) => ({ p, epoch: epochOf(p), from: positions.get(p) as bigint }));
    for (const p of partitions) fetching.add(p);
    try {
      const md = await consumer.metadata({ topics: [topic] });
      const topicId = md.topics.get(topic)?.id;
      if (!topicId) throw new Error(`topic ${topic} has no metadata`);
      const response = await consumer.fetch({
        node,
        topics: [
          {
            topicId,
            partitions: requested.map((r) => ({
              partition: r.p,
              fetchOffset: r.from,
              partitionMaxBytes: maxBytesPerPartition,
              currentLeaderEpoch: -1,
              lastFetchedEpoch: -1,
            })),
          },
        ],
      });
      failing = false;
      for (const t of response.responses) {
        for (const part of t.partitions) {
          const r = requested.find((x) => x.p === part.partitionIndex);
          if (!r || part.errorCode !== 0) continue;
          if (!running || r.epoch !== epochOf(r.p) || !assigned.has(r.p)) continue;
          const messages = messagesOf(topic, r.p, r.from, part);
          if (messages.length === 0) {
            // Only records before the position (the rest of a compressed batch): skip past them.
            if ((part.records?.length ?? 0) > 0 && part.highWatermark > r.from) {
              const last = part.records?.at(-1);
              if (last) positions.set(r.p, last.firstOffset + BigInt(last.lastOffsetDelta) + 1n);
            }
            continue;
          }
          busy.add(r.p);
          ready.push({
            partition: r.p,
            epoch: r.epoch,
            batch: { topic, partition: r.p, highWatermark: String(part.highWatermark), messages },
          });
        }
      }
    } catch (err) {
      if (running) {
        transient(err as Error);
        consumer.clearMetadata();
        await new Promise((r) => setTimeout(r, ERROR_BACKOFF_MS));
      }
    } finally {
      for (const p of partitions) fetching.delete(p);
      inflightNodes.delete(node);
      poke();
    }
  };

  const loop = async () => {
    while (running) {
      // Taken before the iteration's awaits: a poke during them (a batch handled) must start the next iteration.
      const poked = wakeup;
      while (ready.length > 0 && handling < concurrency) {
        const f = ready.shift() as Fetched;
        if (f.epoch !== epochOf(f.partition) || !assigned.has(f.partition)) {
          busy.delete(f.partition);
          continue;
        }
        handle(f);
      }
      const wanted = [...assigned].filter(
        (p) => positions.has(p) && !paused.has(p) && !busy.has(p) && !fetching.has(p),
      );
      if (wanted.length > 0) {
        try {
          const md = await consumer.metadata({ topics: [topic] });
          const leaderOf = (p: number) => md.topics.get(topic)?.partitions[p]?.leader ?? -1;
          // A broker is fetched again once every batch of its previous fetch is handled, so a long
          // poll on its idle partitions never holds back a partition whose batch just finished.
          const held = new Set<number>();
          for (const p of assigned) if (busy.has(p) || fetching.has(p)) held.add(leaderOf(p));
          const byNode = new Map<number, number[]>();
          for (const p of wanted) {
            const leader = leaderOf(p);
            if (leader < 0 || inflightNodes.has(leader) || held.has(leader)) continue;
            byNode.set(leader, [...(byNode.get(leader) ?? []), p]);
          }
          for (const [node, ps] of byNode) {
            inflightNodes.add(node);
            void fetchFrom(node, ps);
          }
        } catch (err) {
          transient(err as Error);
          consumer.clearMetadata();
          await new Promise((r) => setTimeout(r, ERROR_BACKOFF_MS));
          continue;
        }
      }
      await poked;
    }
  };

  return {
    async run(handler) {
      onBatch = handler;
      running = true;
      consumer.topics.track(topic);
      await explained(() => consumer.joinGroup(group), saslMechanismOf(client));
      loopDone = loop();
    },
    commit,
    confirmAssigned: commit,
    pause(partitions) {
      for (const p of partitions) paused.add(p);
    },
    resume(partitions) {
      for (const p of partitions) paused.delete(p);
      poke();
    },
    seek(partition, offset) {
      bump(partition);
      positions.set(partition, BigInt(offset));
      poke();
    },
    onAssignment(listener) {
      assignmentListeners.push(listener);
    },
    onCrash(listener) {
      crashListeners.push(listener);
    },
    async disconnect() {
      running = false;
      poke();
      await loopDone;
      await Promise.allSettled([...handlers]);
      await consumer.close(true).catch(() => {});
    },
  };
}
