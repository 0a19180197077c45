/**
 * The Merkle log in ClickHouse (migrations 0042, 0022): tiles and entries appended by the writer, one insert per
 * batch; node hashes for proofs computed from the tiles that hold them; checkpoints stored as the notes published.
 */
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { z } from 'zod';
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { encodeNativeChunks, type NativeStrings, type NativeType } from '../../platform/native/encode.ts';
import { sqlFile } from '../sql.ts';
import {
  consistencyRanges,
  EMPTY_ROOT,
  type Hash,
  inclusionRanges,
  type NodeId,
  perfectParts,
  rangeHash,
} from './rfc6962.ts';
import { nodeFromTile, type Tile, TileEdge, tileOf } from './tiles.ts';

export interface LogId {
  tenant: string;
  log: string;
}

/** The data of leaves [first, first + count): rows of one (hour, table) that one batch logged. */
export interface EntriesRow {
  first: number;
  count: number;
  table: string;
  /** The row ids, Native-encoded (runs.ts). */
  ids: Buffer;
  /** 32 bytes per leaf: the entry hashes. */
  entries: Buffer;
  hour: number;
  batchId: string;
  recordedMs: number;
  backfill: boolean;
  /** The canonical version the entry hashes were computed in (audit/canonical.ts). */
  canonicalVersion: number;
}

const decimal = z.string().regex(/^\d+$/);
const HeadRow = z.object({ size_text: decimal, leaves_text: decimal });
const TileRow = z.object({
  level: z.coerce.number(),
  idx_text: decimal,
  held: z.coerce.number(),
  hashes_hex: z.string(),
});
const LeafTileRow = TileRow.omit({ level: true });
const EntriesOfLogRow = z.object({ idx_text: decimal, width: z.coerce.number(), entries_hex: z.string() });
const LeafOfRow = z.object({
  log: z.string(),
  idx_text: decimal,
  row_table: z.string(),
  row_id: z.string(),
  entry_hash: z.string(),
  canonical_version: z.coerce.number(),
});
export const CheckpointRow = z.object({
  tenant: z.string(),
  log: z.string(),
  size_text: decimal,
  root_hash: z.string(),
  key_name: z.string(),
  key_id: z.string(),
  note: z.string(),
  published_ms_text: decimal,
});
export type StoredCheckpoint = z.infer<typeof CheckpointRow>;
const LogRow = z.object({ tenant: z.string(), log: z.string() });

async function select<T>(ch: ClickHouseClient, name: string, params: Record<string, unknown>, schema: z.ZodType<T>) {
  const rs = await ch.query({ query: sqlFile(name), query_params: params, format: 'JSONEachRow' });
  return (await rs.json<unknown>()).map((r) => schema.parse(r));
}

/** One row of audit_log_tiles as the writer inserts it (tiles leave the entries columns empty). */
interface InsertRow {
  tenant: string;
  log: string;
  kind: 'tile' | 'entries';
  level: number;
  idx: number;
  width: number;
  hashes: Buffer;
  row_table: string;
  row_ids: NativeStrings;
  row_hour: number;
  batch_id: string;
  recorded_at: string;
  backfill: boolean;
  canonical_version: number;
}
const INSERT_NATIVE: readonly (readonly [keyof InsertRow, NativeType])[] = [
  ['tenant', 'String'],
  ['log', 'String'],
  ['kind', 'String'],
  ['level', 'UInt64'],
  ['idx', 'UInt64'],
  ['width', 'UInt64'],
  ['hashes', 'Binary'],
  ['row_table', 'String'],
  ['row_ids', 'NativeStrings'],
  ['row_hour', 'UInt64'],
  ['batch_id', 'String'],
  ['recorded_at', 'DateTime64'],
  ['backfill', 'Bool'],
  ['canonical_version', 'UInt64'],
];
const NO_IDS: NativeStrings = { count: 0, bytes: new Uint8Array(0) };

/** Unix ms as the DateTime64(9) text encodeNative takes. */
const nanoText = (ms: number) => `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}000000`;

export class LogStore {
  constructor(
    private readonly ch: ClickHouseClient,
    private readonly db: string,
  ) {}

