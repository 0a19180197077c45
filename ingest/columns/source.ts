/** The message whose rows are being written: the bytes the reader's positions point into. */
import { Buffer } from 'node:buffer';

/** The bytes (one object: importers keep it in a local binding). */
export const source: { buf: Buffer } = { buf: Buffer.alloc(0) };

export function setSource(bytes: Buffer): void {
  source.buf = bytes;
}

/** Whether B[start, start+len) holds `bytes`. */
export function same(start: number, len: number, bytes: Buffer): boolean {
  if (len !== bytes.length) return false;
  const b = source.buf;
  for (let i = 0; i < len; i++) if (b[start + i] !== bytes[i]) return false;
  return true;
}

/** Whether B[start, start+len) starts with `bytes`. */
export function startsWith(start: number, len: number, bytes: Buffer): boolean {
  if (len < bytes.length) return false;
  const b = source.buf;
  for (let i = 0; i < bytes.length; i++) if (b[start + i] !== bytes[i]) return false;
  return true;
}

/** Whether B[start, start+len) is one of `allowed`. */
export function allowedValue(allowed: readonly Buffer[], start: number, len: number): boolean {
  for (let k = 0; k < allowed.length; k++) if (same(start, len, allowed[k] as Buffer)) return true;
  return false;
}

export function text(at: number, len: number): string {
  return source.buf.toString('utf8', at, at + len);
}
