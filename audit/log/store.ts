/**
 * The Merkle log in ClickHouse (migrations 0021, 0022): nodes appended by the writer, read back by (level, index)
 * for proofs; checkpoints stored as the signed notes published.
 */
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { z } from 'zod';
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { encodeNative, type NativeType } from '../../platform/native/encode.ts';
import { sqlFile } from '../sql.ts';
import { Frontier, type StoredNode } from './frontier.ts';
import {
  consistencyRanges,
  EMPTY_ROOT,
  type Hash,
  inclusionRanges,
  type NodeId,
  perfectParts,
  rangeHash,
} from './rfc6962.ts';

export interface LogId {
  tenant: string;
  log: string;
}

/** A leaf as stored: the node plus the row it stands for. */
export interface LeafRow extends StoredNode {
  table: string;
  rowId: string;
  entryHash: string;
  hour: number;
  batchId: string;
}

const decimal = z.string().regex(/^\d+$/);
const HeadRow = z.object({ size_text: decimal, leaves: z.coerce.number() });
const NodeRow = z.object({ level: z.coerce.number(), idx_text: decimal, hash: z.string() });
const LeafOfRow = z.object({
  log: z.string(),
  idx_text: decimal,
  hash: z.string(),
  row_table: z.string(),
  row_id: z.string(),
  entry_hash: z.string(),
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
const LeafHashRow = z.object({ idx_text: decimal, hash: z.string(), entry_hash: z.string() });
const LogRow = z.object({ tenant: z.string(), log: z.string() });

async function select<T>(ch: ClickHouseClient, name: string, params: Record<string, unknown>, schema: z.ZodType<T>) {
  const rs = await ch.query({ query: sqlFile(name), query_params: params, format: 'JSONEachRow' });
  return (await rs.json<unknown>()).map((r) => schema.parse(r));
}

interface NodeRow {
  tenant: string;
  log: string;
  level: number;
  idx: number;
  hash: string;
  row_table: string;
  row_id: string;
  entry_hash: string;
  row_hour: number;
  batch_id: string;
}
const NODE_NATIVE: readonly (readonly [keyof NodeRow, NativeType])[] = [
  ['tenant', 'String'],
  ['log', 'String'],
  ['level', 'UInt64'],
  ['idx', 'UInt64'],
  ['hash', 'String'],
  ['row_table', 'String'],
  ['row_id', 'String'],
  ['entry_hash', 'String'],
  ['row_hour', 'UInt64'],
  ['batch_id', 'String'],
];

export class LogStore {
  constructor(
    private readonly ch: ClickHouseClient,
    private readonly db: string,
  ) {}

  /** The tree's size (last leaf + 1) and how many leaves the table holds (fewer: some were deleted). */
  async head(id: LogId): Promise<{ size: number; leaves: number }> {
    const [h] = await select(this.ch, 'logHead', { db: this.db, ...id }, HeadRow);
    return h && h.leaves > 0 ? { size: Number(h.size_text), leaves: h.leaves } : { size: 0, leaves: 0 };
  }

  /** The tree's size and right edge as stored (a restarted writer continues from it). */
  async frontier(id: LogId): Promise<Frontier> {
    const { size } = await this.head(id);
    if (size === 0) return new Frontier();
    const parts = perfectParts({ start: 0, end: size });
    const hashes = await this.nodes(id, parts);
    return new Frontier(
      size,
      parts.map((p) => hashes(p)),
    );
  }

  /** Looks up node hashes; the returned function throws naming a node the table does not hold. */
  async nodes(id: LogId, ids: readonly NodeId[]): Promise<(n: NodeId) => Hash> {
    const found = new Map<string, Hash>();
    if (ids.length > 0) {
      const levels = [...new Set(ids.map((n) => n.level))];
      const indices = [...new Set(ids.map((n) => n.index))];
      const wanted = new Set(ids.map((n) => `${n.level}:${n.index}`));
      const rows = await select(this.ch, 'logNodes', { db: this.db, ...id, levels, indices }, NodeRow);
      for (const r of rows) {
        const k = `${r.level}:${r.idx_text}`;
        if (wanted.has(k)) found.set(k, Buffer.from(r.hash, 'hex'));
      }
    }
    return (n) => {
      const h = found.get(`${n.level}:${n.index}`);
      if (!h) throw new MissingNodeError(id, n);
      return h;
    };
  }

  /** The root of the first `size` leaves, from the stored nodes. */
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
    const rows = await select(this.ch, 'logLeavesOfRows', { db: this.db, tenant, table, ids: rowIds }, LeafOfRow);
    return rows.map((r) => ({
      log: r.log,
      index: Number(r.idx_text),
      table: r.row_table,
      rowId: r.row_id,
      entryHash: r.entry_hash,
    }));
  }

  /** Every leaf of the log in index order (index, leaf hash, entry hash). */
  async leaves(id: LogId): Promise<{ index: number; hash: string; entryHash: string }[]> {
    const rows = await select(this.ch, 'logLeaves', { db: this.db, ...id }, LeafHashRow);
    return rows.map((r) => ({ index: Number(r.idx_text), hash: r.hash, entryHash: r.entry_hash }));
  }

  async checkpoints(id: LogId, maxSize = 0): Promise<StoredCheckpoint[]> {
    return select(this.ch, 'checkpointsOfLog', { db: this.db, ...id, max_size: maxSize }, CheckpointRow);
  }

  async logs(tenant = ''): Promise<LogId[]> {
    return select(this.ch, 'logsOfTenant', { db: this.db, tenant }, LogRow);
  }

  /** Appends nodes (leaves carry their row); one insert, so a batch's nodes land together or not at all. */
  async appendNodes(id: LogId, nodes: readonly (StoredNode | LeafRow)[]): Promise<void> {
    await this.appendTrees([{ id, nodes }]);
  }

  /** The nodes of several logs (a batch's tenants) in one insert: one part, one round trip. */
  async appendTrees(trees: readonly { id: LogId; nodes: readonly (StoredNode | LeafRow)[] }[]): Promise<void> {
    const rows: NodeRow[] = [];
    for (const { id, nodes } of trees) {
      for (const n of nodes) {
        const leaf = 'rowId' in n ? n : undefined;
        rows.push({
          tenant: id.tenant,
          log: id.log,
          level: n.level,
          idx: n.index,
          hash: n.hash.toString('hex'),
          row_table: leaf?.table ?? '',
          row_id: leaf?.rowId ?? '',
          entry_hash: leaf?.entryHash ?? '',
          row_hour: leaf?.hour ?? 0,
          batch_id: leaf?.batchId ?? '',
        });
      }
    }
    if (rows.length === 0) return;
    // Native: ClickHouse parses it several times faster than JSON (platform/native/encode.ts); level, idx and
    // row_hour (unix seconds) go as UInt64 and are converted to the table's UInt8, UInt64 and DateTime.
    const result = await this.ch.exec({
      query: `INSERT INTO ${this.db}.audit_log_nodes (${NODE_NATIVE.map(([c]) => c).join(', ')}) FORMAT Native`,
      values: Readable.from([encodeNative(rows, NODE_NATIVE)], { objectMode: false }),
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
    super(`the log ${log.tenant}/${log.log} has no node at level ${node.level} index ${node.index}: it was deleted`);
  }
}
