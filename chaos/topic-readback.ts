/**
 * Where the acknowledged spans that were not stored are: the soak reads its topic and the dead-letter topic itself
 * (every partition, from the start, through platform/kafka) and names, for each missing span id, the partition and
 * offset that hold it — unconsumed or not inserted — or says it is in no topic at all (the producer lost it).
 */
import { type KafkaClient, readTopic } from '../platform/kafka/index.ts';
import { decodeExportTraceServiceRequest } from '../platform/otlp/index.ts';

export interface KafkaPlace {
  topic: string;
  partition: number;
  offset: string;
}

export interface MissingReport {
  /** In the soak's topic but not stored: the ingest never consumed it, or consumed it without inserting it. */
  inTopic: { spanId: string; at: KafkaPlace }[];
  /** Only in the dead-letter topic: the ingest refused it (a reason in its DLQ metrics). */
  deadLettered: { spanId: string; at: KafkaPlace }[];
  /** In no topic: acknowledged by the collector, never written by the producer. */
  notInKafka: string[];
}

/** Sorts the missing ids by where the read-back found them (`found`: span id -> every place it is). */
export function classifyMissing(
  missing: readonly string[],
  found: ReadonlyMap<string, readonly KafkaPlace[]>,
  mainTopic: string,
): MissingReport {
  const r: MissingReport = { inTopic: [], deadLettered: [], notInKafka: [] };
  for (const spanId of missing) {
    const places = found.get(spanId) ?? [];
    const main = places.find((p) => p.topic === mainTopic);
    if (main) r.inTopic.push({ spanId, at: main });
    else if (places[0]) r.deadLettered.push({ spanId, at: places[0] });
    else r.notInKafka.push(spanId);
  }
  return r;
}

/** Hex ids of every span in a message value (an OTLP ExportTraceServiceRequest); none when it does not decode. */
export function spanIdsOf(value: Buffer | null): string[] {
  if (!value) return [];
  try {
    const ids: string[] = [];
    for (const rs of decodeExportTraceServiceRequest(value).resourceSpans)
      for (const ss of rs.scopeSpans)
        for (const s of ss.spans) if (s.spanId) ids.push(Buffer.from(s.spanId).toString('hex'));
    return ids;
  } catch {
    return []; // a message the ingest would dead-letter: it cannot hold an id we look for either
  }
}

/** Reads `topics` from the start (the first is the soak's own) and classifies `missing` by where they are. */
export async function readBackMissing(
  kafka: KafkaClient,
  topics: readonly string[],
  missing: readonly string[],
  options: { timeoutMs?: number; attempts?: number } = {},
): Promise<MissingReport> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return classifyMissing(missing, await findIn(kafka, topics, new Set(missing), options), topics[0] ?? '');
    } catch (err) {
      // A group coordinator still moving (a new cluster, a broker just back) refuses the offsets: read again.
      if (attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 2_000));
    }
  }
}

/** Every place (topic, partition, offset) of each span id in `wanted`, reading `topics` from the start. */
export async function findIn(
  kafka: KafkaClient,
  topics: readonly string[],
  wanted: ReadonlySet<string>,
  options: { timeoutMs?: number },
): Promise<Map<string, KafkaPlace[]>> {
  const found = new Map<string, KafkaPlace[]>();
  for (const topic of topics) {
    await readTopic(
      kafka,
      topic,
      (m) => {
        for (const id of spanIdsOf(m.value)) {
          if (!wanted.has(id)) continue;
          const places = found.get(id) ?? [];
          places.push({ topic, partition: m.partition, offset: m.offset });
          found.set(id, places);
        }
      },
      options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
    );
  }
  return found;
}

/** The report's lines: counts, and where the first few are (partition@offset). */
export function formatMissing(r: MissingReport): string[] {
  const where = (xs: { spanId: string; at: KafkaPlace }[]) =>
    xs
      .slice(0, 5)
      .map((x) => `${x.spanId} at ${x.at.topic}[${x.at.partition}]@${x.at.offset}`)
      .join(', ');
  return [
    `  read back from Kafka:       ${r.inTopic.length} in the topic, not stored (unconsumed or not inserted)${r.inTopic.length ? `: ${where(r.inTopic)}` : ''}`,
    `                              ${r.deadLettered.length} dead-lettered only${r.deadLettered.length ? `: ${where(r.deadLettered)}` : ''}`,
    `                              ${r.notInKafka.length} in no topic (lost by the producer)${r.notInKafka.length ? `: ${r.notInKafka.slice(0, 5).join(', ')}` : ''}`,
  ];
}
