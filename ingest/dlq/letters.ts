/**
 * The dead-letter topic as a person reads it: letters (what the ingest could not store, one reason each) and the
 * replay markers `tooltrail dlq replay` appends beside them (a letter is replayed once unless forced).
 */
import type { BatchMessage } from '../../platform/kafka/index.ts';
import { DLQ_HEADERS } from '../dead-letter.ts';

/** Headers of a replay marker: the letter replayed (`topic:partition:offset`) and where it went. */
export const MARKER_HEADERS = {
  REPLAYED: 'tooltrail-dlq-replayed',
  REPLAYED_TO: 'tooltrail-dlq-replayed-to',
} as const;

export interface DeadLetter {
  /** `partition:offset` in the dead-letter topic: how the commands name a letter. */
  id: string;
  topic: string;
  partition: number;
  offset: string;
  /** When it was dead-lettered (the Kafka timestamp). */
  at: Date;
  reason: string;
  error: string;
  source: { topic: string | undefined; partition: number | undefined; offset: string | undefined };
  /** The letter this one's message was replayed from (it failed again). */
  replayOf: string | undefined;
  /** Every header, as text. */
  headers: Record<string, string>;
  bytes: number;
  value: Buffer;
  /** Set when a replay marker names this letter. */
  replayed: { at: Date; to: string } | undefined;
}

export interface LetterFilter {
  reasons?: readonly string[];
  since?: Date;
  until?: Date;
  /** Only these `partition:offset` ids. */
  ids?: readonly string[];
}

const text = (v: Buffer | string | undefined): string | undefined => (v === undefined ? undefined : String(v));

/** The full name of a letter, as markers and the replay header carry it. */
export const letterRef = (l: Pick<DeadLetter, 'topic' | 'partition' | 'offset'>) =>
  `${l.topic}:${l.partition}:${l.offset}`;

/** Builds the letters of a topic from its messages, markers applied, in topic order. */
export class LetterBook {
  private readonly letters: DeadLetter[] = [];
  private readonly markers = new Map<string, { at: Date; to: string }>();

  add(m: BatchMessage): void {
    const replayed = text(m.headers[MARKER_HEADERS.REPLAYED]);
    const at = new Date(Number(m.timestamp));
    if (replayed !== undefined) {
      this.markers.set(replayed, { at, to: text(m.headers[MARKER_HEADERS.REPLAYED_TO]) ?? '' });
      return;
    }
    const partition = text(m.headers[DLQ_HEADERS.SOURCE_PARTITION]);
    this.letters.push({
      id: `${m.partition}:${m.offset}`,
      topic: m.topic,
      partition: m.partition,
      offset: m.offset,
      at,
      reason: text(m.headers[DLQ_HEADERS.REASON]) ?? 'unknown',
      error: text(m.headers[DLQ_HEADERS.ERROR]) ?? '',
      source: {
        topic: text(m.headers[DLQ_HEADERS.SOURCE_TOPIC]),
        partition: partition !== undefined && /^\d+$/.test(partition) ? Number(partition) : undefined,
        offset: text(m.headers[DLQ_HEADERS.SOURCE_OFFSET]),
      },
      replayOf: text(m.headers[DLQ_HEADERS.REPLAY_OF]),
      headers: Object.fromEntries(
        Object.entries(m.headers).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
      ),
      bytes: m.value?.length ?? 0,
      value: m.value ?? Buffer.alloc(0),
      replayed: undefined,
    });
  }

  /** The letters that pass `filter`, with their replay state. */
  select(filter: LetterFilter = {}): DeadLetter[] {
    const ids = filter.ids ? new Set(filter.ids) : undefined;
    const out: DeadLetter[] = [];
    for (const l of this.letters) {
      if (ids && !ids.has(l.id)) continue;
      if (filter.reasons && filter.reasons.length > 0 && !filter.reasons.includes(l.reason)) continue;
      if (filter.since && l.at < filter.since) continue;
      if (filter.until && l.at >= filter.until) continue;
      out.push({ ...l, replayed: this.markers.get(letterRef(l)) });
    }
    return out;
  }
}
