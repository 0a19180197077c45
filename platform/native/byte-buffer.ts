/**
 * A growable byte buffer: the core of both Native encoders (platform/native/encode.ts from rows, ingest/columns/ from
 * wire bytes). Grows by doubling into uninitialised memory (every byte is written before it is read).
 */
import { Buffer } from 'node:buffer';

export class ByteBuffer {
  buf: Buffer;
  pos = 0;

  constructor(initial: number) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** An unsigned varint, exact up to 2^53 (32-bit shifts below 2^32, division above). */
  varint(v: number): void {
    this.ensure(10);
    while (v > 0xffffffff) {
      this.buf[this.pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  /** A little-endian 64-bit value from its two 32-bit halves (byte stores: cheaper than bounds-checked writes). */
  u64Halves(lo: number, hi: number): void {
    this.ensure(8);
    const buf = this.buf;
    const p = this.pos;
    buf[p] = lo;
    buf[p + 1] = lo >>> 8;
    buf[p + 2] = lo >>> 16;
    buf[p + 3] = lo >>> 24;
    buf[p + 4] = hi;
    buf[p + 5] = hi >>> 8;
    buf[p + 6] = hi >>> 16;
    buf[p + 7] = hi >>> 24;
    this.pos = p + 8;
  }
}
