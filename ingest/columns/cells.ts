/** Cells from the reader's slots: attribute values as flatten's text, maps, string arrays, ids, enums, nullables. */
import { Buffer } from 'node:buffer';
import {
  events as events$,
  links as links$,
  slots as slots$,
  span as span$,
  strings as strings$,
  V_BOOL as V_BOOL$,
  V_DOUBLE as V_DOUBLE$,
  V_INT as V_INT$,
  V_STRING as V_STRING$,
  V_STRINGS as V_STRINGS$,
} from '../../platform/otlp/reader/index.ts';
import { decline } from './decline.ts';
import { same as same$, source as sourceImport } from './source.ts';
import { encodedString as encodedString$, type Stream } from './stream.ts';

// Imports copied to local consts: 12-18% less CPU on these paths (ingest/README.md, "Local bindings").
const events = events$;
const links = links$;
const slots = slots$;
const span = span$;
const strings = strings$;
const V_BOOL = V_BOOL$;
const V_DOUBLE = V_DOUBLE$;
const V_INT = V_INT$;
const V_STRING = V_STRING$;
const V_STRINGS = V_STRINGS$;
const same = same$;
const source = sourceImport;
const encodedString = encodedString$;

const TRUE = encodedString('true');
const FALSE = encodedString('false');
const K_PROTO = Buffer.from('__proto__');

/**
 * Gives up (general path) on slots [from, to) that a plain-object map would not hold as they are: a value the
 * columns do not take (bytes, a key-value list, an array of anything but strings), an array-index-like key (they
 * sort first), `__proto__` (no key at all), a key given twice (one would be kept), a key over 64 KiB.
 */
export function checkPlainMap(from: number, to: number): void {
  const { key, keyLen, kind, hash } = slots;
  const b = source.buf;
  for (let a = from; a < to; a++) {
    if ((kind[a] as number) > V_STRINGS) decline('attribute_shape');
    const ks = key[a] as number;
    const kl = keyLen[a] as number;
    if (kl > 0xffff) decline('attribute_shape');
    if (kl > 0 && kl <= 10) {
      let digits = true;
      for (let j = 0; j < kl; j++) {
        const c = b[ks + j] as number;
        if (c < 0x30 || c > 0x39) {
          digits = false;
          break;
        }
      }
      if (digits) decline('attribute_shape');
    }
    if (same(ks, kl, K_PROTO)) decline('attribute_shape');
    const h = hash[a];
    for (let c = from; c < a; c++) {
      if (hash[c] !== h || keyLen[c] !== kl) continue;
      const kc = key[c] as number;
      let j = 0;
      while (j < kl && b[ks + j] === b[kc + j]) j++;
      if (j === kl) decline('attribute_shape');
    }
  }
}

export function findKey(from: number, to: number, k: Buffer): number {
  for (let i = from; i < to; i++) if (same(slots.key[i] as number, slots.keyLen[i] as number, k)) return i;
  return -1;
}

function int64Text(lo: number, hi: number): string {
  if (hi < 0x200000) return String(hi * 4294967296 + lo);
  if (hi >= 0xffe00000) return String((hi - 4294967296) * 4294967296 + lo);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)).toString();
}

function stringsOf(i: number): string[] {
  const out: string[] = [];
  for (let k = slots.a[i] as number, e = slots.b[i] as number; k < e; k++) {
    const at = strings.start[k] as number;
    out.push(source.buf.toString('utf8', at, at + (strings.len[k] as number)));
  }
  return out;
}

/** The value of slot i as flatten's `valueText` writes it. */
export function writeValueText(out: Stream, i: number): void {
  switch (slots.kind[i]) {
    case V_STRING:
      out.strFrom(source.buf, slots.a[i] as number, slots.b[i] as number);
      return;
    case V_BOOL:
      out.encoded(slots.a[i] ? TRUE : FALSE);
      return;
    case V_INT:
      out.str(int64Text((slots.a[i] as number) >>> 0, (slots.b[i] as number) >>> 0));
      return;
    case V_DOUBLE:
      out.str(String(source.buf.readDoubleLE(slots.a[i] as number)));
      return;
    case V_STRINGS:
      out.str(JSON.stringify(stringsOf(i)));
      return;
    default:
      out.str('');
  }
}

