/**
 * The cases of the digest entries computed from the Native blocks the writer sends (audit/native-entries.ts): they
 * must equal those of canonical.ts over the same rows (`digestEntries`), which is what `tooltrail verify`
 * recomputes: any difference would report stored rows as changed. Run twice: with the JavaScript writer by
 * native-entries.test.ts (a unit test: nothing compiled), with the native row hasher (audit/native-core, built by
 * `npm ci` with the machine's C compiler) by test/integration/audit/native-row-hasher.test.ts.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { TOOL_CALLS_SPEC } from '../../../audit/canonical.ts';
import type { DigestEntry } from '../../../audit/chain.ts';
import { digestEntries, type EntriesByTenant } from '../../../audit/entries.ts';
import { bind, columnsOf, descriptorsOf, MAP, STR } from '../../../audit/native-block.ts';
import { END, START } from '../../../audit/native-canonical.ts';
import {
  NATIVE_ADDON_PATH,
  NATIVE_SOURCE_PATH,
  type NativeRowHasher,
  nativeRowHasher,
} from '../../../audit/native-core/index.ts';
import { entriesFromBlocks as entriesWith, type StoredBlocks } from '../../../audit/native-entries.ts';
import { assembleBlocks, ColumnArena } from '../../../ingest/columns/arena.ts';
import { decodeToColumns } from '../../../ingest/columns/decode.ts';
import { derivedDurationNs, flatten } from '../../../ingest/flatten.ts';
import { encodeRows } from '../../../ingest/writer.ts';
import { encodeNative, nanoTimeToBigInt } from '../../../platform/native/encode.ts';
import { decodeExportTraceServiceRequest, encodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { type Rows, type SpanRow, TOOL_CALL_NATIVE, type ToolCallRow, type WarningRow } from '../../../schema/rows.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { plainRequest, prng, type Rand, randomRequest } from '../ingest/otlp-payloads.ts';

/** The blocks the Native writer inserts for these rows. */
const blocks = (rows: Rows): StoredBlocks => encodeRows(rows);

/** Entries with each hour's list in one order (both sides group the same, but need not list in one order). */
function normal(e: EntriesByTenant): [string, [number, DigestEntry[]][]][] {
  const key = (x: DigestEntry) => `${x.table}\t${x.id}\t${x.hash}`;
  return [...e.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([t, hours]) => [
      t,
      [...hours.entries()]
        .sort(([a], [b]) => a - b)
        .map(([h, list]): [number, DigestEntry[]] => [h, [...list].sort((a, b) => (key(a) < key(b) ? -1 : 1))]),
    ]);
}

/** One case: its name and its body, registered by the test file that runs it (so the runner counts it there). */
export type Cases = readonly (readonly [name: string, run: () => void])[];

/** The implementation under test: the native row hasher, or null for the JavaScript writer. */
let hasher: NativeRowHasher | null = null;
export function useHasher(h: NativeRowHasher | null): void {
  hasher = h;
}
const entriesFromBlocks = (b: StoredBlocks) => entriesWith(b, hasher);

function assertSameEntries(rows: Rows, label: string): void {
  assert.deepEqual(normal(entriesFromBlocks(blocks(rows))), normal(digestEntries(rows)), label);
}

// Strings that exercise every JSON escape, multi-byte UTF-8, characters past U+FFFF and in U+E000-U+FFFF (where
// UTF-8 byte order and JS string order disagree), and long values (multi-byte Native length prefixes).
const TEXTS = [
  '',
  'a',
  'quote " back \\ slash',
  'ctl \u0000\u0001\b\t\n\u000b\f\r\u001f\u007f end',
  'ü€',
  '😀 past U+FFFF',
  '\ue000 private use',
  '\ufffd',
  'x'.repeat(300),
  `${'é'.repeat(70)}"`,
];

function text(r: Rand): string {
  return r.chance(0.3) ? `v${r.int(1e6)}` : r.pick(TEXTS);
}

/** A DateTime64 text as flatten writes it: seconds, a dot, nine digits. */
function time(r: Rand): string {
  const s = r.pick([0, 1, 1_772_359_200 + r.int(7200), 4_102_444_800 + r.int(1000), 9_000_000_000]);
  return `${s}.${String(r.int(1e9)).padStart(9, '0')}`;
}

