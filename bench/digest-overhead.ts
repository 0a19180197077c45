/**
 * What the tamper-evidence digests add to the writer's CPU work per batch: hashing every row's canonical form
 * (audit/recorder.ts `digestEntries`) against the writer's own encoding of the same rows
 * (ingest/encode.ts `encodeJsonCompactEachRow`, the named baseline), measured in the same run. Then what the
 * main thread still pays when the digest worker does the hashing (audit/digest-offload.ts): handing it the rows
 * (structured clone) or the Kafka message bytes (packed, transferred), against `digestEntries` on the main thread.
 *   node --import tsx bench/digest-overhead.ts
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sha256 } from '../audit/canonical.ts';
import { computeOffMainThread, stopDigestWorker } from '../audit/digest-offload.ts';
import { digestEntries } from '../audit/recorder.ts';
import { encodeJsonCompactEachRow } from '../ingest/encode.ts';
import { emptyFlattenResult, flattenInto } from '../ingest/flatten.ts';
import { TOOL_CALL_COLUMNS, type ToolCallRow } from '../ingest/rows.ts';
import { decodeExportTraceServiceRequestFast } from '../platform/otlp/index.ts';
import { syntheticMessage } from '../test/support/ingest.ts';
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

// sha256 of canonical texts: one-shot crypto.hash (what canonical.ts uses) against createHash.
const texts = rows.slice(0, 5000).map((r) => JSON.stringify(Object.values(r)));
const hashOneShot: number[] = [];
const hashStream: number[] = [];
for (let i = 0; i < RUNS; i++) {
  hashStream.push(time(() => texts.map((t) => createHash('sha256').update(t).digest('hex'))));
  hashOneShot.push(time(() => texts.map((t) => sha256(t))));
}
const hs = median(hashStream);
const ho = median(hashOneShot);
console.log(
  `sha256 per row: createHash ${((hs / texts.length) * 1000).toFixed(2)} us, crypto.hash ${((ho / texts.length) * 1000).toFixed(2)} us`,
);

// The offload: Kafka messages as the consumer has them (10 tool spans + 1 span each, warnings on every 3rd).
const messages = Array.from({ length: ROWS / 10 }, (_, i) =>
  syntheticMessage({
    tenant: `tenant-${i % 4}`,
    toolSpans: 10,
    seed: i,
    startMs: (base + (i % 7200)) * 1000,
    warningEvery: 3,
  }),
);
const flat = emptyFlattenResult();
for (const m of messages) flattenInto(flat, decodeExportTraceServiceRequestFast(m));
const batchRows = flat.toolCalls.length + flat.warnings.length + flat.spans.length;

/** Main-thread ms to hand a batch over (the synchronous part), and ms until the worker's entries arrive. */
async function offload(kind: 'rows' | 'otlp'): Promise<{ main: number; wall: number }> {
  const t = performance.now();
  const p = computeOffMainThread(kind === 'rows' ? { kind, rows: flat } : { kind, messages });
  const main = performance.now() - t;
  const r = await p;
  if (!r) throw new Error('digest worker failed');
  return { main, wall: performance.now() - t };
}

await offload('otlp'); // starts the worker
const onMain: number[] = [];
const rowsMain: number[] = [];
const rowsWall: number[] = [];
const otlpMain: number[] = [];
const otlpWall: number[] = [];
for (let i = 0; i < RUNS; i++) {
  onMain.push(time(() => digestEntries(flat)));
  const a = await offload('rows');
  rowsMain.push(a.main);
  rowsWall.push(a.wall);
  const b = await offload('otlp');
  otlpMain.push(b.main);
  otlpWall.push(b.wall);
}
await stopDigestWorker();
const us = (ms: number) => `${((ms / batchRows) * 1000).toFixed(2)} us/row`;
const om = median(onMain);
console.log(`${batchRows} rows from ${messages.length} Kafka messages, median of ${RUNS} runs; main thread per row:`);
console.log(`  digestEntries on the main thread: ${us(om)}`);
console.log(`  offload rows (clone): main ${us(median(rowsMain))}, until entries ${us(median(rowsWall))}`);
console.log(`  offload Kafka bytes: main ${us(median(otlpMain))}, until entries ${us(median(otlpWall))}`);

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
    {
      name: `sha256, ${texts.length} texts, crypto.hash`,
      ...spread(hashOneShot),
      unit: 'ms',
      baseline: { name: 'createHash', value: hs },
      ratio: ho / hs,
    },
    {
      name: `main thread, offload rows (clone), ${batchRows} rows`,
      ...spread(rowsMain),
      unit: 'ms',
      baseline: { name: 'digestEntries on the main thread', value: om },
      ratio: median(rowsMain) / om,
    },
    {
      name: `main thread, offload Kafka bytes, ${batchRows} rows`,
      ...spread(otlpMain),
      unit: 'ms',
      baseline: { name: 'digestEntries on the main thread', value: om },
      ratio: median(otlpMain) / om,
    },
  ],
});
