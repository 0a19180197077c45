import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DLQ_HEADERS } from '../../../ingest/dead-letter.ts';
import { LetterBook, MARKER_HEADERS, replayIdOf, replayLetters } from '../../../ingest/dlq/index.ts';
import type { BatchMessage, OutgoingMessage, Producer } from '../../../platform/kafka/index.ts';
import { MESSAGE_ID_HEADER } from '../../../platform/kafka/index.ts';

function letter(offset: number, reason: string, at: number, extra: Record<string, string> = {}): BatchMessage {
  const value = Buffer.from(`spans-${offset}`);
  return {
    topic: 'dlq',
    partition: 0,
    offset: String(offset),
    timestamp: String(at),
    key: null,
    value,
    size: value.length,
    headers: {
      [DLQ_HEADERS.REASON]: reason,
      [DLQ_HEADERS.ERROR]: `${reason}: 1 span(s)`,
      [DLQ_HEADERS.SOURCE_TOPIC]: 'otlp_spans',
      [DLQ_HEADERS.SOURCE_PARTITION]: '1',
      [DLQ_HEADERS.SOURCE_OFFSET]: String(100 + offset),
      ...extra,
    },
  };
}

function marker(offset: number, of: string): BatchMessage {
  return {
    ...letter(offset, 'x', 5_000),
    headers: { [MARKER_HEADERS.REPLAYED]: of, [MARKER_HEADERS.REPLAYED_TO]: 'otlp_spans' },
  };
}

function fakeProducer(failOn?: string) {
  const sent: { topic: string; messages: OutgoingMessage[] }[] = [];
  const producer: Producer = {
    connect: async () => {},
    disconnect: async () => {},
    send: async (topic, messages) => {
      if (topic === failOn) throw new Error(`${topic} unavailable`);
      sent.push({ topic, messages });
    },
  };
  return { producer, sent };
}

describe('dead-letter book and replay', () => {
  it('selects letters by reason, time and id, and marks those a marker names as replayed', () => {
    const book = new LetterBook();
    book.add(letter(0, 'missing_tenant', 1_000));
    book.add(letter(1, 'decode_error', 2_000));
    book.add(marker(2, 'dlq:0:0'));
    book.add(letter(3, 'missing_tenant', 3_000));
    assert.deepEqual(
      book.select().map((l) => l.id),
      ['0:0', '0:1', '0:3'],
      'markers are not letters',
    );
    assert.deepEqual(
      book.select({ reasons: ['missing_tenant'] }).map((l) => l.id),
      ['0:0', '0:3'],
    );
    assert.deepEqual(
      book.select({ since: new Date(2_000) }).map((l) => l.id),
      ['0:1', '0:3'],
    );
    assert.deepEqual(
      book.select({ until: new Date(2_000) }).map((l) => l.id),
      ['0:0'],
    );
    assert.deepEqual(
      book.select({ ids: ['0:3'] }).map((l) => l.id),
      ['0:3'],
    );
    assert.equal(book.select()[0]?.replayed?.to, 'otlp_spans');
    assert.equal(book.select()[2]?.replayed, undefined);
    assert.deepEqual(book.select()[0]?.source, { topic: 'otlp_spans', partition: 1, offset: '100' });
  });

  it('replays to the source topic with a message id of the letter, then marks it; skips what was replayed unless forced', async () => {
    const book = new LetterBook();
    book.add(letter(0, 'missing_tenant', 1_000));
    book.add(marker(1, 'dlq:0:0'));
    book.add(letter(2, 'missing_tenant', 2_000, { [DLQ_HEADERS.REPLAY_OF]: 'dlq:0:0' }));
    const { producer, sent } = fakeProducer();
    const outcome = await replayLetters(producer, book.select(), { deadLetterTopic: 'dlq' });
    assert.deepEqual(
      outcome.replayed.map((r) => r.letter.id),
      ['0:2'],
    );
    assert.match(outcome.skipped[0]?.why ?? '', /already replayed to otlp_spans .*--force/);
    assert.deepEqual(
      sent.map((s) => s.topic),
      ['otlp_spans', 'dlq'],
      'the marker only after the replay was acknowledged',
    );
    const replayed = sent[0]!.messages[0]!;
    assert.deepEqual(replayed.value, Buffer.from('spans-2'));
    assert.deepEqual(replayed.headers?.[MESSAGE_ID_HEADER], replayIdOf('dlq:0:2'));
    assert.equal(replayed.key, replayIdOf('dlq:0:2').toString('hex'), 'every copy on one partition');
    assert.equal(replayed.headers?.['tooltrail-replay-of'], 'dlq:0:0', 'names the origin of the spans');
    assert.equal(sent[1]!.messages[0]!.headers?.[MARKER_HEADERS.REPLAYED], 'dlq:0:2');

    const again = fakeProducer();
    const forced = await replayLetters(again.producer, book.select(), { deadLetterTopic: 'dlq', force: true });
    assert.equal(forced.replayed.length, 2);
    assert.notDeepEqual(replayIdOf('dlq:0:0'), replayIdOf('dlq:0:2'), 'a failed replay does not hide the next one');
  });

  it('leaves a letter unmarked when its replay was not acknowledged', async () => {
    const book = new LetterBook();
    book.add(letter(0, 'missing_tenant', 1_000));
    const { producer, sent } = fakeProducer('otlp_spans');
    await assert.rejects(replayLetters(producer, book.select(), { deadLetterTopic: 'dlq' }), /otlp_spans unavailable/);
    assert.equal(sent.length, 0);
  });

  it('skips a letter without a source topic, or whose source is the dead-letter topic', async () => {
    const book = new LetterBook();
    const noSource = letter(0, 'decode_error', 1_000);
    delete noSource.headers[DLQ_HEADERS.SOURCE_TOPIC];
    book.add(noSource);
    const { producer } = fakeProducer();
    const outcome = await replayLetters(producer, book.select(), { deadLetterTopic: 'dlq' });
    assert.match(outcome.skipped[0]?.why ?? '', /no source topic .*--to-topic/);
    const looped = await replayLetters(producer, book.select(), { deadLetterTopic: 'dlq', toTopic: 'dlq' });
    assert.match(looped.skipped[0]?.why ?? '', /is the dead-letter topic/);
  });
});
