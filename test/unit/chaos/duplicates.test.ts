import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyDuplicates, formatDuplicates, type RecordedRange } from '../../../chaos/duplicates.ts';
import type { KafkaPlace } from '../../../chaos/topic-readback.ts';

const at = (partition: number, offset: number): KafkaPlace => ({ topic: 'spans', partition, offset: String(offset) });
const range = (partition: number, first: number, last: number, state = 1, recordedAt = '2026-12-02 00:07:31.200') =>
  ({ partition, first, last, state, recordedAt }) satisfies RecordedRange;

describe('chaos read-back of spans stored twice', () => {
  it('names a span Kafka holds at two offsets a re-send that was not left out', () => {
    const r = classifyDuplicates(['aa'], new Map([['aa', [at(1, 10), at(1, 40)]]]), [
      range(1, 0, 20),
      range(1, 21, 50),
    ]);
    assert.equal(r.twiceInKafka.length, 1);
    assert.deepEqual(
      r.twiceInKafka[0]?.ranges.map((x) => `${x[0]?.first}-${x[0]?.last}`),
      ['0-20', '21-50'],
    );
    assert.equal(r.overlappingRanges.length + r.oneRange.length, 0);
  });

  it('names a span at one offset inside two differently cut ranges a message stored by two batches', () => {
    // An intent and a stored mark of 100-130, and another member's 100-160: two ranges over offset 120.
    const ranges = [range(2, 100, 130, 0), range(2, 100, 130, 1), range(2, 100, 160, 1), range(2, 131, 140)];
    const r = classifyDuplicates(['bb'], new Map([['bb', [at(2, 120)]]]), ranges);
    assert.equal(r.overlappingRanges.length, 1);
    const lines = formatDuplicates(r).join('\n');
    assert.match(lines, /1 at one offset, stored by two different ranges/);
    assert.match(
      lines,
      /bb at \[2\]@120: ranges 100-130 \(intent 00:07:31\.200, stored 00:07:31\.200\); 100-160 \(stored/,
    );
  });

  it('tells a span in one recorded range, and one in no topic, apart', () => {
    const r = classifyDuplicates(['cc', 'dd'], new Map([['cc', [at(0, 5)]]]), [range(0, 0, 9), range(1, 0, 9)]);
    assert.equal(r.oneRange.length, 1);
    assert.equal(r.oneRange[0]?.ranges.length, 1, 'a range of another partition does not cover it');
    assert.deepEqual(r.notInKafka, ['dd']);
  });
});
