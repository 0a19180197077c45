/**
 * The log's leaves straight from the Native blocks the writer sent (platform/native/encode.ts, ingest/columns/),
 * with no row object: each row's canonical bytes (canonical.ts, version 2) are written from the block's column bytes
 * by the native hasher (audit/native-core), or, without it, by native-canonical.ts (native-block.ts reads the
 * layout), then hashed; the row ids are copied from the block as they are (runs.ts). It is what lets the ingest's
 * column path (no row objects) record its audit trail, and it hashes exactly what ClickHouse received.
 *
 * The bytes hashed equal `entryHash(spec, valuesOf(spec, row))` for every row the encoders accept
 * (test/unit/audit/native-entries.test.ts compares both over random rows). Assumes the blocks' strings are UTF-8,
 * which both encoders guarantee (JS strings; the column path checks `isUtf8`).
 */
import { Buffer } from 'node:buffer';
import type { BatchBlocks, NativeBlock } from '../schema/batch.ts';
import { groupBytes, SPANS_SPEC, sha256, type TableSpec, TOOL_CALLS_SPEC, WARNINGS_SPEC } from './canonical.ts';
import type { EntriesByTenant } from './entries.ts';
import {
  type BlockColumns,
  bind,
  type Column,
  columnsOf,
  descriptorsOf,
  readString,
  strLen,
  strStart,
} from './native-block.ts';
import { Canonical, END, START, writeValue } from './native-canonical.ts';
import { type NativeRowHasher, nativeRowHasher } from './native-core/index.ts';
import { entriesOfRuns, RunBuilder, type RunsByTenant } from './runs.ts';

/** The blocks of one stored batch, per table (schema/batch.ts). */
export type StoredBlocks = BatchBlocks;
export type { NativeBlock };

const HOUR_NS = 3_600_000_000_000n;

/** The hour (unix seconds, floored as canonical.ts `hourOf`) of the Int64 nanoseconds at `at`. */
function hourAt(b: Buffer, at: number): number {
  const lo = b.readUInt32LE(at);
  const hi = b.readUInt32LE(at + 4);
  if (hi < 0x80000000) {
    // Seconds to within one; a second's boundary never straddles an hour's, so flooring seconds suffices,
    // but the seconds themselves must be exact: correct them with the exact remainder as `unsigned` does.
    let q = Math.floor((hi * 4294967296 + lo) / 1e9);
    const rem = (lo - Math.imul(q, 1_000_000_000)) | 0;
    if (rem < 0) q -= 1;
    else if (rem >= 1e9) q += 1;
    return Math.floor(q / 3600) * 3600;
  }
  return Number((b.readBigInt64LE(at) / HOUR_NS) * 3600n);
}

/** The id string at a Native string cursor: span ids are 16 hex characters, built without a native call. */
function textAt(b: Buffer, at: number): string {
  readString(b, at);
  const p = strStart;
  if (strLen === 16) {
    let high = 0;
    for (let i = p; i < p + 16; i++) high |= b[i]!;
    if (high < 0x80) {
      // biome-ignore format: one argument per byte
      return String.fromCharCode(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!, b[p + 4]!, b[p + 5]!, b[p + 6]!, b[p + 7]!, b[p + 8]!, b[p + 9]!, b[p + 10]!, b[p + 11]!, b[p + 12]!, b[p + 13]!, b[p + 14]!, b[p + 15]!);
    }
  }
  return b.toString('utf8', p, p + strLen);
}

/** Whether the string at strStart/strLen has the bytes of `known`. */
function sameBytes(b: Buffer, known: Buffer): boolean {
  if (known.length !== strLen) return false;
  for (let i = 0; i < strLen; i++) if (b[strStart + i] !== known[i]) return false;
  return true;
}

/** The columns a leaf's run and id are read from. */
function keyColumns(spec: TableSpec, cols: readonly Column[]): { tenantCol: Column; timeCol: Column; idCol: Column } {
  const at = (name: string) => cols[spec.columns.findIndex(([n]) => n === name)]!;
  return { tenantCol: at(spec.tenant), timeCol: at(spec.time), idCol: at(spec.id) };
}

