/**
 * The rows half of `verify`: per (tenant, hour), every digest entry (table, id, hash) is looked up among the rows
 * that hour holds now. No such row -> row_deleted, unless a policy erased the hour (the retention TTL, a recorded
 * deletion request): then counted as expired by policy, never as deleted; a row whose hash differs -> row_changed; a row no digest covers
 * (or more copies than digests) -> row_added; a record whose entry list no longer hashes to its rows_hash ->
 * digest_altered.
 */
import { z } from 'zod';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { columnIndex, entryHash, selectList, TABLE_SPECS, type TableSpec } from './canonical.ts';
import { rowsHash } from './chain.ts';
import type { Expired } from './report.ts';
import { sqlFile } from './sql.ts';
import { decimal, type IssueSink, isoOf, push, rows } from './verify-query.ts';

const DigestRow = z.object({
  chain: z.string(),
  seq_text: decimal,
  batch_id: z.string(),
  backfill: z.boolean(),
  canonical_version: z.coerce.number(),
  row_count: z.coerce.number(),
  row_tables: z.array(z.string()),
  row_ids: z.array(z.string()),
  row_hashes: z.array(z.string()),
  rows_hash: z.string(),
});

const ROWS_SQL: Record<TableSpec['table'], string> = {
  tool_calls: 'toolCallsOfHour',
  tool_call_warnings: 'warningsOfHour',
  spans: 'spansOfHour',
};

/** The current entries of one (tenant, hour): (table, id) -> the hash of each stored copy. */
async function storedEntries(
  ch: ClickHouseClient,
  db: string,
  tenant: string,
  hour: number,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const spec of TABLE_SPECS) {
    const query = sqlFile(ROWS_SQL[spec.table]).replaceAll('{{columns}}', selectList(spec));
    const rs = await ch.query({ query, query_params: { db, tenant, hour_s: hour }, format: 'JSONCompactEachRow' });
    const values = await rs.json<unknown[]>();
    const idAt = columnIndex(spec, spec.id);
    if (spec.table !== 'tool_call_warnings') {
      for (const v of values) push(out, `${spec.table}\u0000${String(v[idAt])}`, entryHash(spec, [v]));
      continue;
    }
    const groups = new Map<string, unknown[][]>();
    for (const v of values) {
      const id = String(v[idAt]);
      const g = groups.get(id) ?? [];
      groups.set(id, g);
      g.push(v);
    }
    for (const [id, g] of groups) push(out, `${spec.table}\u0000${id}`, entryHash(spec, g));
  }
  return out;
}

/** Why a recorded row of (tenant, hour) may be gone: a policy that erased the hour, or undefined (it was deleted). */
export type ExpiryJudge = (tenant: string, hourS: number) => Omit<Expired, 'rows' | 'statement'> | undefined;

/** Counts the rows gone by policy, one verdict per (tenant, hour, policy, request). */
export class ExpiredRows {
  private readonly byKey = new Map<string, Expired>();

  add(e: Omit<Expired, 'rows' | 'statement'>): void {
    const k = JSON.stringify([e.tenant, e.hour, e.policy, e.deletion_id]);
    const known = this.byKey.get(k);
    if (known) known.rows += 1;
    else this.byKey.set(k, { ...e, rows: 1, statement: '' });
  }

  list(): Expired[] {
    return [...this.byKey.values()].map((e) => ({
      ...e,
      statement: `${e.rows} row(s) of ${e.tenant} hour ${e.hour} expired by policy at ${e.expired_at} (${
        e.policy === 'retention' ? 'retention' : `deletion request ${e.deletion_id} by ${e.requested_by}`
      })`,
    }));
  }
}

/** Compares the rows of each hour with its digest records; returns how many records and entries it compared. */
export async function verifyHours(
  ch: ClickHouseClient,
  db: string,
  hours: readonly { tenant: string; hour_s: string }[],
  issue: IssueSink,
  expiry: { judge: ExpiryJudge; expired: ExpiredRows },
): Promise<{ digestRecords: number; rows: number }> {
  const counts = { digestRecords: 0, rows: 0 };
  for (const h of hours) await verifyHour(ch, db, h, issue, counts, expiry);
  return counts;
}

async function verifyHour(
  ch: ClickHouseClient,
  db: string,
  h: { tenant: string; hour_s: string },
  issue: IssueSink,
  counts: { digestRecords: number; rows: number },
  expiry: { judge: ExpiryJudge; expired: ExpiredRows },
): Promise<void> {
  const hour = Number(h.hour_s);
  const hourIso = isoOf(hour);
  const records = await rows(ch, sqlFile('digestsOfHour'), { db, tenant: h.tenant, hour_s: hour }, DigestRow);
  counts.digestRecords += records.length;
  const expected = new Map<
    string,
    { hashes: Set<string>; entries: number; chain: string; seq: number; batch: string }
  >();
  for (const r of records) {
    const seq = Number(r.seq_text);
    const n = r.row_ids.length;
    const entries = r.row_ids.map((id, i) => ({ table: r.row_tables[i] ?? '', id, hash: r.row_hashes[i] ?? '' }));
    if (
      r.row_tables.length !== n ||
      r.row_hashes.length !== n ||
      r.row_count !== n ||
      rowsHash(entries) !== r.rows_hash
    ) {
      issue({
        kind: 'digest_altered',
        tenant: h.tenant,
        hour: hourIso,
        chain: r.chain,
        seq,
        batch_id: r.batch_id,
        statement: `the row list of digest record ${r.chain}#${seq} no longer matches its rows_hash: it was edited`,
      });
    }
    for (const e of entries) {
      const k = `${e.table}\u0000${e.id}`;
      const x = expected.get(k) ?? { hashes: new Set<string>(), entries: 0, chain: r.chain, seq, batch: r.batch_id };
      x.hashes.add(e.hash);
      x.entries += 1;
      expected.set(k, x);
    }
  }
  const stored = await storedEntries(ch, db, h.tenant, hour);
  for (const [k, x] of expected) {
    counts.rows += 1;
    const [table = '', id = ''] = k.split('\u0000');
    const where = {
      tenant: h.tenant,
      hour: hourIso,
      table,
      row_id: id,
      chain: x.chain,
      seq: x.seq,
      batch_id: x.batch,
    };
    const copies = stored.get(k) ?? [];
    const policy = copies.length === 0 ? expiry.judge(h.tenant, hour) : undefined;
    if (policy) expiry.expired.add(policy);
    else if (copies.length === 0) {
      issue({
        kind: 'row_deleted',
        ...where,
        statement: `${table} row ${id} was recorded by digest ${x.chain}#${x.seq} and is no longer stored`,
      });
    } else if (copies.some((c) => !x.hashes.has(c))) {
      issue({
        kind: 'row_changed',
        ...where,
        statement: `${table} row ${id} was altered after it was stored (hash differs from digest ${x.chain}#${x.seq})`,
      });
    } else if (copies.length > x.entries) {
      issue({
        kind: 'row_added',
        ...where,
        statement: `${table} row ${id} is stored ${copies.length} times but was recorded ${x.entries} time(s)`,
      });
    }
  }
  for (const [k, copies] of stored) {
    if (expected.has(k)) continue;
    const [table = '', id = ''] = k.split('\u0000');
    issue({
      kind: 'row_added',
      tenant: h.tenant,
      hour: hourIso,
      table,
      row_id: id,
      statement: `${table} row ${id} is stored${copies.length > 1 ? ` ${copies.length} times` : ''} but no digest covers it: written after the fact, or by a writer that records no digests`,
    });
  }
}
