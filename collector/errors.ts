/**
 * The collector's refusals as typed errors: each carries its HTTP status, the gRPC code of its google.rpc.Status
 * body, a bounded `reason` for metrics, and Retry-After when the client should come back.
 */
import { RpcCode } from '../platform/otlp/index.ts';
import type { AdmissionRefusal } from './admission.ts';

export type RefusalReason =
  | 'unauthenticated'
  | 'unsupported_media_type'
  | 'unsupported_encoding'
  | 'body_too_large'
  | 'bad_compression'
  | 'not_otlp'
  | 'concurrency_limit'
  | 'tenant_concurrency_limit'
  | 'memory_limit'
  | 'tenant_memory_limit'
  | 'sink_unavailable'
  | 'internal';

export class CollectorHttpError extends Error {
  override name = 'CollectorHttpError';
  constructor(
    readonly statusCode: number,
    readonly rpcCode: number,
    readonly reason: RefusalReason,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export const refuse = {
  unauthenticated: (message: string) =>
    new CollectorHttpError(401, RpcCode.UNAUTHENTICATED, 'unauthenticated', message),
  unsupportedMediaType: (message: string) =>
    new CollectorHttpError(415, RpcCode.INVALID_ARGUMENT, 'unsupported_media_type', message),
  unsupportedEncoding: (message: string) =>
    new CollectorHttpError(415, RpcCode.INVALID_ARGUMENT, 'unsupported_encoding', message),
  tooLarge: (message: string) => new CollectorHttpError(413, RpcCode.INVALID_ARGUMENT, 'body_too_large', message),
  badCompression: (message: string) =>
    new CollectorHttpError(400, RpcCode.INVALID_ARGUMENT, 'bad_compression', message),
  notOtlp: (message: string) => new CollectorHttpError(400, RpcCode.INVALID_ARGUMENT, 'not_otlp', message),
  throttled: (reason: AdmissionRefusal, message: string, retryAfterSeconds: number) =>
    new CollectorHttpError(429, RpcCode.RESOURCE_EXHAUSTED, reason, message, retryAfterSeconds),
  unavailable: (message: string, retryAfterSeconds: number) =>
    new CollectorHttpError(503, RpcCode.UNAVAILABLE, 'sink_unavailable', message, retryAfterSeconds),
};