function map(r: Rand): Record<string, string> {
  const keys = ['b', 'a', 'z', 'é', '😀', '\ue000', 'k.1', 'K', '10', '2', ''];
  const o: Record<string, string> = {};
  for (let i = r.int(6); i > 0; i--) o[r.pick(keys)] = text(r);
  return o;
}

const list = <T>(r: Rand, n: number, f: () => T): T[] => Array.from({ length: r.int(n + 1) }, f);

function toolCall(r: Rand): ToolCallRow {
  const start = time(r);
  const end = r.chance(0.2) ? time(r) : start.replace(/\d$/, '9');
  return {
    tenant: r.pick(['acme', 'bêta', '']),
    session_id: text(r),
    sequence: r.pick([null, '0', '42', '18446744073709551615', '9007199254740993']),
    start_time: start,
    end_time: end,
    duration_ns: derivedDurationNs(nanoTimeToBigInt(start), nanoTimeToBigInt(end)),
    trace_id: text(r),
    span_id: r.pick(['00f067aa0ba902b7', 'e457b5a2e4d86bd1', 'é']),
    parent_span_id: text(r),
    trace_state: text(r),
    span_name: text(r),
    span_kind: r.pick(['Internal', 'Client']),
    tool_call_id: text(r),
    tool_name: text(r),
    agent_name: text(r),
    agent_id: text(r),
    service_name: text(r),
    scope_name: text(r),
    scope_version: text(r),
    effect: r.pick(['read', 'mutation', '']),
    span_status_code: text(r),
    span_status_message: text(r),
    result_status: text(r),
    result_complete: r.chance(0.5),
    complete_reported: r.chance(0.5),
    result_reasons: list(r, 3, () => text(r)),
    result_item_count: r.pick([null, '0', '-5', '9223372036854775807', '-9223372036854775808', '4294967296']),
    result_continuation: text(r),
    scope_resource: text(r),
    scope_visibility: text(r),
    scope_snapshot: text(r),
    warnings: list(r, 2, () => text(r)),
    mutation_basis: text(r),
    mutation_target_count: r.pick([null, '3', '-1']),
    evidence_snapshots: list(r, 2, () => text(r)),
    evidence_call_ids: list(r, 2, () => text(r)),
    guard_decision: text(r),
    attributes: map(r),
    resource_attributes: map(r),
    event_times: list(r, 3, () => time(r)),
    event_names: list(r, 3, () => text(r)),
    event_attributes: list(r, 3, () => map(r)),
    link_trace_ids: list(r, 2, () => text(r)),
    link_span_ids: list(r, 2, () => text(r)),
    link_trace_states: list(r, 2, () => text(r)),
    link_attributes: list(r, 2, () => map(r)),
  };
}

function warning(r: Rand): WarningRow {
  return {
    tenant: r.pick(['acme', 'bêta']),
    time: time(r),
    code: text(r),
    source: text(r),
    message: text(r),
    tool_name: text(r),
    agent_name: text(r),
    session_id: text(r),
    trace_id: text(r),
    // Few ids: several rows of one span and hour form one entry.
    span_id: `s${r.int(4)}`,
  };
}

function span(r: Rand): SpanRow {
  return {
    Tenant: r.pick(['acme', 'bêta']),
    Timestamp: time(r),
    TraceId: text(r),
    SpanId: text(r),
    ParentSpanId: text(r),
    TraceState: text(r),
    SpanName: text(r),
    SpanKind: text(r),
    ServiceName: text(r),
    ResourceAttributes: map(r),
    ScopeName: text(r),
    ScopeVersion: text(r),
    SpanAttributes: map(r),
    Duration: r.pick([0, 1, 2 ** 32, 2 ** 53 - 1, 2 ** 60, 2 ** 64 - 2 ** 12]),
    StatusCode: text(r),
    StatusMessage: text(r),
    'Events.Timestamp': list(r, 2, () => time(r)),
    'Events.Name': list(r, 2, () => text(r)),
    'Events.Attributes': list(r, 2, () => map(r)),
    'Links.TraceId': list(r, 2, () => text(r)),
    'Links.SpanId': list(r, 2, () => text(r)),
    'Links.TraceState': list(r, 2, () => text(r)),
    'Links.Attributes': list(r, 2, () => map(r)),
  };
}

