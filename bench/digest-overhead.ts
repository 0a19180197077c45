/**
 * What the tamper-evidence digests add to the writer's CPU work per batch: hashing every row's canonical form
 * (audit/recorder.ts `digestEntries`) against the writer's own encoding of the same rows
 * (ingest/encode.ts `encodeJsonCompactEachRow`, the named baseline), measured in the same run.
 *   node --import tsx bench/digest-overhead.ts
 */
import { performance } from 'node:perf_hooks';
import { digestEntries } from '../audit/recorder.ts';
import { encodeJsonCompactEachRow } from '../ingest/encode.ts';
import { TOOL_CALL_COLUMNS, type ToolCallRow } from '../ingest/rows.ts';
import { printBenchReport, spread } from './support/report.ts';

const ROWS = 20_000;
const RUNS = 7;
const base = 1_772_359_200;

function row(i: number): ToolCallRow {
  return {
    tenant: `tenant-${i % 4}`,
    session_id: `sess-${i % 200}`,
    sequence: String(i),
    start_time: `${base + (i % 7200)}.${String(i % 1e9).padStart(9, '0')}`,
    end_time: `${base + (i % 7200) + 1}.000000000`,
    duration_ns: 1_000_000 + i,
    trace_id: i.toString(16).padStart(32, '0'),
    span_id: i.toString(16).padStart(16, '0'),
    parent_span_id: 'f'.repeat(16),
    trace_state: '',
    span_name: 'execute_tool list_service_accounts',
    span_kind: 'Internal',
    tool_call_id: `call-${i}`,
    tool_name: 'list_service_accounts',
    agent_name: 'ops-bot',
    agent_id: 'agent-7',
    service_name: 'ops-agent',
    scope_name: 'tooltrail',
    scope_version: '1.0.0',
    effect: 'read',
    span_status_code: 'Ok',
    span_status_message: '',
    result_status: 'partial',
    result_complete: false,
    complete_reported: true,
    result_reasons: ['MORE_PAGES_AVAILABLE'],
    result_item_count: '50',
    result_continuation: 'next_cursor',
    scope_resource: 'service_accounts',
    scope_visibility: 'readable by this credential',
    scope_snapshot: `snap-${i % 50}`,
    warnings: ['STALE_INDEX'],
    mutation_basis: '',
    mutation_target_count: null,
    evidence_snapshots: [],
    evidence_call_ids: [],
    guard_decision: '',
    attributes: { 'gen_ai.tool.type': 'function', 'http.status_code': '200' },
    resource_attributes: { 'service.name': 'ops-agent', 'tooltrail.tenant': `tenant-${i % 4}` },
    event_times: [`${base + (i % 7200)}.500000000`],
    event_names: ['tooltrail.warning'],
    event_attributes: [{ code: 'STALE_INDEX', source: 'idx-accounts', message: 'index 2h behind' }],
    link_trace_ids: [],
    link_span_ids: [],
    link_trace_states: [],
    link_attributes: [],
  };
}

const rows = Array.from({ length: ROWS }, (_, i) => row(i));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(fn: () => unknown): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

const encode: number[] = [];
const digest: number[] = [];
for (let i = 0; i < RUNS; i++) {
  encode.push(time(() => encodeJsonCompactEachRow(rows, TOOL_CALL_COLUMNS)));
  digest.push(time(() => digestEntries({ toolCalls: rows, warnings: [], spans: [] })));
}
const e = median(encode);
const d = median(digest);
console.log(`${ROWS} tool_calls rows, median of ${RUNS} runs`);
console.log(`baseline encodeJsonCompactEachRow: ${e.toFixed(1)} ms (${((ROWS / e) * 1000).toFixed(0)} rows/s)`);
console.log(`digestEntries (canonical + sha256): ${d.toFixed(1)} ms (${((ROWS / d) * 1000).toFixed(0)} rows/s)`);
console.log(`ratio digest / encode: ${(d / e).toFixed(2)}x`);
printBenchReport({
  bench: 'digest-overhead',
  figures: [
    {
      name: `digestEntries, ${ROWS} rows`,
      ...spread(digest),
      unit: 'ms',
      baseline: { name: 'encodeJsonCompactEachRow', value: e },
      ratio: d / e,
    },
  ],
});
