/**
 * What the tamper-evidence digests add to the writer's CPU work per batch, against the writer's own Native encoding
 * of the same rows (platform/native/encode.ts `encodeNative`, the named baseline), measured in the same run: hashing each
 * row's canonical form from the Native block inserted (audit/native-entries.ts, what the Native writer does; with
 * the native row hasher of audit/native-core when built, and with the JavaScript writer alone) and from row objects
 * (canonical.ts `digestEntries`, as `verify` does). Then what the main thread still
 * pays when the digest worker does the hashing (audit/digest-offload.ts): handing it the blocks (one memcpy).
 *   node --import tsx bench/digest-overhead.ts
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sha256 } from '../audit/canonical.ts';
import { computeOffMainThread, stopDigestWorker } from '../audit/digest-offload.ts';
import { nativeRowHasher } from '../audit/native-core/index.ts';
import { entriesFromBlocks } from '../audit/native-entries.ts';
import { digestEntries } from '../audit/recorder.ts';
import { emptyFlattenResult, flattenInto } from '../ingest/flatten.ts';
import { encodeRows } from '../ingest/writer.ts';
import { encodeNative } from '../platform/native/encode.ts';
import { decodeExportTraceServiceRequest } from '../platform/otlp/index.ts';
import { TOOL_CALL_NATIVE, type ToolCallRow } from '../schema/rows.ts';
import { syntheticMessage } from '../testkit/ingest.ts';
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
const native: number[] = [];
const nativeJs: number[] = [];
const none = { rows: 0, body: Buffer.alloc(0) };
const block = { toolCalls: { rows: ROWS, body: encodeNative(rows, TOOL_CALL_NATIVE) }, warnings: none, spans: none };
for (let i = 0; i < RUNS; i++) {
  encode.push(time(() => encodeNative(rows, TOOL_CALL_NATIVE)));
  digest.push(time(() => digestEntries({ toolCalls: rows, warnings: [], spans: [] })));
  native.push(time(() => entriesFromBlocks(block, nativeRowHasher)));
  nativeJs.push(time(() => entriesFromBlocks(block, null)));
}
if (!nativeRowHasher)
  console.log('native row hasher not built (npm run build:native): both block figures are JavaScript');
const e = median(encode);
const d = median(digest);
const n = median(native);
const nj = median(nativeJs);
const perRow = (ms: number) => `${((ms / ROWS) * 1000).toFixed(2)} us/row`;
console.log(`${ROWS} tool_calls rows, median of ${RUNS} runs`);
console.log(`baseline encodeNative: ${e.toFixed(1)} ms (${perRow(e)})`);
console.log(
  `entries from the Native block, native row hasher: ${n.toFixed(1)} ms (${perRow(n)}), ${(n / e).toFixed(2)}x`,
);
console.log(
  `entries from the Native block, JavaScript writer: ${nj.toFixed(1)} ms (${perRow(nj)}), ${(nj / e).toFixed(2)}x`,
);
console.log(`entries from row objects (canonical.ts): ${d.toFixed(1)} ms (${perRow(d)}), ${(d / e).toFixed(2)}x`);

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
for (const m of messages) flattenInto(flat, decodeExportTraceServiceRequest(m));
const batchRows = flat.toolCalls.length + flat.warnings.length + flat.spans.length;

const blocks = encodeRows(flat);

/** Main-thread ms to hand a batch's blocks over (the synchronous part), and ms until the worker's entries arrive. */
async function offload(): Promise<{ main: number; wall: number }> {
  const t = performance.now();
  const p = computeOffMainThread({ kind: 'native', blocks });
  const main = performance.now() - t;
  const r = await p;
  if (!r) throw new Error('digest worker failed');
  return { main, wall: performance.now() - t };
}

await offload(); // starts the worker
const onMain: number[] = [];
const blocksMain: number[] = [];
const blocksWall: number[] = [];
for (let i = 0; i < RUNS; i++) {
  onMain.push(time(() => entriesFromBlocks(blocks)));
  const a = await offload();
  blocksMain.push(a.main);
  blocksWall.push(a.wall);
}
await stopDigestWorker();
const us = (ms: number) => `${((ms / batchRows) * 1000).toFixed(2)} us/row`;
const om = median(onMain);
console.log(`${batchRows} rows from ${messages.length} Kafka messages, median of ${RUNS} runs; main thread per row:`);
console.log(`  entries from the blocks on the main thread: ${us(om)}`);
console.log(`  offload the blocks: main ${us(median(blocksMain))}, until entries ${us(median(blocksWall))}`);

printBenchReport({
  bench: 'digest-overhead',
  figures: [
    {
      name: `entries from the Native block, native row hasher, ${ROWS} rows`,
      ...spread(native),
      unit: 'ms',
      baseline: { name: 'encodeNative', value: e },
      ratio: n / e,
    },
    {
      name: `entries from the Native block, JavaScript writer, ${ROWS} rows`,
      ...spread(nativeJs),
      unit: 'ms',
      baseline: { name: 'encodeNative', value: e },
      ratio: nj / e,
    },
    {
      name: `entries from row objects, ${ROWS} rows`,
      ...spread(digest),
      unit: 'ms',
      baseline: { name: 'encodeNative', value: e },
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
      name: `main thread, offload the blocks, ${batchRows} rows`,
      ...spread(blocksMain),
      unit: 'ms',
      baseline: { name: 'entries from the blocks on the main thread', value: om },
      ratio: median(blocksMain) / om,
    },
  ],
});
