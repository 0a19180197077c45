/**
 * A stored batch as the Merkle log's leaves: per tenant, runs of the rows of one (hour, table), each row one leaf
 * (a span's warning rows in one hour: one leaf). A run keeps its row ids Native-encoded (varint length + bytes,
 * what the log table's `row_ids` column takes as is) and its entry hashes as 32 raw bytes each (SHA-256 of the
 * row's canonical bytes, canonical.ts): no object and no hex string per row on the writer's path. A tenant's leaves
 * are its runs in order: hours ascending, then tool_calls, tool_call_warnings, spans.
 */
import { Buffer } from 'node:buffer';
import { ByteBuffer } from '../platform/native/byte-buffer.ts';
import { TABLE_SPECS } from './canonical.ts';
import type { DigestEntry } from './chain.ts';
import type { EntriesByTenant } from './entries.ts';
import { readString, strLen, strStart } from './native-block.ts';

export interface LeafRun {
  /** Unix seconds of the rows' hour (their own time). */
  hour: number;
  table: string;
  count: number;
  /** The rows' ids, Native-encoded one after the other (span ids; a warning group: its span's id). */
  ids: Buffer;
  /** 32 bytes per row: the entry hash. */
  entries: Buffer;
}

/** Runs per tenant, in leaf order. Structured-cloneable (the digest worker hands them over). */
export type RunsByTenant = Map<string, LeafRun[]>;

const TABLE_RANK = new Map<string, number>(TABLE_SPECS.map((s, i) => [s.table, i]));

interface Group {
  tenant: string;
  hour: number;
  table: string;
  count: number;
  ids: ByteBuffer;
  entries: ByteBuffer;
}

/** Gathers a batch's leaves into runs; rows of one (tenant, hour, table) may come in any order and in pieces. */
export class RunBuilder {
  private readonly groups = new Map<string, Group>();
  private last: Group | undefined;

  /** The run of (tenant, hour, table), created on first use. */
  group(tenant: string, hour: number, table: string): Group {
    const l = this.last;
    if (l && l.hour === hour && l.tenant === tenant && l.table === table) return l;
    const k = `${tenant}\u0000${hour}\u0000${table}`;
    let g = this.groups.get(k);
    if (!g) {
      g = { tenant, hour, table, count: 0, ids: new ByteBuffer(1024), entries: new ByteBuffer(1024) };
      this.groups.set(k, g);
    }
    this.last = g;
    return g;
  }

  /** One leaf from the JavaScript paths: its id as text, its entry hash as hex. */
  addEntry(tenant: string, hour: number, table: string, id: string, hash: string): void {
    const g = this.group(tenant, hour, table);
    const n = Buffer.byteLength(id, 'utf8');
    g.ids.varint(n);
    g.ids.ensure(n);
    g.ids.pos += g.ids.buf.write(id, g.ids.pos, n, 'utf8');
    g.entries.ensure(32);
    if (g.entries.buf.write(hash, g.entries.pos, 32, 'hex') !== 32) throw new Error(`not a SHA-256 hex hash: ${hash}`);
    g.entries.pos += 32;
    g.count += 1;
  }

  /**
   * Leaves whose ids are Native strings in `idBytes` [idFrom, idTo) and whose entry hashes are `hashes` [at, at +
   * 32 * count): copied as they are.
   */
  addRaw(g: Group, count: number, idBytes: Buffer, idFrom: number, idTo: number, hashes: Buffer, at: number): void {
    g.ids.ensure(idTo - idFrom);
    idBytes.copy(g.ids.buf, g.ids.pos, idFrom, idTo);
    g.ids.pos += idTo - idFrom;
    g.entries.ensure(32 * count);
    hashes.copy(g.entries.buf, g.entries.pos, at, at + 32 * count);
    g.entries.pos += 32 * count;
    g.count += count;
  }

  runs(): RunsByTenant {
    const out: RunsByTenant = new Map();
    for (const g of this.groups.values()) {
      if (g.count === 0) continue;
      const list = out.get(g.tenant) ?? [];
      out.set(g.tenant, list);
      list.push({
        hour: g.hour,
        table: g.table,
        count: g.count,
        // The group's own buffers: nothing else writes to them.
        ids: g.ids.buf.subarray(0, g.ids.pos),
        entries: g.entries.buf.subarray(0, g.entries.pos),
      });
    }
    for (const list of out.values()) list.sort((a, b) => a.hour - b.hour || rank(a.table) - rank(b.table));
    return new Map([...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

function rank(table: string): number {
  return TABLE_RANK.get(table) ?? TABLE_RANK.size;
}

/** Runs of entries computed from row objects (the JSON writer's path, canonical.ts `digestEntries`). */
export function runsOfEntries(entries: EntriesByTenant): RunsByTenant {
  const b = new RunBuilder();
  for (const [tenant, hours] of entries)
    for (const [hour, list] of hours) for (const e of list) b.addEntry(tenant, hour, e.table, e.id, e.hash);
  return b.runs();
}

/** The ids of a run as text, in leaf order. */
export function idsOf(run: Pick<LeafRun, 'ids' | 'count'>): string[] {
  const out: string[] = [];
  let at = 0;
  for (let i = 0; i < run.count; i++) {
    at = readString(run.ids, at);
    out.push(run.ids.toString('utf8', strStart, strStart + strLen));
  }
  if (at !== run.ids.length) throw new Error(`a run of ${run.count} ids holds ${run.ids.length - at} bytes more`);
  return out;
}

/** The entries of runs as (table, id, hex hash) per tenant and hour: what tests and verify compare. */
export function entriesOfRuns(runs: RunsByTenant): EntriesByTenant {
  const out: EntriesByTenant = new Map();
  for (const [tenant, list] of runs) {
    const hours = new Map<number, DigestEntry[]>();
    out.set(tenant, hours);
    for (const r of list) {
      const entries = hours.get(r.hour) ?? [];
      hours.set(r.hour, entries);
      const hex = r.entries.toString('hex');
      idsOf(r).forEach((id, i) => {
        entries.push({ table: r.table, id, hash: hex.slice(64 * i, 64 * i + 64) });
      });
    }
  }
  return out;
}

/** Leaves in all runs of a tenant. */
export function leafCount(runs: readonly LeafRun[]): number {
  return runs.reduce((n, r) => n + r.count, 0);
}
