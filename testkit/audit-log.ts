/**
 * The audit trail as stored, for tests that count it or attack it: the Merkle log's leaves read back one per row
 * (audit_log_tiles' entries rows), and digest records written as the writer wrote them before the log became the
 * record (row_digests: the old data `verify` keeps checking).
 */
import { sealRecord } from '../audit/chain.ts';
import { digestEntries, type StoredRows } from '../audit/entries.ts';
import { leafHashes } from '../audit/log/hashes.ts';
import { type EntriesRow, LogStore } from '../audit/log/store.ts';
import { runsOfEntries } from '../audit/runs.ts';
import type { TestDatabase } from './services.ts';

/** The canonical version the digest records, and the log's leaves before version 2, were written in. */
const LEGACY_VERSION = 1;

export interface LoggedLeaf {
  /** The leaf index, as text. */
  i: string;
  entry_hash: string;
  row_table: string;
  row_id: string;
}

/** Every leaf of one (tenant, log) with its row, in index order. */
export async function loggedLeaves(db: TestDatabase, tenant: string, log: string): Promise<LoggedLeaf[]> {
  const rs = await db.ch.query({
    query: `SELECT toString(idx + pos - 1) AS i, lower(hex(substring(hashes, (pos - 1) * 32 + 1, 32))) AS entry_hash,
                   row_table, row_ids[pos] AS row_id
            FROM {db:Identifier}.audit_log_tiles ARRAY JOIN arrayEnumerate(row_ids) AS pos
            WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'entries'
            ORDER BY idx + pos`,
    query_params: { db: db.database, tenant, log },
    format: 'JSONEachRow',
  });
  return rs.json<LoggedLeaf>();
}

/** How many leaves the log of `tenant` (every log, or `log`) holds the data of; `table` counts one table's only. */
export async function loggedCount(
  db: TestDatabase,
  o: { tenant?: string; log?: string; table?: string },
): Promise<number> {
  const rs = await db.ch.query({
    query: `SELECT toString(sum(width)) AS n FROM {db:Identifier}.audit_log_tiles
            WHERE kind = 'entries' AND ({tenant:String} = '' OR tenant = {tenant:String})
              AND ({log:String} = '' OR log = {log:String}) AND ({table:String} = '' OR row_table = {table:String})`,
    query_params: { db: db.database, tenant: o.tenant ?? '', log: o.log ?? '', table: o.table ?? '' },
    format: 'JSONEachRow',
  });
  return Number((await rs.json<{ n: string }>())[0]?.n ?? 0);
}

/**
 * Digest records of stored rows as the writer recorded them before the Merkle log (chain.ts `sealRecord`, one per
 * (tenant, hour), chained to the newest record of `chain`, signed with `key`): old data for verify's chain walk.
 */
export async function recordLegacyDigests(
  db: TestDatabase,
  rows: StoredRows,
  o: { chain: string; batchId: string; nowMs: number; key?: string; graceSeconds?: number },
): Promise<void> {
  const grace = o.graceSeconds ?? 600;
  const values: Record<string, unknown>[] = [];
  for (const [tenant, hours] of [...digestEntries(rows, LEGACY_VERSION)].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const rs = await db.ch.query({
      query: `SELECT toString(seq) AS seq_text, digest_hash FROM {db:Identifier}.row_digests
              WHERE tenant = {tenant:String} AND chain = {chain:String} ORDER BY seq DESC LIMIT 1`,
      query_params: { db: db.database, tenant, chain: o.chain },
      format: 'JSONEachRow',
    });
    const [head] = await rs.json<{ seq_text: string; digest_hash: string }>();
    let seq = head ? Number(head.seq_text) : 0;
    let previous = head?.digest_hash ?? '';
    for (const hour of [...hours.keys()].sort((a, b) => a - b)) {
      const r = sealRecord(
        {
          tenant,
          chain: o.chain,
          seq: seq + 1,
          hour,
          batch_id: o.batchId,
          recorded_at_ms: o.nowMs,
          backfill: o.nowMs >= (hour + 3600 + grace) * 1000,
          canonical_version: LEGACY_VERSION,
          previous_hash: previous,
        },
        hours.get(hour)!,
        o.key,
      );
      seq = r.seq;
      previous = r.digest_hash;
      const time = (ms: number, withMs: boolean) =>
        new Date(ms)
          .toISOString()
          .slice(0, withMs ? 23 : 19)
          .replace('T', ' ');
      values.push({
        tenant: r.tenant,
        chain: r.chain,
        seq: r.seq,
        hour: time(r.hour * 1000, false),
        batch_id: r.batch_id,
        recorded_at: time(r.recorded_at_ms, true),
        backfill: r.backfill,
        canonical_version: r.canonical_version,
        row_count: r.row_count,
        row_tables: r.row_tables,
        row_ids: r.row_ids,
        row_hashes: r.row_hashes,
        rows_hash: r.rows_hash,
        previous_hash: r.previous_hash,
        digest_hash: r.digest_hash,
        signature: r.signature,
        key_id: r.key_id,
      });
    }
  }
  if (values.length > 0) await db.ch.insert({ table: `${db.database}.row_digests`, format: 'JSONEachRow', values });
}

/**
 * Stored rows appended to `log` as the writer logged them before canonical version 2 (entries rows of version 1),
 * continuing the tree as stored: the leaves of an audit trail written before the upgrade.
 */
export async function logVersion1(
  db: TestDatabase,
  rows: StoredRows,
  o: { log: string; batchId: string; nowMs: number },
): Promise<void> {
  const store = new LogStore(db.ch, db.database);
  for (const [tenant, runs] of runsOfEntries(digestEntries(rows, LEGACY_VERSION))) {
    const id = { tenant, log: o.log };
    const edge = await store.edge(id);
    let at = edge.size;
    const tiles = edge.append(leafHashes(Buffer.concat(runs.map((r) => r.entries))));
    const entries = runs.map((r): EntriesRow => {
      const e = { ...r, first: at, batchId: o.batchId, recordedMs: o.nowMs, backfill: false };
      at += r.count;
      return { ...e, canonicalVersion: LEGACY_VERSION };
    });
    await store.append([{ id, tiles, entries }]);
  }
}
