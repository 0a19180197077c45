import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyMissing, formatMissing, type KafkaPlace, spanIdsOf } from '../../../chaos/topic-readback.ts';
import { encodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { syntheticRequest } from '../../../testkit/ingest.ts';

const place = (topic: string, partition: number, offset: number): KafkaPlace => ({
  topic,
  partition,
  offset: String(offset),
});

describe('chaos read-back of missing spans', () => {
  it('names a missing span found in the topic with its partition and offset (unconsumed or not inserted)', () => {
    const found = new Map([['aa', [place('spans', 2, 41)]]]);
    const r = classifyMissing(['aa'], found, 'spans');
    assert.deepEqual(r.inTopic, [{ spanId: 'aa', at: place('spans', 2, 41) }]);
    assert.deepEqual(r.notInKafka, []);
    assert.deepEqual(r.deadLettered, []);
  });

  it('says a missing span found in no topic was lost by the producer', () => {
    const r = classifyMissing(['aa', 'bb'], new Map([['aa', [place('spans', 0, 1)]]]), 'spans');
    assert.deepEqual(r.notInKafka, ['bb']);
    assert.equal(r.inTopic.length, 1);
  });

  it('tells a span only in the dead-letter topic apart, and prefers the topic when it is in both', () => {
    const found = new Map([
      ['aa', [place('spans_dlq', 0, 3)]],
      ['bb', [place('spans_dlq', 0, 4), place('spans', 1, 9)]],
    ]);
    const r = classifyMissing(['aa', 'bb'], found, 'spans');
    assert.deepEqual(r.deadLettered, [{ spanId: 'aa', at: place('spans_dlq', 0, 3) }]);
    assert.deepEqual(r.inTopic, [{ spanId: 'bb', at: place('spans', 1, 9) }]);
    const lines = formatMissing(r).join('\n');
    assert.match(lines, /1 in the topic, not stored .*bb at spans\[1\]@9/);
    assert.match(lines, /1 dead-lettered only: aa at spans_dlq\[0\]@3/);
    assert.match(lines, /0 in no topic/);
  });

  it('reads the hex span ids of a message value, and none from bytes that are not OTLP', () => {
    const req = syntheticRequest({ tenant: 't', toolSpans: 3, seed: 5 });
    const expected = req.resourceSpans.flatMap((rs) =>
      rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => Buffer.from(s.spanId ?? []).toString('hex'))),
    );
    assert.equal(expected.length, 4, 'the agent turn and its three tool spans');
    assert.deepEqual(spanIdsOf(Buffer.from(encodeExportTraceServiceRequest(req))), expected);
    assert.deepEqual(spanIdsOf(Buffer.from([0xff, 0xff, 0xff])), []);
    assert.deepEqual(spanIdsOf(null), []);
  });
});
