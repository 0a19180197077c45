/** `tooltrail dlq`'s logic: read the dead-letter topic, select letters, summarise one, replay them. */
import { type KafkaClient, readTopic } from '../../platform/kafka/index.ts';
import { LetterBook } from './letters.ts';

export { type DeadLetter, LetterBook, type LetterFilter, letterRef, MARKER_HEADERS } from './letters.ts';
export { originOf, type ReplayOptions, type ReplayOutcome, replayIdOf, replayLetters } from './replay.ts';
export { type LetterSummary, type SpanSummary, summarizeLetter } from './summary.ts';

/** Every letter and marker of the dead-letter topic as it is now (a topic not created yet holds none). */
export async function readLetters(
  kafka: KafkaClient,
  deadLetterTopic: string,
): Promise<{ book: LetterBook; exists: boolean }> {
  const book = new LetterBook();
  const { exists } = await readTopic(kafka, deadLetterTopic, (m) => book.add(m));
  return { book, exists };
}
