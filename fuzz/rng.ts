/** A seeded PRNG (mulberry32) and the small choices the generators make with it: every run is reproducible. */
import { mulberry32 } from '../platform/seeded-random.ts';

export class Rng {
  /** Uniform in [0, 1). */
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  bool(p = 0.5): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length - 1)] as T;
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(0, 255);
    return b;
  }
  /** A string mixing ASCII, punctuation that breaks parsers, control characters and non-ASCII code points. */
  string(maxLength = 24): string {
    const n = this.int(0, maxLength);
    let s = '';
    for (let i = 0; i < n; i++) {
      const k = this.next();
      if (k < 0.6) s += String.fromCharCode(this.int(0x20, 0x7e));
      else if (k < 0.75)
        s += this.pick(['%', '\\', '"', "'", '/', '..', '\u0000', '\n', '\r', '\t', '{', '}', '[', ']']);
      else if (k < 0.9) s += String.fromCodePoint(this.int(0x80, 0x2fff));
      else if (k < 0.97) s += String.fromCodePoint(this.int(0x1f300, 0x1faff));
      else s += String.fromCharCode(this.int(0xd800, 0xdfff)); // lone surrogate
    }
    return s;
  }
  hex(bytes: number): string {
    return this.bytes(bytes).toString('hex');
  }
}

/** A seed per target so `--only x` replays exactly the cases of a full run. */
export function targetSeed(seed: number, target: string): number {
  let h = seed >>> 0;
  for (const c of target) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

/** encodeURIComponent that takes any string (a lone surrogate becomes U+FFFD instead of throwing). */
export function uri(s: string): string {
  return encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
}
