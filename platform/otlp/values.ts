/** Small helpers over OTLP values: ids as hex, 64-bit integers, and the type of an AnyValue. */
import { protobuf } from './protobuf.ts';
import type { AnyValue, Int64, Long64 } from './types.ts';

const HEX = /^[0-9a-fA-F]*$/;

export function bytesToHex(bytes: Uint8Array | null | undefined): string {
  if (!bytes || bytes.length === 0) return '';
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Bytes of an even-length hex string (either case); undefined when it is not one. */
export function hexToBytes(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0 || !HEX.test(hex)) return undefined;
  return Buffer.from(hex, 'hex');
}

/** The value of an int64/fixed64 field as a bigint; `unsigned` reads a Long's bits as fixed64. */
export function int64ToBigInt(v: Int64 | null | undefined, unsigned = false): bigint {
  if (v === null || v === undefined) return 0n;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  if (typeof v === 'string') return BigInt(v);
  const bits = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  return unsigned || v.unsigned ? bits : BigInt.asIntN(64, bits);
}

/** Decimal string of an int64/fixed64 field (how ClickHouse and OTLP/JSON want 64-bit values). */
export function int64ToString(v: Int64 | null | undefined, unsigned = false): string {
  return int64ToBigInt(v, unsigned).toString();
}

interface LongStatics {
  fromString(value: string, unsigned: boolean): Long64;
}

/** A Long for a decimal string or bigint, as the encoders accept for 64-bit fields. */
export function toLong64(v: bigint | string, unsigned: boolean): Long64 {
  return (protobuf.util.Long as unknown as LongStatics).fromString(String(v), unsigned);
}

export type AnyValueKind = 'string' | 'bool' | 'int' | 'double' | 'array' | 'kvlist' | 'bytes' | 'empty';

/** Which member of the AnyValue oneof is set (decoded messages leave the others null). */
export function anyValueKind(v: AnyValue | null | undefined): AnyValueKind {
  if (!v) return 'empty';
  if (v.stringValue != null) return 'string';
  if (v.boolValue != null) return 'bool';
  if (v.intValue != null) return 'int';
  if (v.doubleValue != null) return 'double';
  if (v.arrayValue != null) return 'array';
  if (v.kvlistValue != null) return 'kvlist';
  if (v.bytesValue != null) return 'bytes';
  return 'empty';
}