const rowBytes = new Canonical();
const warningRows = new Canonical();

/** A span's warning rows in one hour: where each row's canonical bytes lie in warningRows. */
interface WarningGroup {
  tenant: string;
  hour: number;
  id: string;
  starts: number[];
  ends: number[];
}

/** The row's tenant, decoded once per run of equal tenants (tenant strings repeat row after row). */
class TenantReader {
  tenant = '';
  private tenantBytes: Buffer | undefined;

  /** Reads the tenant string at `at` into `tenant`; returns the position after it. */
  read(body: Buffer, at: number): number {
    const next = readString(body, at);
    if (!this.tenantBytes || !sameBytes(body, this.tenantBytes)) {
      this.tenantBytes = Buffer.from(body.subarray(strStart, strStart + strLen));
      this.tenant = this.tenantBytes.toString('utf8');
    }
    return next;
  }
}

/** Adds one block's leaves (tool_calls, spans: one per row; warnings: one per (tenant, hour, span)). */
function addBlock(out: RunBuilder, spec: TableSpec, stored: NativeBlock, hasher: NativeRowHasher | null): void {
  const grouped = spec.table === 'tool_call_warnings';
  if (!grouped && hasher !== null && hashNatively(hasher, out, spec, stored)) return;
  // The JavaScript walk finds the columns itself (the encoder's extents are for the native walk, which checks
  // them) and trusts the offsets: checked first (a corrupted one could make one row loop ~forever).
  const body = stored.body;
  const { rows, byName } = columnsOf(body);
  const cols = bind(spec, byName);
  const { tenantCol, timeCol, idCol } = keyColumns(spec, cols);
  const prefix = `${spec.table}\n`;
  const groups = new Map<string, WarningGroup>();
  // Warning rows are kept (grouped after the loop), other rows hashed one by one from one reused buffer.
  const c = grouped ? warningRows : rowBytes;
  c.pos = 0;
  const reader = new TenantReader();
  for (let r = 0; r < rows; r++) {
    // Read before the row's cursors move past them.
    reader.read(body, tenantCol.a);
    const tenant = reader.tenant;
    const hour = hourAt(body, timeCol.a + 8 * r);
    const id = textAt(body, idCol.a);
    const start = c.pos;
    if (!grouped) c.ascii(prefix);
    for (let i = 0; i < cols.length; i++) writeValue(c, body, cols[i]!, r, cols);
    if (!grouped) {
      out.addEntry(tenant, hour, spec.table, id, sha256(c.buf.subarray(0, c.pos)));
      c.pos = 0;
      continue;
    }
    const k = `${tenant}\u0000${hour}\u0000${id}`;
    let g = groups.get(k);
    if (!g) {
      g = { tenant, hour, id, starts: [], ends: [] };
      groups.set(k, g);
    }
    g.starts.push(start);
    g.ends.push(c.pos);
  }
  // One entry per group, as canonical.ts `entryBytes` frames it.
  const head = Buffer.from(prefix);
  for (const g of groups.values()) {
    const rows = g.starts.map((st, i) => c.buf.subarray(st, g.ends[i]));
    out.addEntry(g.tenant, g.hour, spec.table, g.id, sha256(groupBytes(head, rows)));
  }
}

let hashOut = Buffer.allocUnsafe(32 * 1024);
let idStarts = new Int32Array(1024);
let rowGroup = new Int32Array(1024);
const prefixes = new Map<string, Buffer>();

/** The block's columns for the native walk: from the encoder's extents when they fit, else walked. */
function nativeColumns(body: Buffer, hasher: NativeRowHasher, parts: readonly number[] | undefined): BlockColumns {
  if (parts) {
    try {
      return columnsOf(body, { offsets: false, native: hasher, parts });
    } catch {
      // Extents that misled the header parse: the walk below finds the columns, or names what is wrong.
    }
  }
  return columnsOf(body, { offsets: false, native: hasher });
}

