/** A real collector on a free port in front of the real Kafka, a fresh topic per test file, and a topic reader. */
import type { CollectorConfig, CollectorConfigInput } from '../../../collector/config.ts';
import { type Collector, createCollector } from '../../../collector/factory.ts';
import {
  createSimpleConsumer,
  deleteTopics,
  ensureTopics,
  type KafkaClient,
  type SimpleConsumer,
} from '../../../platform/kafka/index.ts';
import {
  bytesToHex,
  decodeExportTraceServiceRequest,
  type ExportTraceServiceRequest,
  type Span,
} from '../../../platform/otlp/index.ts';
import { testConfig } from '../../unit/collector/fixtures.ts';

export interface ProducedMessage {
  partition: number;
  key: string;
  tenantHeader: string | undefined;
  request: ExportTraceServiceRequest;
  spans: Span[];
}

export interface RunningCollector {
  collector: Collector;
  config: CollectorConfig;
  url: string;
  close(): Promise<void>;
}

export async function startCollector(overrides: CollectorConfigInput): Promise<RunningCollector> {
  const config = testConfig({ ...overrides, http: { host: '127.0.0.1', port: 0, ...overrides.http } });
  const collector = await createCollector(config, { quiet: true, notify: () => {} });
  const address = await collector.start();
  return { collector, config, url: `${address}/v1/traces`, close: () => collector.close() };
}

export async function freshTopic(kafka: KafkaClient, name: string, partitions: number): Promise<string> {
  await ensureTopics(kafka, [{ topic: name, numPartitions: partitions }]);
  return name;
}

export async function dropTopic(kafka: KafkaClient, topic: string): Promise<void> {
  await deleteTopics(kafka, [topic]).catch(() => {});
}

function spansOf(request: ExportTraceServiceRequest): Span[] {
  return request.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
}

/**
 * Reads the topic from the beginning until `done(messages)` holds; fails after `timeoutMs` with what it saw.
 * Everything it opens it closes.
 */
export async function readTopicUntil(
  kafka: KafkaClient,
  topic: string,
  done: (messages: ProducedMessage[]) => boolean,
  timeoutMs = 20_000,
): Promise<ProducedMessage[]> {
  const messages: ProducedMessage[] = [];
  const consumer: SimpleConsumer = await createSimpleConsumer(kafka, `${topic}-reader-${Date.now()}`, topic);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out after ${timeoutMs} ms reading ${topic}: ${messages.length} messages seen`)),
        timeoutMs,
      );
      consumer
        .run(async (m) => {
          const request = decodeExportTraceServiceRequest(m.value ?? Buffer.alloc(0));
          const header = m.headers['tooltrail-tenant'];
          messages.push({
            partition: m.partition,
            key: m.key?.toString('utf8') ?? '',
            tenantHeader: header === undefined ? undefined : header.toString(),
            request,
            spans: spansOf(request),
          });
          if (done(messages)) {
            clearTimeout(timer);
            resolve();
          }
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return messages;
}

export function spanIdsOf(messages: ProducedMessage[]): string[] {
  return messages.flatMap((m) => m.spans.map((s) => bytesToHex(s.spanId)));
}

/** A request body `fetch` accepts (its types refuse a Buffer over a shared ArrayBuffer). */
export function body(b: Buffer | string): string | Uint8Array<ArrayBuffer> {
  return typeof b === 'string' ? b : Uint8Array.from(b);
}

/** The collector's admission gauges, read from its own /metrics text. */
export async function inFlight(c: RunningCollector): Promise<{ requests: number; bytes: number }> {
  const text = await c.collector.metrics.render();
  const read = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 'NaN');
  return {
    requests: read('tooltrail_collector_in_flight_requests'),
    bytes: read('tooltrail_collector_in_flight_bytes'),
  };
}
