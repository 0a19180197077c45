import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DedupWindow } from '../../../ingest/dedup-window.ts';

describe('dedup window (re-sent messages)', () => {
  it('finds an earlier message with the same id at most `size` offsets back, never a later one', () => {
    const w = new DedupWindow(10);
    w.add(5, 'a');
    assert.equal(w.earlier('a', 15), 5);
    assert.equal(w.earlier('a', 16), undefined, 'further back than the window');
    assert.equal(w.earlier('a', 5), undefined, 'the message itself');
    assert.equal(w.earlier('a', 4), undefined, 'a later message is not an earlier one');
    assert.equal(w.earlier('b', 6), undefined);
  });

  it('answers with the latest earlier copy, so a third copy is still a re-send of the second', () => {
    const w = new DedupWindow(10);
    w.add(0, 'a');
    w.add(8, 'a');
    assert.equal(w.earlier('a', 18), 8);
  });

  it('forgets ids that left the window (bounded memory), but not an id re-added since', () => {
    const w = new DedupWindow(100);
    for (let o = 0; o < 20_000; o++) w.add(o, `id${o}`);
    assert.ok(w.count <= 101, `remembers ${w.count} ids`);
    const v = new DedupWindow(3);
    v.add(0, 'a');
    v.add(2, 'a');
    v.add(4, 'b');
    assert.equal(v.earlier('a', 5), 2);
  });

  it('refuses a size that is not a positive integer', () => {
    assert.throws(() => new DedupWindow(0), /positive size/);
    assert.throws(() => new DedupWindow(1.5), /positive size/);
  });
});
