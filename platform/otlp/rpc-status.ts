/**
 * `google.rpc.Status` (code = 1 int32, message = 2 string, details = 3 repeated Any), the body OTLP/HTTP servers
 * send with 4xx/5xx. The OTLP schema (schema.ts) does not include it; two fields do not justify a .proto.
 */
import { OtlpDecodeError, protobuf } from './protobuf.ts';
import type { RpcStatus } from './types.ts';

/** gRPC status codes used by OTLP/HTTP error bodies. */
export const RpcCode = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export function encodeRpcStatus(status: RpcStatus): Uint8Array {
  const w = protobuf.Writer.create();
  if (status.code !== 0) w.uint32((1 << 3) | 0).int32(status.code);
  if (status.message !== '') w.uint32((2 << 3) | 2).string(status.message);
  return w.finish();
}

export function decodeRpcStatus(bytes: Uint8Array): RpcStatus {
  try {
    const r = protobuf.Reader.create(bytes);
    const status: RpcStatus = { code: 0, message: '' };
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag === ((1 << 3) | 0)) status.code = r.int32();
      else if (tag === ((2 << 3) | 2)) status.message = r.string();
      else r.skipType(tag & 7);
    }
    return status;
  } catch (err) {
    throw new OtlpDecodeError(`not a valid google.rpc.Status: ${(err as Error).message}`);
  }
}

/** The JSON form (proto3 JSON mapping) of a `google.rpc.Status`. */
export function rpcStatusToJson(status: RpcStatus): { code: number; message: string; details: never[] } {
  return { code: status.code, message: status.message, details: [] };
}
