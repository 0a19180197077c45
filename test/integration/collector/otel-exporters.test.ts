import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as OTLPJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { Attr, EXECUTE_TOOL, GenAi, toolSpanName } from '../../../contract/index.ts';
import type { KafkaClient } from '../../../platform/kafka/index.ts';
import { anyValueKind, bytesToHex } from '../../../platform/otlp/index.ts';
import { requireKafka, uniqueName } from '../../../testkit/services.ts';
import { TENANT_A, TENANT_B, TOKEN_A, TOKEN_B } from '../../unit/collector/fixtures.ts';
import { dropTopic, freshTopic, type RunningCollector, readTopicUntil, spanIdsOf, startCollector } from './harness.ts';

/** Tool-call spans as the instrumentation emits them, from a real SDK; `claimTenant` forges a tenant claim. */
function toolSpans(count: number, claimTenant?: string): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'agent-under-test',
      ...(claimTenant ? { [Attr.TENANT]: claimTenant } : {}),
    }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer('tooltrail-test');
  for (let i = 0; i < count; i++) {
    const root = tracer.startSpan('invoke_agent');
    const ctx = root.spanContext();
    const child = tracer.startSpan(toolSpanName('list_accounts'), {
      attributes: {
        [GenAi.OPERATION_NAME]: EXECUTE_TOOL,
        [GenAi.TOOL_NAME]: 'list_accounts',
        [Attr.EFFECT]: 'read',
        [Attr.RESULT_COMPLETE]: false,
        [Attr.RESULT_REASONS]: ['MORE_PAGES_AVAILABLE'],
        [Attr.RESULT_ITEM_COUNT]: 0,
      },
      links: [{ context: ctx }],
    });
    child.end();
    root.end();
  }
  return memory.getFinishedSpans();
}

function exportWith(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

describe('collector with the official OTel exporters and real Kafka', () => {
  let kafka: KafkaClient;
  let topic: string;
  let running: RunningCollector;
  before(async () => {
    kafka = await requireKafka();
    topic = await freshTopic(kafka, uniqueName('collector_exporters'), 3);
    // Decode threads on: this path (and bad-inputs' main-thread one) both see the official exporters' payloads.
    running = await startCollector({ decodeThreads: 1, kafka: { topic, createTopic: false, compression: 'gzip' } });
  });
  after(async () => {
    await running?.close();
    if (topic) await dropTopic(kafka, topic);
  });

  it('delivers exactly the spans both exporters sent, one message per trace keyed by trace id, tenant stamped', async () => {
    const protoSpans = toolSpans(5);
    const jsonSpans = toolSpans(4, TENANT_A); // claims tenant A but authenticates as B: B must win
    const gzipSpans = toolSpans(3);
    const proto = new OTLPProtoTraceExporter({ url: running.url, headers: { Authorization: `Bearer ${TOKEN_A}` } });
    const json = new OTLPJsonTraceExporter({ url: running.url, headers: { Authorization: `Bearer ${TOKEN_B}` } });
    const gz = new OTLPProtoTraceExporter({
      url: running.url,
      headers: { Authorization: `Bearer ${TOKEN_A}` },
      compression: CompressionAlgorithm.GZIP,
    });
    try {
      assert.equal((await exportWith(proto, protoSpans)).code, 0);
      assert.equal((await exportWith(json, jsonSpans)).code, 0);
      assert.equal((await exportWith(gz, gzipSpans)).code, 0);
    } finally {
      await Promise.all([proto.shutdown(), json.shutdown(), gz.shutdown()]);
    }
    const sent = [...protoSpans, ...jsonSpans, ...gzipSpans];
    const messages = await readTopicUntil(kafka, topic, (ms) => spanIdsOf(ms).length >= sent.length);
    assert.deepEqual(spanIdsOf(messages).sort(), sent.map((s) => s.spanContext().spanId).sort());

    const tenantOf = new Map<string, string>([
      ...protoSpans.map((s) => [s.spanContext().spanId, TENANT_A] as const),
      ...jsonSpans.map((s) => [s.spanContext().spanId, TENANT_B] as const),
      ...gzipSpans.map((s) => [s.spanContext().spanId, TENANT_A] as const),
    ]);
    const partitionOfTrace = new Map<string, number>();
    for (const m of messages) {
      assert.ok(
        m.spans.every((s) => bytesToHex(s.traceId) === m.key),
        'a message holds one trace, its key',
      );
      const expectedTenant = tenantOf.get(bytesToHex(m.spans[0]?.spanId));
      assert.equal(m.tenantHeader, expectedTenant);
      for (const rs of m.request.resourceSpans) {
        const tenants = rs.resource?.attributes.filter((kv) => kv.key === Attr.TENANT) ?? [];
        assert.deepEqual(
          tenants.map((kv) => kv.value?.stringValue),
          [expectedTenant],
        );
      }
      const p = partitionOfTrace.get(m.key);
      if (p !== undefined) assert.equal(m.partition, p, 'one trace stays in one partition');
      partitionOfTrace.set(m.key, m.partition);
    }
    const byId = new Map(messages.flatMap((m) => m.spans.map((s) => [bytesToHex(s.spanId), s] as const)));
    for (const s of sent) {
      const got = byId.get(s.spanContext().spanId);
      assert.equal(got?.name, s.name);
      assert.equal(bytesToHex(got?.traceId), s.spanContext().traceId);
      if (s.name.startsWith(EXECUTE_TOOL)) {
        const attrs = new Map(got?.attributes?.map((kv) => [kv.key, kv.value]));
        assert.equal(attrs.get(Attr.RESULT_COMPLETE)?.boolValue, false);
        assert.equal(anyValueKind(attrs.get(Attr.RESULT_REASONS)), 'array');
        assert.equal(got?.links?.length, 1);
      }
    }
  });
});