/**
 * addBlock's rows hashed by the native row hasher (one call per block), their tenants, hours and id positions read
 * here; the ids are copied into the runs as the block holds them (Native strings). False, nothing added, when it
 * declines the block (non-ASCII map keys, malformed, a column not ending where its part ends): JavaScript does it.
 */
function hashNatively(hasher: NativeRowHasher, out: RunBuilder, spec: TableSpec, stored: NativeBlock): boolean {
  const body = stored.body;
  const { rows, byName } = nativeColumns(body, hasher, stored.parts);
  const cols = bind(spec, byName);
  const { tenantCol, timeCol, idCol } = keyColumns(spec, cols);
  const desc = descriptorsOf(cols);
  if (hashOut.length < 32 * rows) hashOut = Buffer.allocUnsafe(32 * rows);
  if (idStarts.length < rows + 1) {
    idStarts = new Int32Array(rows + 1);
    rowGroup = new Int32Array(rows + 1);
  }
  let prefix = prefixes.get(spec.table);
  if (!prefix) {
    prefix = Buffer.from(`${spec.table}\n`);
    prefixes.set(spec.table, prefix);
  }
  const timed = spec === TOOL_CALLS_SPEC;
  if (hasher.hashRows(body, desc, rows, prefix, timed ? START : 0, timed ? END : 0, hashOut) !== 0) return false;
  // Which run each row goes to: nearly always one (one tenant, one hour) for the whole block.
  const reader = new TenantReader();
  const groups: ReturnType<RunBuilder['group']>[] = [];
  let tenantAt = tenantCol.a;
  let idAt = idCol.a;
  let current = -1;
  let currentTenant = '';
  let currentHour = -1;
  for (let r = 0; r < rows; r++) {
    tenantAt = reader.read(body, tenantAt);
    const hour = hourAt(body, timeCol.a + 8 * r);
    idStarts[r] = idAt;
    idAt = readString(body, idAt);
    if (reader.tenant !== currentTenant || hour !== currentHour || current < 0) {
      const g = out.group(reader.tenant, hour, spec.table);
      current = groups.indexOf(g);
      if (current < 0) current = groups.push(g) - 1;
      currentTenant = reader.tenant;
      currentHour = hour;
    }
    rowGroup[r] = current;
  }
  idStarts[rows] = idAt;
  if (groups.length === 1) out.addRaw(groups[0]!, rows, body, idStarts[0]!, idAt, hashOut, 0);
  else
    for (let r = 0; r < rows; r++)
      out.addRaw(groups[rowGroup[r]!]!, 1, body, idStarts[r]!, idStarts[r + 1]!, hashOut, 32 * r);
  return true;
}

/**
 * The leaves of these blocks as runs per tenant (runs.ts), the entries hashed from the blocks' bytes. `hasher`: the
 * native row hasher when built; `null`: the JavaScript writer alone (tests and benchmarks compare both).
 */
export function runsFromBlocks(
  blocks: StoredBlocks,
  hasher: NativeRowHasher | null = nativeRowHasher ?? null,
): RunsByTenant {
  const out = new RunBuilder();
  if (blocks.toolCalls.rows > 0) addBlock(out, TOOL_CALLS_SPEC, blocks.toolCalls, hasher);
  if (blocks.warnings.rows > 0) addBlock(out, WARNINGS_SPEC, blocks.warnings, hasher);
  if (blocks.spans.rows > 0) addBlock(out, SPANS_SPEC, blocks.spans, hasher);
  return out.runs();
}

/** The same leaves as (table, id, hex hash) entries per tenant and hour: equal to `digestEntries` of their rows. */
export function entriesFromBlocks(
  blocks: StoredBlocks,
  hasher: NativeRowHasher | null = nativeRowHasher ?? null,
): EntriesByTenant {
  return entriesOfRuns(runsFromBlocks(blocks, hasher));
}
