/**
 * What the library emits is what the pipeline accepts and stores: spans from real tool calls are serialized as the
 * OTLP exporters do, pass the collector's validation without a rejection, and land in ClickHouse's tool_calls
 * table (through testkit/ingest.ts, the ingest's real path) with every contract field in its column.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { validateRequest } from '../../../collector/validate.ts';
import {
  collectAllPages,
  completeResult,
  createTooltrail,
  partialResult,
  warning,
} from '../../../instrumentation/index.ts';
import { decodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { ingestSpans, serializeSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase } from '../../../testkit/services.ts';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
let db: TestDatabase;

before(async () => {
  db = await freshDatabase('tt_instr');
  const tt = createTooltrail({ tracerProvider: provider });
  const session = tt.session({ conversationId: 'pipeline-1', agentName: 'janitor' });
  const scope = { resource: 'service_accounts', visibility: 'readable by this credential', snapshot: 'snap-1' };
  const firstPage = tt.readTool('list_unowned', () =>
    partialResult({
      items: [],
      reasons: ['MORE_PAGES_AVAILABLE'],
      continuation: { kind: 'next_cursor', cursor: 'c2' },
      scope,
      warnings: [warning('STALE_INDEX', 'accounts-index', 'lags by 5 minutes')],
    }),
  );
  const pages = [
    partialResult({
      items: [{ id: 'a' }],
      reasons: ['MORE_PAGES_AVAILABLE'],
      continuation: { kind: 'next_cursor', cursor: 'c2' },
      scope,
    }),
    completeResult({ items: [{ id: 'b' }], scope }),
  ];
  const listAll = tt.readTool('list_unowned_all', () =>
    collectAllPages({ fetchPage: async ({ pageIndex }) => pages[pageIndex], pageSize: 1 }),
  );
  const disable = tt.mutationTool('disable_accounts', (args: { ids: string[] }) =>
    completeResult({ items: args.ids, scope: { resource: 'service_accounts' } }),
  );
  const broken = tt.readTool('broken', () => {
    throw new RangeError('boom');
  });

  const empty = await firstPage(session, {}, { toolCallId: 'read-1' });
  await disable(
    session,
    { ids: ['x'] },
    { basis: 'absence', targets: ['x'], evidence: [empty], resource: 'service_accounts' },
    { toolCallId: 'mut-1' },
  );
  const all = await listAll(session, {}, { toolCallId: 'read-2' });
  await disable(
    session,
    { ids: ['a'] },
    { basis: 'presence', targets: ['a'], evidence: [all] },
    { toolCallId: 'mut-2' },
  );
  await broken(session, {}, { toolCallId: 'read-3' }).catch(() => {});
});

after(async () => {
  await provider.shutdown();
  await db?.drop();
});

test('the collector accepts every span the library emits', () => {
  const request = decodeExportTraceServiceRequest(serializeSpans(exporter.getFinishedSpans()));
  const result = validateRequest(request);
  assert.equal(result.rejected, 0, result.messages.join('; '));
  assert.equal(result.accepted, 5);
});

test('every contract field lands in its tool_calls column', async () => {
  const ingested = await ingestSpans(db, exporter.getFinishedSpans(), 'acme');
  assert.equal(ingested.toolCalls, 5);
  assert.equal(ingested.warnings, 1);
  const rows = await (
    await db.ch.query({
      query: `SELECT tool_call_id, sequence, effect, result_status, result_complete, complete_reported, result_reasons,
                result_item_count, result_continuation, scope_resource, scope_snapshot, warnings, mutation_basis,
                mutation_target_count, evidence_snapshots, evidence_call_ids, guard_decision, span_status_code
              FROM {db:Identifier}.tool_calls WHERE session_id = 'pipeline-1' ORDER BY sequence`,
      query_params: { db: db.database },
      format: 'JSONEachRow',
    })
  ).json<Record<string, unknown>>();
  assert.deepEqual(
    rows.map((r) => [r.tool_call_id, Number(r.sequence), r.effect]),
    [
      ['read-1', 1, 'read'],
      ['mut-1', 2, 'mutation'],
      ['read-2', 3, 'read'],
      ['mut-2', 4, 'mutation'],
      ['read-3', 5, 'read'],
    ],
  );
  const [read1, mut1, read2, mut2, read3] = rows;
  assert.equal(read1?.result_complete, false);
  assert.equal(read1?.complete_reported, true);
  assert.deepEqual(read1?.result_reasons, ['MORE_PAGES_AVAILABLE']);
  assert.equal(Number(read1?.result_item_count), 0);
  assert.equal(read1?.result_continuation, 'next_cursor');
  assert.equal(read1?.scope_snapshot, 'snap-1');
  assert.deepEqual(read1?.warnings, ['STALE_INDEX']);
  assert.equal(mut1?.guard_decision, 'refused');
  assert.equal(mut1?.mutation_basis, 'absence');
  assert.equal(mut1?.scope_resource, 'service_accounts');
  assert.deepEqual(mut1?.evidence_call_ids, ['read-1']);
  assert.deepEqual(mut1?.evidence_snapshots, ['snap-1']);
  assert.equal(mut1?.result_status, '');
  assert.equal(read2?.result_complete, true);
  assert.equal(Number(read2?.result_item_count), 2);
  assert.equal(mut2?.guard_decision, 'allowed');
  assert.equal(Number(mut2?.mutation_target_count), 1);
  assert.deepEqual(mut2?.evidence_call_ids, ['read-2']);
  assert.equal(read3?.result_status, 'error');
  assert.equal(read3?.span_status_code, 'Error');
});
