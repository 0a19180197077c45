/**
 * kafkajs' record encoder (kafkajs 2.2.4 `protocol/recordBatch/record/v0`, pinned) builds each record through a
 * growing zero-filled buffer and one `Buffer.from([...])` per varint: for the collector's one ~4 KiB message per
 * trace that was ~10% of its CPU. `encodeRecord` writes the same bytes (Kafka record format v2: length, attributes,
 * timestamp delta, offset delta, key, value, headers; varints zigzag-encoded) into one buffer of the exact size,
 * for the common shape (string key, Buffer value, string or Buffer header values, small deltas); any other record
 * goes to kafkajs' own encoder. `installRecordEncoder` puts it in place of kafkajs' before kafkajs first loads its
 * produce request (which it does lazily), so nothing else in kafkajs changes.
 */
import { createRequire } from 'node:module';

const requireKafkajs = createRequire(import.meta.url);
const RECORD_MODULE = 'kafkajs/src/protocol/recordBatch/record/v0';
const ENCODER_MODULE = 'kafkajs/src/protocol/encoder';

interface RecordArgs {
  offsetDelta?: number;
  timestampDelta?: number;
  key?: unknown;
  value?: unknown;
  headers?: Record<string, unknown>;
}
interface EncoderLike {
  buf: Buffer;
  offset: number;
}
type RecordFn = (args: RecordArgs) => EncoderLike;

const kafkajsRecord = requireKafkajs(RECORD_MODULE) as RecordFn;
const EncoderClass = requireKafkajs(ENCODER_MODULE) as { prototype: EncoderLike };

/** Bytes of an unsigned varint. */
function uvarintSize(v: number): number {
  let n = 1;
  while ((v & 0xffffff80) !== 0) {
    n++;
    v >>>= 7;
  }
  return n;
}

const zigzag = (v: number) => (v << 1) ^ (v >> 31);

function putUVarint(buf: Buffer, at: number, v: number): number {
  while ((v & 0xffffff80) !== 0) {
    buf[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[at++] = v;
  return at;
}

/**
 * Records are short-lived (copied into their batch as soon as it is encoded): they are cut from 512 KiB slabs
 * instead of each being its own ArrayBuffer (a ~4 KiB record is too large for Node's buffer pool).
 */
const SLAB_SIZE = 512 * 1024;
let slab = Buffer.allocUnsafeSlow(0);
let slabAt = 0;
function take(size: number): Buffer {
  if (size > SLAB_SIZE / 8) return Buffer.allocUnsafe(size);
  if (slabAt + size > slab.length) {
    slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
    slabAt = 0;
  }
  const b = slab.subarray(slabAt, slabAt + size);
  slabAt = (slabAt + size + 7) & ~7;
  return b;
}

const smallDelta = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 2 ** 30;

/** One record as kafkajs encodes it, or kafkajs' own encoding for shapes this does not handle. */
export function encodeRecord(args: RecordArgs): EncoderLike {
  const { offsetDelta = 0, timestampDelta = 0, key, value, headers = {} } = args;
  if (typeof key !== 'string' || !Buffer.isBuffer(value) || !smallDelta(offsetDelta) || !smallDelta(timestampDelta)) {
    return kafkajsRecord(args);
  }
  const headerKeys = Object.keys(headers);
  const headerValues: (string | Buffer)[] = [];
  const keyLength = Buffer.byteLength(key, 'utf8');
  let body =
    1 +
    uvarintSize(zigzag(timestampDelta)) +
    uvarintSize(zigzag(offsetDelta)) +
    uvarintSize(zigzag(keyLength)) +
    keyLength +
    uvarintSize(zigzag(value.length)) +
    value.length +
    uvarintSize(zigzag(headerKeys.length));
  for (const k of headerKeys) {
    const v = headers[k];
    if (typeof v !== 'string' && !Buffer.isBuffer(v)) return kafkajsRecord(args);
    headerValues.push(v);
    const kl = Buffer.byteLength(k, 'utf8');
    const vl = typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : v.length;
    body += uvarintSize(zigzag(kl)) + kl + uvarintSize(zigzag(vl)) + vl;
  }
  const buf = take(uvarintSize(zigzag(body)) + body);
  let at = putUVarint(buf, 0, zigzag(body));
  buf[at++] = 0; // attributes
  at = putUVarint(buf, at, zigzag(timestampDelta));
  at = putUVarint(buf, at, zigzag(offsetDelta));
  at = putUVarint(buf, at, zigzag(keyLength));
  at += buf.write(key, at, keyLength, 'utf8');
  at = putUVarint(buf, at, zigzag(value.length));
  at += value.copy(buf, at);
  at = putUVarint(buf, at, zigzag(headerKeys.length));
  headerKeys.forEach((k, i) => {
    const v = headerValues[i] as string | Buffer;
    at = putUVarint(buf, at, zigzag(Buffer.byteLength(k, 'utf8')));
    at += buf.write(k, at, 'utf8');
    if (typeof v === 'string') {
      at = putUVarint(buf, at, zigzag(Buffer.byteLength(v, 'utf8')));
      at += buf.write(v, at, 'utf8');
    } else {
      at = putUVarint(buf, at, zigzag(v.length));
      at += v.copy(buf, at);
    }
  });
  if (at !== buf.length) return kafkajsRecord(args);
  // An Encoder holding exactly these bytes (what kafkajs' record batch expects: `.buf`, `.offset`, `.buffer`).
  const encoder = Object.create(EncoderClass.prototype) as EncoderLike;
  encoder.buf = buf;
  encoder.offset = at;
  return encoder;
}

/** kafkajs' own record encoder (for tests comparing the two). */
export const kafkajsEncodeRecord: RecordFn = kafkajsRecord;

/**
 * Makes kafkajs' produce requests use `encodeRecord`. Effective when called before kafkajs loads its produce
 * request module (platform/kafka/producer.ts calls it when it loads, before any producer exists); returns whether
 * it took effect.
 */
export function installRecordEncoder(): boolean {
  const path = requireKafkajs.resolve(RECORD_MODULE);
  const produceV3 = requireKafkajs.resolve('kafkajs/src/protocol/requests/produce/v3/request');
  if (requireKafkajs.cache[produceV3]) return false;
  const cached = requireKafkajs.cache[path];
  if (!cached) return false;
  cached.exports = encodeRecord;
  return true;
}
