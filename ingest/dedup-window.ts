/**
 * Re-sent messages (docs/exactly-once.md, "Re-sent requests"): a message of a partition whose id
 * (platform/kafka/message-id.ts) equals the id of a message at most `size` offsets before it in the same partition
 * is a re-send, and its rows are not stored again. The rule reads only the log (offsets and ids), so every consumer
 * and every replay decides the same; `size` bounds the memory (one entry per message id in the window).
 */
export class DedupWindow {
  /** Each id's latest offset. */
  private readonly latest = new Map<string, number>();
  /** Added (offset, id) pairs in offset order, oldest first from `head`: what to evict. */
  private offsets: number[] = [];
  private ids: string[] = [];
  private head = 0;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size <= 0) throw new Error(`a dedup window needs a positive size, got ${size}`);
  }

  /** The offset of an earlier message with this id within the window of `offset`, if there is one. */
  earlier(id: string, offset: number): number | undefined {
    const seen = this.latest.get(id);
    return seen !== undefined && seen < offset && offset - seen <= this.size ? seen : undefined;
  }

  /** Remembers a message; adds come in offset order (a partition's committed ranges, then the next ones). */
  add(offset: number, id: string): void {
    const seen = this.latest.get(id);
    if (seen === undefined || seen < offset) this.latest.set(id, offset);
    this.offsets.push(offset);
    this.ids.push(id);
    this.evictBefore(offset - this.size);
  }

  /** Ids remembered (tests check that the memory stays bounded). */
  get count(): number {
    return this.latest.size;
  }

  private evictBefore(offset: number): void {
    while (this.head < this.offsets.length && this.offsets[this.head]! < offset) {
      const id = this.ids[this.head]!;
      if (this.latest.get(id) === this.offsets[this.head]) this.latest.delete(id);
      this.head++;
    }
    // Drop the evicted prefix now and then, not on every add.
    if (this.head > 4_096 && this.head * 2 > this.offsets.length) {
      this.offsets = this.offsets.slice(this.head);
      this.ids = this.ids.slice(this.head);
      this.head = 0;
    }
  }
}
