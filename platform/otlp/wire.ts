/** Protobuf wire-format sizes and varints, for the code that assembles OTLP messages from byte ranges. */

/** Bytes of `n` as an unsigned varint (n may exceed 2^32: no 32-bit shifts). */
export function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** Writes `n` as an unsigned varint at `at`; returns the position after it. */
export function writeVarint(buf: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    buf[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[at++] = n;
  return at;
}

/** Size of a length-delimited field (one-byte tag + length + body). */
export const fieldSize = (len: number) => 1 + varintSize(len) + len;