  /** The tree's size (its leaf hashes) and how many leaves have their data (fewer: some were deleted). */
  async head(id: LogId): Promise<{ size: number; leaves: number }> {
    const [h] = await select(this.ch, 'log_head', { db: this.db, ...id }, HeadRow);
    return h ? { size: Number(h.size_text), leaves: Number(h.leaves_text) } : { size: 0, leaves: 0 };
  }

  /** The tree's size and right edge as stored (a restarted writer continues from it). */
  async edge(id: LogId): Promise<TileEdge> {
    const { size } = await this.head(id);
    if (size === 0) return new TileEdge();
    const wanted = TileEdge.partialTiles(size);
    const tile = await this.tiles(id, wanted);
    return new TileEdge(
      size,
      wanted.map((w) => {
        const hashes = tile(w.level, w.index);
        if (!hashes || hashes.length < 32 * w.width)
          throw new MissingNodeError(id, { level: 8 * w.level, index: w.index * 256 + w.width - 1 });
        return Buffer.from(hashes.subarray(0, 32 * w.width));
      }),
    );
  }

  /** The widest stored copy of these tiles; the returned function gives undefined for a tile not stored. */
  private async tiles(
    id: LogId,
    wanted: readonly { level: number; index: number }[],
  ): Promise<(level: number, index: number) => Buffer | undefined> {
    const found = new Map<string, Buffer>();
    if (wanted.length > 0) {
      const levels = [...new Set(wanted.map((t) => t.level))];
      const indices = [...new Set(wanted.map((t) => t.index))];
      for (const r of await select(this.ch, 'log_tiles', { db: this.db, ...id, levels, indices }, TileRow))
        found.set(`${r.level}:${r.idx_text}`, Buffer.from(r.hashes_hex, 'hex'));
    }
    return (level, index) => found.get(`${level}:${index}`);
  }

  /** Looks up node hashes (computed from their tiles); the returned function throws naming a node it cannot give. */
  async nodes(id: LogId, ids: readonly NodeId[]): Promise<(n: NodeId) => Hash> {
    const tile = await this.tiles(id, ids.map(tileOf));
    return (n) => {
      const h = nodeFromTile(n, tile);
      if (!h) throw new MissingNodeError(id, n);
      return h;
    };
  }

  /** The root of the first `size` leaves, from the stored tiles. */
  async rootAt(id: LogId, size: number): Promise<Hash> {
    if (size === 0) return EMPTY_ROOT;
    const range = { start: 0, end: size };
    return rangeHash(range, await this.nodes(id, perfectParts(range)));
  }

  async inclusionProof(id: LogId, index: number, size: number): Promise<Hash[]> {
    const ranges = inclusionRanges(index, size);
    const node = await this.nodes(id, ranges.flatMap(perfectParts));
    return ranges.map((r) => rangeHash(r, node));
  }

  async consistencyProof(id: LogId, first: number, second: number): Promise<Hash[]> {
    const ranges = consistencyRanges(first, second);
    const node = await this.nodes(id, ranges.flatMap(perfectParts));
    return ranges.map((r) => rangeHash(r, node));
  }

  /** The leaves standing for these rows of a tenant (every log, every copy). */
  async leavesOfRows(tenant: string, table: string, rowIds: readonly string[]) {
    if (rowIds.length === 0) return [];
    const rows = await select(this.ch, 'log_leaves_of_rows', { db: this.db, tenant, table, ids: rowIds }, LeafOfRow);
    return rows.map((r) => ({
      log: r.log,
      index: Number(r.idx_text),
      table: r.row_table,
      rowId: r.row_id,
      entryHash: r.entry_hash,
      canonicalVersion: r.canonical_version,
    }));
  }

