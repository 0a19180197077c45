/**
 * The collector over HTTPS, and with client certificates required (mTLS), driven by the real OTel SDK exporter
 * (`@opentelemetry/exporter-trace-otlp-proto`) configured with the CA, in front of the real Kafka. Certificates
 * are made here with openssl.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { KafkaClient } from '../../../platform/kafka/index.ts';
import { requireKafka, uniqueName } from '../../../testkit/services.ts';
import { makeCa, makeCertificate, type TestCa, type TestCertificate } from '../../../testkit/tls.ts';
import { TENANT_A, TOKEN_A } from '../../unit/collector/fixtures.ts';
import { dropTopic, freshTopic, type RunningCollector, readTopicUntil, spanIdsOf, startCollector } from './harness.ts';

function sdkSpans(count: number): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'agent-over-tls' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer('tooltrail-test');
  for (let i = 0; i < count; i++) tracer.startSpan(`call-${i}`).end();
  return memory.getFinishedSpans();
}

function exportOver(
  url: string,
  agent: { ca?: Buffer; cert?: Buffer; key?: Buffer },
  spans: ReadableSpan[],
): Promise<ExportResult> {
  const exporter = new OTLPTraceExporter({
    url,
    headers: { Authorization: `Bearer ${TOKEN_A}` },
    httpAgentOptions: agent,
    timeoutMillis: 5_000,
  });
  return new Promise<ExportResult>((resolve) => exporter.export(spans, resolve)).finally(() => exporter.shutdown());
}

describe('collector over HTTPS with the OTel SDK exporter', () => {
  let dir: string;
  let ca: TestCa;
  let server: TestCertificate;
  let client: TestCertificate;
  let otherCa: TestCa;
  let kafka: KafkaClient;
  let topic: string;
  let https: RunningCollector;
  let mtls: RunningCollector;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tooltrail-collector-tls-'));
    ca = makeCa(join(dir, 'ca'));
    server = makeCertificate(ca, 'collector');
    client = makeCertificate(ca, 'agent', { usage: 'client', cn: 'agent-a' });
    otherCa = makeCa(join(dir, 'other'), 'other');
    kafka = await requireKafka();
    topic = await freshTopic(kafka, uniqueName('collector_tls'), 1);
    https = await startCollector({
      http: { tls: { certFile: server.certFile, keyFile: server.keyFile } },
      kafka: { topic, createTopic: false },
    });
    mtls = await startCollector({
      http: { tls: { certFile: server.certFile, keyFile: server.keyFile, clientCaFile: ca.caFile } },
      kafka: { topic, createTopic: false },
    });
  });

  after(async () => {
    await https?.close();
    await mtls?.close();
    if (topic) await dropTopic(kafka, topic);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves https:// and delivers to Kafka what an exporter trusting its CA sent, tenant from the token', async () => {
    assert.match(https.url, /^https:\/\//);
    const spans = sdkSpans(3);
    const result = await exportOver(https.url, { ca: readFileSync(ca.caFile) }, spans);
    assert.equal(result.code, ExportResultCode.SUCCESS, String(result.error));
    const ids = spans.map((s) => s.spanContext().spanId);
    const messages = await readTopicUntil(kafka, topic, (ms) => ids.every((id) => spanIdsOf(ms).includes(id)));
    assert.ok(messages.every((m) => m.tenantHeader === TENANT_A));
  });

  it('an exporter that does not trust the certificate fails its export (nothing is acknowledged)', async () => {
    const result = await exportOver(https.url, { ca: readFileSync(otherCa.caFile) }, sdkSpans(1));
    assert.equal(result.code, ExportResultCode.FAILED);
    assert.match(String(result.error?.message), /certificate/);
  });

  it('plain HTTP to the HTTPS port gets no OTLP answer', async () => {
    const res = await fetch(https.url.replace('https://', 'http://'), { method: 'POST', body: '' }).catch(
      (err: unknown) => err,
    );
    assert.ok(!(res instanceof Response && res.ok), 'no 200 over plain HTTP');
  });

  it('with client certificates required, an exporter presenting one signed by the CA delivers', async () => {
    const spans = sdkSpans(2);
    const result = await exportOver(
      mtls.url,
      { ca: readFileSync(ca.caFile), cert: readFileSync(client.certFile), key: readFileSync(client.keyFile) },
      spans,
    );
    assert.equal(result.code, ExportResultCode.SUCCESS, String(result.error));
    const ids = spans.map((s) => s.spanContext().spanId);
    await readTopicUntil(kafka, topic, (ms) => ids.every((id) => spanIdsOf(ms).includes(id)));
  });

  it('with client certificates required, an exporter without one is refused in the handshake', async () => {
    const result = await exportOver(mtls.url, { ca: readFileSync(ca.caFile) }, sdkSpans(1));
    assert.equal(result.code, ExportResultCode.FAILED);
  });

  it('with client certificates required, a certificate from another CA is refused', async () => {
    const stranger = makeCertificate(otherCa, 'stranger', { usage: 'client' });
    const result = await exportOver(
      mtls.url,
      { ca: readFileSync(ca.caFile), cert: readFileSync(stranger.certFile), key: readFileSync(stranger.keyFile) },
      sdkSpans(1),
    );
    assert.equal(result.code, ExportResultCode.FAILED);
  });
});
