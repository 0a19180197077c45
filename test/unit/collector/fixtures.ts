/**
 * Collector configurations, tokens and recording sinks shared by the collector's unit and integration tests (the OTLP
 * request builders are testkit/otlp-requests.ts).
 */
import { type CollectorConfig, type CollectorConfigInput, loadCollectorConfig } from '../../../collector/config.ts';
import type { SinkContext, SpanSink } from '../../../collector/sink.ts';
import type { TraceMessage } from '../../../collector/split-by-trace.ts';
import type { ExportTraceServiceRequest } from '../../../platform/otlp/index.ts';

export const TOKEN_A = 'token-a-0123456789abcdef';
export const TOKEN_B = 'token-b-0123456789abcdef';
export const TENANT_A = 'tenant-a';
export const TENANT_B = 'tenant-b';

export function testConfig(overrides: CollectorConfigInput = {}): CollectorConfig {
  return loadCollectorConfig({
    // The process environment says where the services are (TOOLTRAIL_KAFKA_*); the tokens are the fixtures'.
    env: { ...process.env, TOOLTRAIL_COLLECTOR_TOKENS: `${TOKEN_A}=${TENANT_A},${TOKEN_B}=${TENANT_B}` },
    overrides,
  });
}

/** A sink that records what it is given; `behaviour` makes it fail or hang. */
export class RecordingSink implements SpanSink {
  readonly name = 'recording';
  readonly writes: { request: ExportTraceServiceRequest; context: SinkContext }[] = [];
  behaviour: 'ok' | 'fail' | 'hang' = 'ok';
  failure: Error = new Error('down');
  private hung: (() => void)[] = [];
  isReady = true;
  closed = false;

  async write(request: ExportTraceServiceRequest, context: SinkContext): Promise<void> {
    if (this.behaviour === 'fail') throw this.failure;
    if (this.behaviour === 'hang') await new Promise<void>((r) => this.hung.push(r));
    this.writes.push({ request, context });
  }
  /** Writes waiting in `hang` mode. */
  get waiting(): number {
    return this.hung.length;
  }
  release(): void {
    for (const r of this.hung.splice(0)) r();
  }
  async ready(): Promise<boolean> {
    return this.isReady;
  }
  async close(): Promise<void> {
    this.release();
    this.closed = true;
  }
}

/** A sink that takes per-trace messages (as the Kafka sink does), so the collector prepares on decode threads. */
export class EncodedRecordingSink extends RecordingSink {
  readonly encoded: { messages: TraceMessage[]; context: SinkContext }[] = [];
  async writeEncoded(messages: TraceMessage[], context: SinkContext): Promise<void> {
    if (this.behaviour === 'fail') throw this.failure;
    this.encoded.push({ messages, context });
  }
}
