import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Attr, EXECUTE_TOOL, GenAi, OtelResource, toolSpanName } from '../../../contract/index.ts';
import { DLQ_HEADERS } from '../../../ingest/dead-letter.ts';
import { startIngest } from '../../../ingest/service.ts';
import { KAFKA_CLIENTS, MESSAGE_ID_HEADER, messageIdBytes } from '../../../platform/kafka/index.ts';
import { metricValue } from '../../../platform/metrics/index.ts';
import { decodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { serializeSpans, syntheticMessage } from '../../../testkit/ingest.ts';
import { until } from '../../../testkit/wait.ts';
import { createHarness, type Harness } from './harness.ts';

const quiet = () => {};

for (const client of KAFKA_CLIENTS)
  describe(`ingest consumer (real Kafka, real ClickHouse, ${client})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness('consumer', { client });
    });
    after(async () => {
      await h?.close();
    });

    it('stores N spans from Kafka as exactly N rows whose typed columns hold what the attributes said', async () => {
      const messages = Array.from({ length: 30 }, (_, i) =>
        syntheticMessage({ tenant: 'acme', toolSpans: 20, seed: 1000 + i, warningEvery: 10 }),
      );
      await h.produce(messages);
      const ingest = await startIngest(h.config({ maxRows: 100 }), { log: quiet });
      try {
        const db = h.db.database;
        const n = await h.waitForCount(`SELECT count() AS n FROM ${db}.tool_calls WHERE tenant = 'acme'`, 600);
        assert.equal(n, 600);
        assert.equal(await h.waitForCount(`SELECT count() AS n FROM ${db}.spans WHERE Tenant = 'acme'`, 30), 30);
        // tool_call_warnings is inserted beside tool_calls and spans, not before them: wait for it too.
        assert.equal(
          await h.waitForCount(`SELECT count() AS n FROM ${db}.tool_call_warnings WHERE tenant = 'acme'`, 60),
          60,
        );
        assert.equal(await h.count(`SELECT uniqExact(trace_id, span_id) AS n FROM ${db}.tool_calls`), 600);
        const typed = await (
          await h.db.ch.query({
            query: `SELECT effect, result_complete, result_reasons, toString(result_item_count) AS items, toString(sequence) AS seq
                  FROM ${db}.tool_calls WHERE tool_call_id = 'call-1003-3'`,
            format: 'JSONEachRow',
          })
        ).json();
        assert.deepEqual(typed, [
          { effect: 'read', result_complete: false, result_reasons: ['MORE_PAGES_AVAILABLE'], items: '3', seq: '4' },
        ]);
        // Several batches were cut (maxRows 100), each recorded and marked stored before its commit.
        const stored = await h.count(
          `SELECT countIf(s = 1) AS n FROM (SELECT first_offset, max(state) AS s FROM ${db}.ingest_batches GROUP BY partition, first_offset)`,
        );
        assert.ok(stored >= 6, `expected several stored batches, got ${stored}`);
        // The counter moves once the insert's answer is in, a moment after its rows are visible.
        const written = () => metricValue(ingest.metrics.rowsWritten, { table: 'tool_calls' });
        await until('rows written reaches 600', async () => (await written()) >= 600, { timeoutMs: 10_000 });
        assert.equal(await written(), 600);
      } finally {
        await ingest.stop();
      }
    });

    it('stores a request a client re-sent once, also when the ingest restarted between the two copies', async () => {
      const db = h.db.database;
      const tenant = 'resend';
      const [a, b, c] = [3000, 3001, 3002].map((seed) => syntheticMessage({ tenant, toolSpans: 5, seed }));
      // One key: one partition, so storing c proves the re-send of a before it was read.
      const send = (values: Buffer[]) =>
        h.producer.send(
          h.topic,
          values.map((value) => ({ key: 'one-trace', value, headers: { [MESSAGE_ID_HEADER]: messageIdBytes(value) } })),
        );
      const rows = `SELECT count() AS n FROM ${db}.tool_calls WHERE tenant = '${tenant}'`;
      await send([a as Buffer, b as Buffer]);
      const first = await startIngest(h.config(), { log: quiet });
      try {
        assert.equal(await h.waitForCount(rows, 10), 10);
      } finally {
        await first.stop();
      }
      // The client's re-send of a (its first answer was lost), then a new request c.
      await send([a as Buffer, c as Buffer]);
      const second = await startIngest(h.config(), { log: quiet });
      try {
        assert.equal(await h.waitForCount(`${rows} AND tool_call_id LIKE 'call-3002-%'`, 5), 5);
        assert.equal(await h.count(rows), 15);
        assert.equal(
          await h.count(`SELECT uniqExact(trace_id, span_id) AS n FROM ${db}.tool_calls WHERE tenant = '${tenant}'`),
          15,
        );
        // The counters move once the batch is marked stored, a moment after its rows are visible.
        await until(
          'the re-sent message is counted',
          async () => (await metricValue(second.metrics.resentMessages)) >= 1,
          {
            timeoutMs: 10_000,
          },
        );
        assert.equal(await metricValue(second.metrics.resentMessages), 1);
        assert.equal(await metricValue(second.metrics.resentSpans), 6, '5 tool spans and their parent');
        assert.equal(
          await h.count(`SELECT count() AS n FROM ${db}.ingest_batches FINAL WHERE length(skipped) = 1`),
          1,
          'the batch log says which offset was left out',
        );
      } finally {
        await second.stop();
      }
    });

    it('sends an undecodable message and spans without a tenant to the dead-letter topic, counted and logged by reason, and ingests the spans after them', async () => {
      const poison = Buffer.from('this is not protobuf \xff\xff\xff\xff', 'latin1');
      const noTenant = syntheticMessage({ tenant: '', toolSpans: 2, seed: 2000 });
      const good = syntheticMessage({ tenant: 'after-poison', toolSpans: 5, seed: 2001 });
      // One key: all three land on one partition, in this order.
      await h.producer.send(h.topic, [
        { key: 'poison', value: poison },
        { key: 'poison', value: noTenant },
        { key: 'poison', value: good },
      ]);
      const lines: string[] = [];
      const ingest = await startIngest(
        { ...h.config(), metrics: { ...h.config().metrics, port: 0 } },
        {
          log: (l) => lines.push(l),
        },
      );
      try {
        const db = h.db.database;
        assert.equal(
          await h.waitForCount(`SELECT count() AS n FROM ${db}.tool_calls WHERE tenant = 'after-poison'`, 5),
          5,
        );
        const letters = await h.readDeadLetters(2);
        assert.equal(letters.length, 2);
        const byReason = new Map(letters.map((l) => [String(l.headers[DLQ_HEADERS.REASON]), l]));
        const decodeLetter = byReason.get('decode_error');
        assert.ok(decodeLetter, 'the undecodable message is dead-lettered');
        assert.deepEqual(decodeLetter.value, poison, 'with its original bytes');
        assert.match(String(decodeLetter.headers[DLQ_HEADERS.ERROR]), /ExportTraceServiceRequest/);
        const rejected = byReason.get('missing_tenant');
        assert.ok(rejected?.value, 'the spans without a tenant are dead-lettered, their reason in the header');
        assert.match(String(rejected.headers[DLQ_HEADERS.ERROR]), /missing_tenant: 3/);
        const req = decodeExportTraceServiceRequest(rejected.value);
        assert.equal(req.resourceSpans[0]?.scopeSpans[0]?.spans.length, 3, 'as a request of exactly those spans');
        // The counters move once the batch is marked stored, a moment after its rows and letters are visible.
        await until('both dead letters are counted', async () => (await metricValue(ingest.metrics.deadLetters)) >= 2, {
          timeoutMs: 10_000,
        });
        assert.equal(await metricValue(ingest.metrics.deadLetters), 2);
        assert.equal(await metricValue(ingest.metrics.deadLetters, { reason: 'decode_error' }), 1);
        assert.equal(await metricValue(ingest.metrics.deadLetters, { reason: 'missing_tenant' }), 1);
        assert.equal(await metricValue(ingest.metrics.spansRejected, { reason: 'missing_tenant' }), 3);
        // What Prometheus scrapes, and what the operator reads: one line per reason.
        const text = await (await fetch(`http://127.0.0.1:${ingest.metricsPort}/metrics`)).text();
        assert.match(text, /tooltrail_ingest_dead_letters_total\{reason="missing_tenant"\} 1\b/);
        assert.match(text, /tooltrail_ingest_dead_letters_total\{reason="decode_error"\} 1\b/);
        assert.match(text, /tooltrail_ingest_dead_letters_total\{reason="invalid_tenant"\} 0\b/);
        const said = lines.filter((l) => l.startsWith('dead-lettered'));
        assert.equal(said.length, 2, said.join('\n'));
        assert.ok(said.some((l) => /1 message to .*_dlq: missing_tenant: .*default tenant/.test(l)));
        assert.ok(said.some((l) => /1 message to .*_dlq: decode_error/.test(l)));
      } finally {
        await ingest.stop();
      }
    });

    it('dead-letters spans whose resource claims a tenant outside the one tenant rule, never storing that tenant', async () => {
      const claimed = 'acme:prod';
      const bad = syntheticMessage({ tenant: claimed, toolSpans: 2, seed: 2100 });
      const good = syntheticMessage({ tenant: 'after-bad-tenant', toolSpans: 4, seed: 2101 });
      // Its own topics: the dead-letter topic then holds only this test's letters.
      const h = await createHarness('consumer_tenant', { client });
      await h.producer.send(h.topic, [
        { key: 'bad-tenant', value: bad },
        { key: 'bad-tenant', value: good },
      ]);
      // A default tenant is no licence to store a claim that breaks the rule.
      const ingest = await startIngest(h.config({ defaultTenant: 'fallback' }), { log: quiet });
      try {
        const db = h.db.database;
        assert.equal(
          await h.waitForCount(`SELECT count() AS n FROM ${db}.tool_calls WHERE tenant = 'after-bad-tenant'`, 4),
          4,
        );
        const letters = await h.readDeadLetters(1);
        assert.equal(letters.length, 1);
        assert.equal(String(letters[0]?.headers[DLQ_HEADERS.REASON]), 'invalid_tenant');
        assert.match(String(letters[0]?.headers[DLQ_HEADERS.ERROR]), /invalid_tenant: 3/);
        const req = decodeExportTraceServiceRequest(letters[0]?.value as Buffer);
        assert.equal(req.resourceSpans[0]?.scopeSpans[0]?.spans.length, 3, 'as a request of exactly those spans');
        for (const table of ['tool_calls', 'tool_call_warnings']) {
          assert.equal(
            await h.count(`SELECT count() AS n FROM ${db}.${table} WHERE tenant IN ('${claimed}', 'fallback')`),
            0,
          );
        }
        assert.equal(
          await h.count(`SELECT count() AS n FROM ${db}.spans WHERE Tenant IN ('${claimed}', 'fallback')`),
          0,
        );
        await until(
          'the rejected spans are counted',
          async () => (await metricValue(ingest.metrics.spansRejected, { reason: 'invalid_tenant' })) >= 3,
          { timeoutMs: 10_000 },
        );
        assert.equal(await metricValue(ingest.metrics.spansRejected, { reason: 'invalid_tenant' }), 3);
      } finally {
        await ingest.stop();
        await h.close();
      }
    });

    it('ingests messages serialized by the OpenTelemetry JS OTLP protobuf serializer like the collector’s own', async () => {
      const exporter = new InMemorySpanExporter();
      const provider = new TracerProvider({
        resource: resourceFromAttributes({ [OtelResource.SERVICE_NAME]: 'otel-col-fed' }),
        spanProcessors: [new SimpleSpanProcessor({ exporter })],
      });
      const tracer = provider.getTracer('plain-otel');
      for (let i = 0; i < 4; i++) {
        tracer
          .startSpan(toolSpanName('search'), {
            attributes: {
              [GenAi.OPERATION_NAME]: EXECUTE_TOOL,
              [GenAi.TOOL_NAME]: 'search',
              [Attr.EFFECT]: 'read',
              [Attr.RESULT_COMPLETE]: true,
              [Attr.RESULT_ITEM_COUNT]: i,
            },
          })
          .end();
      }
      tracer.startSpan('llm call').end();
      const bytes = Buffer.from(serializeSpans(exporter.getFinishedSpans()));
      await provider.shutdown();
      await h.producer.send(h.topic, [{ key: 'otel', value: bytes }]);
      // A plain OTel Collector does not stamp tooltrail.tenant: the ingest's default tenant applies.
      const ingest = await startIngest(h.config({ defaultTenant: 'otel-tenant' }), { log: quiet });
      try {
        const db = h.db.database;
        assert.equal(
          await h.waitForCount(`SELECT count() AS n FROM ${db}.tool_calls WHERE tenant = 'otel-tenant'`, 4),
          4,
        );
        assert.equal(await h.waitForCount(`SELECT count() AS n FROM ${db}.spans WHERE Tenant = 'otel-tenant'`, 1), 1);
        const rows = await (
          await h.db.ch.query({
            query: `SELECT tool_name, effect, result_complete, complete_reported, toString(result_item_count) AS items, service_name, scope_name
                  FROM ${db}.tool_calls WHERE tenant = 'otel-tenant' ORDER BY items`,
            format: 'JSONEachRow',
          })
        ).json();
        assert.deepEqual(
          rows,
          [0, 1, 2, 3].map((i) => ({
            tool_name: 'search',
            effect: 'read',
            result_complete: true,
            complete_reported: true,
            items: String(i),
            service_name: 'otel-col-fed',
            scope_name: 'plain-otel',
          })),
        );
      } finally {
        await ingest.stop();
      }
    });
  });