/** The native row hasher is built, current, and agrees with the JavaScript writer on corrupted blocks. */
export const NATIVE_ROW_HASHER_CASES: Cases = [
  [
    'is built by npm install (postinstall), unless TOOLTRAIL_NATIVE_DIGESTS=0 turns it off',
    () => {
      if (process.env.TOOLTRAIL_NATIVE_DIGESTS === '0') assert.equal(nativeRowHasher, undefined);
      else assert.ok(nativeRowHasher, 'build/row-hashes.node is missing: run npm run build:native and read its output');
    },
  ],

  [
    'is not older than its C source (an edited row-hashes.c needs npm run build:native)',
    () => {
      if (!nativeRowHasher) return assert.equal(process.env.TOOLTRAIL_NATIVE_DIGESTS, '0');
      assert.ok(
        statSync(NATIVE_ADDON_PATH).mtimeMs >= statSync(NATIVE_SOURCE_PATH).mtimeMs,
        'stale build: npm run build:native',
      );
    },
  ],

  [
    'agrees with the JavaScript writer on blocks corrupted anywhere: same entries or both refuse, never a crash',
    () => {
      if (!nativeRowHasher) return assert.equal(process.env.TOOLTRAIL_NATIVE_DIGESTS, '0');
      const r = prng(11);
      const rows: Rows = {
        toolCalls: Array.from({ length: 6 }, () => toolCall(r)),
        warnings: [],
        spans: Array.from({ length: 6 }, () => span(r)),
      };
      const b = blocks(rows);
      const outcome = (x: StoredBlocks, h: NativeRowHasher | null): string => {
        try {
          return JSON.stringify(normal(entriesWith(x, h)));
        } catch (err) {
          return `refused: ${(err as Error).message}`;
        }
      };
      let tried = 0;
      // The corrupted table alone: the other's entries are the same on both sides whatever the corruption.
      const none = { rows: 0, body: Buffer.alloc(0) };
      for (const table of ['toolCalls', 'spans'] as const) {
        const body = b[table].body;
        for (let at = 0; at < body.length; at += 5) {
          for (const value of [0xff, body[at]! ^ 0x01]) {
            const bad = Buffer.from(body);
            bad[at] = value;
            const x = { toolCalls: none, warnings: none, spans: none, [table]: { rows: b[table].rows, body: bad } };
            assert.equal(outcome(x, nativeRowHasher), outcome(x, null), `${table} byte ${at} = ${value}`);
            tried++;
          }
        }
      }
      assert.ok(tried > 500, `${tried} corruptions`);
    },
  ],

  [
    'finds the same columns as the JavaScript loop, and leaves a cut block to it to name where it ends',
    () => {
      if (!nativeRowHasher) return assert.equal(process.env.TOOLTRAIL_NATIVE_DIGESTS, '0');
      const r = prng(12);
      // Long strings too: their lengths take 2- and 3-byte varints.
      const rows: Rows = {
        toolCalls: Array.from({ length: 8 }, (_, i) => ({ ...toolCall(r), tool_name: 'x'.repeat(i * 9000) })),
        warnings: [],
        spans: Array.from({ length: 8 }, () => span(r)),
      };
      const b = blocks(rows);
      const found = (body: Buffer, native: boolean): string => {
        try {
          const c = columnsOf(body, native ? { offsets: false, native: nativeRowHasher } : { offsets: false });
          return JSON.stringify([c.rows, [...c.byName]]);
        } catch (err) {
          return `refused: ${(err as Error).message}`;
        }
      };
      let cut = 0;
      for (const table of ['toolCalls', 'spans'] as const) {
        const body = b[table].body;
        assert.ok(!found(body, true).startsWith('refused'), found(body, true));
        assert.equal(found(body, true), found(body, false), `${table} intact`);
        for (let end = 0; end < body.length; end += 1 + Math.floor(end / 50)) {
          const short = body.subarray(0, end);
          const native = found(short, true);
          assert.equal(native, found(short, false), `${table} cut at ${end}`);
          if (native.includes('past the end')) cut++;
        }
      }
      assert.ok(cut > 20, `${cut} cuts inside a string column`);
    },
  ],

  [
    'finds the string columns from the extents the column path reports where walking them finds them',
    () => {
      if (!nativeRowHasher) return assert.equal(process.env.TOOLTRAIL_NATIVE_DIGESTS, '0');
      const b = columnPathBlocks();
      for (const table of ['toolCalls', 'warnings', 'spans'] as const) {
        const { body, parts } = b[table];
        assert.ok(parts && parts.length > 0, `${table}: the arena reports its parts`);
        const given = columnsOf(body, { offsets: false, native: nativeRowHasher, parts });
        const walked = columnsOf(body, { offsets: false, native: nativeRowHasher });
        assert.deepEqual([...given.byName], [...walked.byName], table);
      }
    },
  ],

  [
    'walks the columns whose reported extents do not fit, and hashes the block as without them',
    () => {
      if (!nativeRowHasher) return assert.equal(process.env.TOOLTRAIL_NATIVE_DIGESTS, '0');
      const b = columnPathBlocks();
      const expected = normal(entriesWith({ ...b, toolCalls: { ...b.toolCalls, parts: undefined } }, nativeRowHasher));
      const parts = b.toolCalls.parts!;
      const middle = 2 * Math.floor(parts.length / 4);
      // A string column's end is taken as given: moved, it misleads the parse of the next column's header.
      const walked = columnsOf(b.toolCalls.body, { offsets: false, native: nativeRowHasher });
      const str = [...walked.byName.values()].find((c) => c.layout === STR && parts.indexOf(c.a) > middle)!;
      const strEnd = parts.indexOf(str.a) + 1;
      const wrong: Record<string, number[]> = {
        'a part starting a byte late': parts.map((x, i) => (i === middle ? x + 1 : x)),
        'every extent from the middle on 3 bytes later': parts.map((x, i) => (i > middle ? x + 3 : x)),
        "a string column's end and every extent after it 3 bytes later": parts.map((x, i) => (i >= strEnd ? x + 3 : x)),
        'cut short': parts.slice(0, middle),
        'past the end': parts.map((x, i) => (i === parts.length - 1 ? x + 1 : x)),
      };
      for (const [why, p] of Object.entries(wrong)) {
        const block = { ...b, toolCalls: { ...b.toolCalls, parts: p } };
        assert.deepEqual(normal(entriesWith(block, nativeRowHasher)), expected, why);
      }
      const late = columnsOf(b.toolCalls.body, {
        offsets: false,
        native: nativeRowHasher,
        parts: wrong['a part starting a byte late'],
      });
      assert.deepEqual([...late.byName], [...walked.byName], 'a part starting late: its column walked');
    },
  ],

  [
    'refuses to hash a block whose string column does not stop where its part ends',
    () => {
      if (!nativeRowHasher) return assert.equal(process.env.TOOLTRAIL_NATIVE_DIGESTS, '0');
      const { body, rows } = columnPathBlocks().toolCalls;
      const cols = bind(TOOL_CALLS_SPEC, columnsOf(body, { offsets: false, native: nativeRowHasher }).byName);
      const out = Buffer.alloc(32 * rows);
      const hash = (desc: Float64Array) =>
        nativeRowHasher!.hashRows(body, desc, rows, Buffer.from('tool_calls\n'), START, END, out);
      assert.equal(hash(descriptorsOf(cols)), 0, 'as found');
      const checked = cols.filter((c) => c.layout === STR || c.layout === MAP);
      assert.ok(checked.length > 3, 'string and map columns to move');
      for (const c of checked) {
        for (const field of ['stop', 'stop2'] as const) {
          if (c.layout === STR && field === 'stop2') continue;
          const moved = cols.map((x) => (x === c ? { ...x, [field]: x[field] - 1 } : x));
          assert.notEqual(hash(descriptorsOf(moved)), 0, `${field} of a ${c.layout === STR ? 'string' : 'map'} column`);
        }
      }
    },
  ],
];

