import { createClickHouse } from './platform/clickhouse.ts';
import { migrateUp } from './schema/migrations.ts';

const ch = createClickHouse({ url: 'http://127.0.0.1:8123' });
const database = 'tt_scratch_mv';
await ch.command({ query: `DROP DATABASE IF EXISTS ${database}` });
await migrateUp(ch, { database, retentionDays: 30 });
await ch.insert({
  table: `${database}.tool_calls`,
  format: 'JSONEachRow',
  values: [
    {
      tenant: 't',
      session_id: 's',
      start_time: '1764860000.000000000',
      end_time: '1764860000.000000000',
      trace_id: 'x',
      span_id: 'a1',
      tool_call_id: 'c1',
      effect: 'read',
      result_complete: true,
      complete_reported: true,
      attributes: { 'tooltrail.traversal.id': 'c1', 'tooltrail.traversal.break': 'CURSOR_NOT_RECEIVED' },
    },
    {
      tenant: 't',
      session_id: 's',
      start_time: '1764860001.000000000',
      end_time: '1764860001.000000000',
      trace_id: 'x',
      span_id: 'a2',
      tool_call_id: 'c2',
      effect: 'read',
      result_complete: true,
      complete_reported: true,
      attributes: { 'tooltrail.traversal.id': 'c0', 'tooltrail.traversal.page': '3' },
    },
  ],
});
const r = await ch.query({
  query: `SELECT span_id, traversal_key, traversal_page, traversal_break, traversal_first, result_complete FROM ${database}.detector_incomplete_reads`,
  format: 'JSONEachRow',
});
console.log(await r.json());
const r2 = await ch.query({ query: `SELECT span_id FROM ${database}.detector_complete_reads`, format: 'JSONEachRow' });
console.log(await r2.json());
await ch.close();
