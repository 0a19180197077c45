import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareSortedIds } from '../../../chaos/accounting.ts';

async function* rows(pairs: [string, number][]): AsyncGenerator<[string, number]> {
  for (const p of pairs) yield p;
}

describe('chaos accounting: stored span ids against the ids sent', () => {
  it('counts a missing acknowledged id as lost, a second row as a duplicate, and a never-sent id as unknown', async () => {
    const c = await compareSortedIds(
      rows([
        ['00aa', 1],
        ['0bbb', 2],
        ['0ccc', 1],
        ['ffff', 1],
      ]),
      ['0bbb', '00aa', '0abc', 'fffe'],
      ['0ccc', '0ddd'],
    );
    assert.equal(c.stored, 2);
    assert.deepEqual(c.lostAll, ['0abc', 'fffe']);
    assert.equal(c.lost, 2);
    assert.deepEqual(c.duplicatedAll, ['0bbb']);
    assert.equal(c.duplicateRows, 1);
    assert.equal(c.storedUnacknowledged, 1, 'an unacknowledged request that got through is allowed');
    assert.equal(c.unknown, 1);
    assert.equal(c.totalRows, 5);
  });

  it('refuses stored ids out of order rather than miscount them', async () => {
    await assert.rejects(
      compareSortedIds(
        rows([
          ['0b', 1],
          ['0a', 1],
        ]),
        [],
        [],
      ),
      /out of order/,
    );
  });
});