/** Column-path blocks (wire bytes -> arena -> Native, with their parts) of tool calls, warnings and spans. */
function columnPathBlocks(): StoredBlocks {
  const arena = new ColumnArena();
  const marks = [];
  for (let i = 0; i < 6; i++) {
    const mark = decodeToColumns(
      arena,
      syntheticMessage({ tenant: 'acme', toolSpans: 5 + i, seed: i, warningEvery: 2 }),
    );
    assert.ok(mark, `message ${i} takes the column path`);
    marks.push(mark);
  }
  return assembleBlocks(arena, marks);
}

/** The digest entries' cases, run with the hasher `useHasher` set (null: the JavaScript writer). */
export const DIGEST_ENTRY_CASES: Cases = [
  [
    'equal canonical.ts entries over random rows: escapes, non-BMP keys, 64-bit extremes, grouped warnings',
    () => {
      for (let seed = 1; seed <= 60; seed++) {
        const r = prng(seed);
        const n = 1 + r.int(40);
        const rows: Rows = {
          toolCalls: Array.from({ length: n }, () => toolCall(r)),
          warnings: Array.from({ length: n }, () => warning(r)),
          spans: Array.from({ length: n }, () => span(r)),
        };
        assertSameEntries(rows, `seed ${seed}`);
      }
    },
  ],

  [
    'derives duration_ns as the table does, for clocks stepped back and spans decades long',
    () => {
      const at = (start: string, end: string): ToolCallRow => ({
        ...toolCall(prng(7)),
        start_time: start,
        end_time: end,
        duration_ns: derivedDurationNs(nanoTimeToBigInt(start), nanoTimeToBigInt(end)),
      });
      const rows: Rows = {
        toolCalls: [
          at('1772359200.000000005', '1772359200.000000001'), // stepped back: 0
          at('0.000000000', '9000000000.000000001'), // 2^62 ns and more: past 2^53
          at('1772359200.999999999', '1772359201.000000000'),
          at('1.000000000', '1.000000000'),
        ],
        warnings: [],
        spans: [],
      };
      assertSameEntries(rows, 'durations');
    },
  ],

  [
    'equal canonical.ts entries over the rows flatten makes of random OTLP requests',
    () => {
      for (let seed = 1; seed <= 150; seed++) {
        const request = seed % 2 === 0 ? randomRequest(prng(seed)) : plainRequest(prng(seed));
        const rows = flatten(decodeExportTraceServiceRequest(encodeExportTraceServiceRequest(request)), {
          defaultTenant: 'dflt',
        });
        assertSameEntries(rows, `seed ${seed}`);
      }
    },
  ],

  [
    'hash the column path blocks (wire bytes -> Native) as canonical.ts hashes the general path rows',
    () => {
      const arena = new ColumnArena();
      const marks = [];
      const rows: Rows = { toolCalls: [], warnings: [], spans: [] };
      for (let i = 0; i < 30; i++) {
        const bytes = syntheticMessage({
          tenant: i % 3 === 0 ? '' : 'acme',
          toolSpans: 1 + (i % 9),
          seed: i,
          warningEvery: 2,
        });
        const mark = decodeToColumns(arena, bytes, { defaultTenant: 'dflt' });
        assert.ok(mark, `message ${i} takes the column path`);
        marks.push(mark);
        const f = flatten(decodeExportTraceServiceRequest(bytes), { defaultTenant: 'dflt' });
        rows.toolCalls.push(...f.toolCalls);
        rows.warnings.push(...f.warnings);
        rows.spans.push(...f.spans);
      }
      assert.ok(rows.warnings.length > 0 && rows.spans.length > 0, 'every table has rows');
      const fromColumns = entriesFromBlocks(assembleBlocks(arena, marks));
      assert.deepEqual(normal(fromColumns), normal(digestEntries(rows)));
    },
  ],

  [
    'refuses a block whose columns are not the table spec, or cut anywhere (never hashes what it cannot read)',
    () => {
      const rows: Rows = { toolCalls: [toolCall(prng(3))], warnings: [], spans: [] };
      const b = blocks(rows);
      const noTenant = encodeNative(
        rows.toolCalls,
        TOOL_CALL_NATIVE.filter(([name]) => name !== 'session_id'),
      );
      assert.throws(() => entriesFromBlocks({ ...b, toolCalls: { rows: 1, body: noTenant } }), /no column session_id/);
      for (let cut = 1; cut < b.toolCalls.body.length; cut += 7) {
        assert.throws(
          () => entriesFromBlocks({ ...b, toolCalls: { rows: 1, body: b.toolCalls.body.subarray(0, cut) } }),
          /past the end|truncated|no column|unsupported type/,
          `cut at ${cut} of ${b.toolCalls.body.length}`,
        );
      }
    },
  ],
];