/** Map column: a count, the keys, the values (slots [from, to)). */
export function writeMap(counts: Stream, keys: Stream, values: Stream, from: number, to: number): void {
  counts.count(to - from);
  for (let i = from; i < to; i++) keys.strFrom(source.buf, slots.key[i] as number, slots.keyLen[i] as number);
  for (let i = from; i < to; i++) writeValueText(values, i);
}

/** An Array(String) value from a V_STRINGS slot: its count, then its strings. */
export function writeStrings(counts: Stream, values: Stream, i: number): void {
  const from = slots.a[i] as number;
  const to = slots.b[i] as number;
  for (let k = from; k < to; k++) values.strFrom(source.buf, strings.start[k] as number, strings.len[k] as number);
  counts.count(to - from);
}

export function writeString(out: Stream, at: number, len: number): void {
  if (at < 0) out.u8(0);
  else out.strFrom(source.buf, at, len);
}

export function writeHex(out: Stream, at: number, len: number): void {
  if (at < 0) out.u8(0);
  else out.hex(source.buf, at, len);
}

export function writeEnum(out: Stream, names: readonly Buffer[], v: number): void {
  const known = names[v];
  if (known !== undefined) out.encoded(known);
  else out.str(String(v));
}

/** Nullable(U)Int64 from slot i (-1: null): the null map, then the value (0 for null). */
export function writeNullable(st: Stream[], stream: number, i: number): void {
  (st[stream] as Stream).u8(i < 0 ? 1 : 0);
  (st[stream + 1] as Stream).u64Halves(i < 0 ? 0 : (slots.a[i] as number), i < 0 ? 0 : (slots.b[i] as number));
}

/** The string value of slot i ('' for -1). */
export function writeSlotString(out: Stream, i: number): void {
  if (i < 0) out.u8(0);
  else out.strFrom(source.buf, slots.a[i] as number, slots.b[i] as number);
}

/** An event time, or the span's start when it has none (or zero), as flatten does. */
export function writeEventTime(out: Stream, time: number): void {
  if (time >= 0 && (source.buf.readUInt32LE(time) !== 0 || source.buf.readUInt32LE(time + 4) !== 0))
    out.raw8(source.buf, time);
  else out.raw8(source.buf, span.start);
}

/** Events and links columns (tool_calls and spans lay them out alike), from the current span's. */
export function writeEventsAndLinks(
  st: Stream[],
  times: number,
  names: number,
  eattrs: number,
  ltrace: number,
  lspan: number,
  lstate: number,
  lattrs: number,
): void {
  // The streams indexed in place: a helper closure made per span costs, under tsx, a keepNames call per span.
  const nEvents = events.count;
  (st[times] as Stream).count(nEvents);
  (st[names] as Stream).count(nEvents);
  (st[eattrs] as Stream).count(nEvents);
  for (let k = 0; k < nEvents; k++) {
    const ev = events.list[k] as (typeof events.list)[number];
    writeEventTime(st[times + 1] as Stream, ev.time);
    writeString(st[names + 1] as Stream, ev.name, ev.nameLen);
    writeMap(st[eattrs + 1] as Stream, st[eattrs + 2] as Stream, st[eattrs + 3] as Stream, ev.kvFrom, ev.kvTo);
  }
  const nLinks = links.count;
  (st[ltrace] as Stream).count(nLinks);
  (st[lspan] as Stream).count(nLinks);
  (st[lstate] as Stream).count(nLinks);
  (st[lattrs] as Stream).count(nLinks);
  for (let k = 0; k < nLinks; k++) {
    const l = links.list[k] as (typeof links.list)[number];
    writeHex(st[ltrace + 1] as Stream, l.traceId, l.traceIdLen);
    writeHex(st[lspan + 1] as Stream, l.spanId, l.spanIdLen);
    writeString(st[lstate + 1] as Stream, l.state, l.stateLen);
    writeMap(st[lattrs + 1] as Stream, st[lattrs + 2] as Stream, st[lattrs + 3] as Stream, l.kvFrom, l.kvTo);
  }
}