  /**
   * The leaves of the log from index 0 as far as their data runs without a gap: the entry hashes and the stored
   * leaf hashes (level-0 tiles), 32 bytes per leaf each, up to where either stops.
   */
  async leaves(id: LogId): Promise<{ count: number; entries: Buffer; leafHashes: Buffer }> {
    const entries: Buffer[] = [];
    let next = 0;
    for (const r of await select(this.ch, 'log_entries', { db: this.db, ...id }, EntriesOfLogRow)) {
      if (Number(r.idx_text) !== next) break; // a gap: reported as leaf_gap; nothing past it can be folded
      const e = Buffer.from(r.entries_hex, 'hex');
      if (e.length !== 32 * r.width) break;
      entries.push(e);
      next += r.width;
    }
    const hashes: Buffer[] = [];
    let tiled = 0;
    for (const t of await select(this.ch, 'log_leaf_tiles', { db: this.db, ...id }, LeafTileRow)) {
      if (Number(t.idx_text) * 256 !== tiled) break;
      const h = Buffer.from(t.hashes_hex, 'hex');
      hashes.push(h);
      tiled += h.length / 32;
      if (t.held < 256) break;
    }
    const count = Math.min(next, tiled);
    return {
      count,
      entries: Buffer.concat(entries).subarray(0, 32 * count),
      leafHashes: Buffer.concat(hashes).subarray(0, 32 * count),
    };
  }

  async checkpoints(id: LogId, maxSize = 0): Promise<StoredCheckpoint[]> {
    return select(this.ch, 'checkpoints_of_log', { db: this.db, ...id, max_size: maxSize }, CheckpointRow);
  }

  async logs(tenant = ''): Promise<LogId[]> {
    return select(this.ch, 'logs_of_tenant', { db: this.db, tenant }, LogRow);
  }

  /**
   * Appends the tiles and entries of several logs (a batch's tenants) in one insert: one part, so they land
   * together or not at all, in one round trip.
   */
  async append(logs: readonly { id: LogId; tiles: readonly Tile[]; entries: readonly EntriesRow[] }[]): Promise<void> {
    const rows: InsertRow[] = [];
    for (const { id, tiles, entries } of logs) {
      for (const t of tiles)
        rows.push({
          ...id,
          kind: 'tile',
          level: t.level,
          idx: t.index,
          width: t.width,
          hashes: t.hashes,
          row_table: '',
          row_ids: NO_IDS,
          row_hour: 0,
          batch_id: '',
          recorded_at: '0.000000000',
          backfill: false,
          canonical_version: 0,
        });
      for (const e of entries)
        rows.push({
          ...id,
          kind: 'entries',
          level: 0,
          idx: e.first,
          width: e.count,
          hashes: e.entries,
          row_table: e.table,
          row_ids: { count: e.count, bytes: e.ids },
          row_hour: e.hour,
          batch_id: e.batchId,
          recorded_at: nanoText(e.recordedMs),
          backfill: e.backfill,
          canonical_version: e.canonicalVersion,
        });
    }
    if (rows.length === 0) return;
    // Native: hashes and ids go as the bytes they are, sent from where they lie (no copy of the megabytes of a
    // batch); UInt64 level, width, row_hour (unix seconds) and canonical_version are converted to the table's UInt8,
    // UInt32, DateTime and UInt8, DateTime64(9) to DateTime64(3).
    const result = await this.ch.exec({
      query: `INSERT INTO ${this.db}.audit_log_tiles (${INSERT_NATIVE.map(([c]) => c).join(', ')}) FORMAT Native`,
      values: Readable.from(encodeNativeChunks(rows, INSERT_NATIVE), { objectMode: false }),
      clickhouse_settings: { wait_end_of_query: 1 },
    });
    await finished(result.stream.resume());
  }

  async storeCheckpoint(
    c: Omit<StoredCheckpoint, 'published_ms_text' | 'size_text'> & { size: number; publishedMs: number },
  ) {
    await this.ch.insert({
      table: `${this.db}.audit_checkpoints`,
      format: 'JSONEachRow',
      values: [
        {
          tenant: c.tenant,
          log: c.log,
          tree_size: String(c.size),
          root_hash: c.root_hash,
          key_name: c.key_name,
          key_id: c.key_id,
          note: c.note,
          published_at: new Date(c.publishedMs).toISOString().slice(0, 23).replace('T', ' '),
        },
      ],
    });
  }
}

export class MissingNodeError extends Error {
  constructor(
    readonly log: LogId,
    readonly node: NodeId,
  ) {
    super(
      `the log ${log.tenant}/${log.log} has no node at level ${node.level} index ${node.index} (its tile is missing or too narrow): it was deleted`,
    );
  }
}
