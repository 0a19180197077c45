/**
 * Replay: a letter's message goes back to its source topic, through the ingest's one exactly-once path, once the
 * cause is fixed (a default tenant configured, a producer's encoding corrected). Idempotent twice over: a marker in
 * the dead-letter topic records each replayed letter, so a second replay skips it; and the replayed message carries
 * a message id derived from the letter and is keyed by it (every copy lands on one partition), so the ingest's
 * re-send window (docs/exactly-once.md, "Re-sent requests") leaves out a copy replayed again with `--force`.
 * The id names the letter, not its spans: a replay that failed (dead-lettered again, in a new letter) must not make
 * the ingest leave out the replay of that new letter once the cause is fixed. Nor is it the original message's id,
 * which the ingest would take the replay for a re-send of.
 */
import { createHash } from 'node:crypto';
import {
  MESSAGE_ID_BYTES,
  MESSAGE_ID_HEADER,
  type OutgoingMessage,
  type Producer,
} from '../../platform/kafka/index.ts';
import { REPLAY_HEADER } from '../dead-letter.ts';
import { type DeadLetter, letterRef, MARKER_HEADERS } from './letters.ts';

/** Sends per produce request: well under the broker's message.max.bytes for letters of a few MiB at most. */
const CHUNK = 50;

/** The letter a letter's spans were first dead-lettered in (`topic:partition:offset`), named in the replay. */
export const originOf = (l: DeadLetter): string => l.replayOf ?? letterRef(l);

/** The message id of a replay of `letter` (`topic:partition:offset`): the same for every replay of that letter. */
export function replayIdOf(letter: string): Buffer {
  return createHash('sha256').update(`tooltrail-dlq-replay\0${letter}`).digest().subarray(0, MESSAGE_ID_BYTES);
}

export interface ReplayOptions {
  /** The dead-letter topic (where the markers go). */
  deadLetterTopic: string;
  /** Replay letters already replayed (the ingest's re-send window still leaves out recent copies). */
  force?: boolean;
  /** Where to publish instead of each letter's source topic. */
  toTopic?: string;
}

export interface ReplayOutcome {
  replayed: { letter: DeadLetter; to: string }[];
  skipped: { letter: DeadLetter; why: string }[];
}

export async function replayLetters(
  producer: Producer,
  letters: readonly DeadLetter[],
  o: ReplayOptions,
): Promise<ReplayOutcome> {
  const outcome: ReplayOutcome = { replayed: [], skipped: [] };
  const byTopic = new Map<string, DeadLetter[]>();
  for (const l of letters) {
    if (l.replayed && !o.force) {
      outcome.skipped.push({
        letter: l,
        why: `already replayed to ${l.replayed.to} at ${l.replayed.at.toISOString()} (--force to replay it again)`,
      });
      continue;
    }
    const to = o.toTopic ?? l.source.topic;
    if (!to) {
      outcome.skipped.push({ letter: l, why: 'no source topic in its headers (give --to-topic)' });
      continue;
    }
    if (to === o.deadLetterTopic) {
      outcome.skipped.push({ letter: l, why: `its source topic is the dead-letter topic ${to}` });
      continue;
    }
    const list = byTopic.get(to) ?? [];
    byTopic.set(to, list);
    list.push(l);
  }
  for (const [to, list] of byTopic) {
    for (let i = 0; i < list.length; i += CHUNK) {
      const chunk = list.slice(i, i + CHUNK);
      const messages: OutgoingMessage[] = chunk.map((l) => {
        const origin = originOf(l);
        const id = replayIdOf(letterRef(l));
        return {
          key: id.toString('hex'),
          value: l.value,
          headers: { [MESSAGE_ID_HEADER]: id, [REPLAY_HEADER]: origin },
        };
      });
      await producer.send(to, messages);
      // Marked only once the source topic acknowledged: a failure here at worst replays again, which the ingest's
      // re-send window leaves out.
      await producer.send(
        o.deadLetterTopic,
        chunk.map((l) => ({
          key: letterRef(l),
          value: Buffer.alloc(0),
          headers: { [MARKER_HEADERS.REPLAYED]: letterRef(l), [MARKER_HEADERS.REPLAYED_TO]: to },
        })),
      );
      for (const l of chunk) outcome.replayed.push({ letter: l, to });
    }
  }
  return outcome;
}
