/**
 * Where accepted spans go. The collector answers 200 only after `write` resolved, so a sink resolves only once its
 * downstream holds the spans durably (Kafka: acknowledged by all in-sync replicas).
 */
import type { ExportTraceServiceRequest, Span } from '../platform/otlp/index.ts';
import type { TraceMessage } from './split-by-trace.ts';

export interface SinkContext {
  /** The tenant of the credential; already stamped on every ResourceSpans of the request. */
  tenant: string;
  /** Spans in the request (for metrics and batching; the sink must not rely on it for correctness). */
  spanCount: number;
  /**
   * A span's protobuf encoding as received, when it is unchanged (undefined otherwise): sinks that forward
   * protobuf copy these bytes instead of re-encoding the span.
   */
  encodedSpan?: (span: Span) => Uint8Array | undefined;
}

export interface SpanSink {
  /** Shown by /readyz. */
  readonly name?: string;
  /**
   * Resolves once the spans are durably accepted. Rejects with an error carrying `retryAfterSeconds` (such as
   * SinkUnavailableError) when the downstream is slow or down (HTTP 503); any other rejection is a 500.
   */
  write(request: ExportTraceServiceRequest, context: SinkContext): Promise<void>;
  /**
   * Optional: the same for a request already split into one OTLP protobuf message per trace. Sinks that forward
   * protobuf per trace (Kafka) implement it, and the collector then prepares requests on its decode threads.
   */
  writeEncoded?(messages: TraceMessage[], context: SinkContext): Promise<void>;
  /** True when a write would be expected to succeed now (readiness probe). */
  ready(): Promise<boolean>;
  /** Flushes what is pending and releases connections. */
  close(): Promise<void>;
}

/** The downstream is slow or down: the client should retry later (HTTP 503 with Retry-After). */
export class SinkUnavailableError extends Error {
  override name = 'SinkUnavailableError';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A sink's "retry later": SinkUnavailableError, or any error carrying a numeric `retryAfterSeconds`. */
export function retryAfterOf(err: unknown): number | undefined {
  if (err instanceof SinkUnavailableError) return err.retryAfterSeconds;
  if (err instanceof Error && 'retryAfterSeconds' in err && typeof err.retryAfterSeconds === 'number') {
    return err.retryAfterSeconds;
  }
  return undefined;
}
