import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Attr, EXECUTE_TOOL, GenAi, OtelResource, toolSpanName, WarningEvent } from '../../../contract/index.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase } from '../../../testkit/services.ts';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase('tt_ingest_write');
});
after(async () => {
  await db?.drop();
});

function recordSpans() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [OtelResource.SERVICE_NAME]: 'agent-svc', [Attr.TENANT]: 'forged' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('tooltrail-test', '1.2.3');
  const turn = tracer.startSpan('agent turn');
  turn.end();
  const read = tracer.startSpan(toolSpanName('list_accounts'), {
    attributes: {
      [GenAi.OPERATION_NAME]: EXECUTE_TOOL,
      [GenAi.TOOL_NAME]: 'list_accounts',
      [GenAi.TOOL_CALL_ID]: 'call-1',
      [GenAi.CONVERSATION_ID]: 'sess-1',
      [GenAi.AGENT_NAME]: 'cleaner',
      [Attr.EFFECT]: 'read',
      [Attr.RESULT_STATUS]: 'partial',
      [Attr.RESULT_COMPLETE]: false,
      [Attr.RESULT_REASONS]: ['MORE_PAGES_AVAILABLE', 'CLIENT_LIMIT_REACHED'],
      [Attr.RESULT_ITEM_COUNT]: 0,
      [Attr.SCOPE_SNAPSHOT]: 'snap-7',
      [Attr.WARNINGS]: ['STALE_INDEX'],
      [Attr.SESSION_SEQUENCE]: 1,
      'custom.flag': true,
      'custom.list': [1, 2],
    },
  });
  read.addEvent(WarningEvent.NAME, {
    [WarningEvent.CODE]: 'STALE_INDEX',
    [WarningEvent.SOURCE]: 'accounts-index',
    [WarningEvent.MESSAGE]: 'index is 3 days old',
  });
  read.end();
  const mutation = tracer.startSpan(toolSpanName('delete_accounts'), {
    attributes: {
      [GenAi.OPERATION_NAME]: EXECUTE_TOOL,
      [GenAi.TOOL_NAME]: 'delete_accounts',
      [GenAi.CONVERSATION_ID]: 'sess-1',
      [Attr.EFFECT]: 'mutation',
      [Attr.MUTATION_BASIS]: 'absence',
      [Attr.MUTATION_TARGET_COUNT]: 3,
      [Attr.MUTATION_EVIDENCE_SNAPSHOTS]: ['snap-7'],
      [Attr.GUARD_DECISION]: 'refused',
    },
  });
  mutation.end();
  return { spans: exporter.getFinishedSpans(), read, provider };
}

describe('ingest write path (OTel SDK -> OTLP protobuf -> platform/otlp -> flatten -> ClickHouse)', () => {
  it('stores each span once with the typed columns holding what the attributes said', async () => {
    const { spans, provider } = recordSpans();
    const written = await ingestSpans(db, spans, 'acme');
    await provider.shutdown();
    assert.deepEqual(
      { toolCalls: written.toolCalls, warnings: written.warnings, spans: written.spans },
      {
        toolCalls: 2,
        warnings: 1,
        spans: 1,
      },
    );

    const rs = await db.ch.query({
      query: `SELECT tenant, tool_name, session_id, sequence, effect, result_status, result_complete, complete_reported,
        result_reasons, result_item_count, scope_snapshot, warnings, mutation_basis, mutation_target_count,
        evidence_snapshots, guard_decision, attributes, service_name, scope_name, scope_version, length(trace_id) AS tl,
        length(span_id) AS sl, toUnixTimestamp64Nano(start_time) > 0 AS ts
        FROM ${db.database}.tool_calls ORDER BY tool_name`,
      format: 'JSONEachRow',
    });
    const rows = await rs.json<Record<string, unknown>>();
    assert.equal(rows.length, 2);
    const [del, list] = rows;
    assert.equal(list?.tenant, 'acme', 'the stamped tenant wins over the forged resource attribute');
    assert.equal(list?.session_id, 'sess-1');
    assert.equal(String(list?.sequence), '1');
    assert.equal(list?.effect, 'read');
    assert.equal(list?.result_status, 'partial');
    assert.equal(list?.result_complete, false);
    assert.equal(list?.complete_reported, true);
    assert.deepEqual(list?.result_reasons, ['MORE_PAGES_AVAILABLE', 'CLIENT_LIMIT_REACHED']);
    assert.equal(String(list?.result_item_count), '0');
    assert.deepEqual(list?.warnings, ['STALE_INDEX']);
    assert.deepEqual(list?.attributes, { 'custom.flag': 'true', 'custom.list': '[1,2]' });
    assert.equal(list?.service_name, 'agent-svc');
    assert.equal(list?.scope_name, 'tooltrail-test');
    assert.equal(list?.scope_version, '1.2.3');
    assert.equal(list?.tl, 32);
    assert.equal(list?.sl, 16);
    assert.equal(list?.ts, 1);
    assert.equal(del?.complete_reported, false, 'absent complete is reported as not said');
    assert.equal(del?.result_complete, false);
    assert.equal(del?.mutation_basis, 'absence');
    assert.equal(String(del?.mutation_target_count), '3');
    assert.deepEqual(del?.evidence_snapshots, ['snap-7']);
    assert.equal(del?.guard_decision, 'refused');

    const w = await (
      await db.ch.query({
        query: `SELECT tenant, code, source, message, tool_name, session_id FROM ${db.database}.tool_call_warnings`,
        format: 'JSONEachRow',
      })
    ).json();
    assert.deepEqual(w, [
      {
        tenant: 'acme',
        code: 'STALE_INDEX',
        source: 'accounts-index',
        message: 'index is 3 days old',
        tool_name: 'list_accounts',
        session_id: 'sess-1',
      },
    ]);
    const s = await (
      await db.ch.query({
        query: `SELECT Tenant, SpanName, ServiceName, SpanKind, StatusCode FROM ${db.database}.spans`,
        format: 'JSONEachRow',
      })
    ).json();
    assert.deepEqual(s, [
      { Tenant: 'acme', SpanName: 'agent turn', ServiceName: 'agent-svc', SpanKind: 'Internal', StatusCode: 'Unset' },
    ]);
  });

  it('stores a re-sent batch once (same deduplication token)', async () => {
    const { spans, provider } = recordSpans();
    await ingestSpans(db, spans, 'dedup');
    await ingestSpans(db, spans, 'dedup');
    await provider.shutdown();
    const rs = await db.ch.query({
      query: `SELECT count() AS n FROM ${db.database}.tool_calls WHERE tenant = {t:String}`,
      query_params: { t: 'dedup' },
      format: 'JSONEachRow',
    });
    assert.deepEqual(await rs.json(), [{ n: 2 }]);
  });
});
