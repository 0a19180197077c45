/**
 * The rows half of `verify`: per (tenant, hour), every entry (table, id, hash) the writer recorded is looked up among
 * the rows that hour holds now. The entries come from the Merkle log's entries rows (audit_log_tiles) and, for rows
 * written before the log was the record, from the digest records (row_digests); a log's entries of a batch that a
 * digest record of the same (chain, batch) also covers are copies (migration 0043) and are skipped. No such row ->
 * row_deleted, unless a policy erased the hour (the retention TTL, a recorded deletion request): then counted as
 * expired by policy, never as deleted; a row whose hash differs -> row_changed; a row nothing covers (or more copies
 * than entries) -> row_added; a record whose entry list no longer hashes to its rows_hash, or entries whose ids and
 * hashes no longer pair up -> digest_altered; entries hashed in a canonical version this verify does not know ->
 * canonical_unknown, their rows neither compared nor reported added.
 */
import { z } from 'zod';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import {
  CANONICAL_VERSIONS,
  columnIndex,
  entryHash,
  rowBinarySql,
  selectList,
  TABLE_SPECS,
  type TableSpec,
} from './canonical.ts';
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

const RunRow = z.object({
  log: z.string(),
  idx_text: decimal,
  width: z.coerce.number(),
  row_table: z.string(),
  row_ids: z.array(z.string()),
  entries_hex: z.string(),
  batch_id: z.string(),
  recorded_ms_text: decimal,
  backfill: z.boolean(),
  canonical_version: z.coerce.number(),
});

/** A late batch's rows of one hour in the log (the report's backfill, for rows the log records). */
export interface LoggedBackfill {
  tenant: string;
  hour: number;
  log: string;
  first: number;
  batchId: string;
  recordedMs: number;
  rows: number;
}

const ROWS_SQL: Record<TableSpec['table'], string> = {
  tool_calls: 'tool_calls_of_hour',
  tool_call_warnings: 'warnings_of_hour',
  spans: 'spans_of_hour',
};

/**
 * The current rows of one (tenant, hour): (table, id) -> each stored copy, as the values a canonical version hashes
 * (one row; a span's warning rows of that hour together).
 */
async function storedCopies(
  ch: ClickHouseClient,
  db: string,
  tenant: string,
  hour: number,
): Promise<Map<string, unknown[][][]>> {
  const out = new Map<string, unknown[][][]>();
  for (const spec of TABLE_SPECS) {
    const query = sqlFile(ROWS_SQL[spec.table]).replaceAll('{{columns}}', selectList(spec));
    const rs = await ch.query({ query, query_params: { db, tenant, hour_s: hour }, format: 'JSONCompactEachRow' });
    const values = await rs.json<unknown[]>();
    const idAt = columnIndex(spec, spec.id);
    if (spec.table !== 'tool_call_warnings') {
      for (const v of values) push(out, `${spec.table}\u0000${String(v[idAt])}`, [v]);
      continue;
    }
    const groups = new Map<string, unknown[][]>();
    for (const v of values) {
      const id = String(v[idAt]);
      const g = groups.get(id) ?? [];
      groups.set(id, g);
      g.push(v);
    }
    for (const [id, g] of groups) push(out, `${spec.table}\u0000${id}`, g);
  }
  return out;
}

/** The canonical version serverHashes computes. */
const SERVER_VERSION = 2;

/**
 * The current rows of one (tenant, hour) as ClickHouse hashes them in canonical version 2: (table, id) -> the entry
 * hash of each stored copy (a span's warning rows of that hour: one group). The server walks and hashes the rows
 * where they are, instead of sending every value for verify to encode (bench/audit-log.ts).
 */
async function serverHashes(
  ch: ClickHouseClient,
  db: string,
  tenant: string,
  hour: number,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const spec of TABLE_SPECS) {
    // The table line is a constant of the spec (code, never input), as the columns are.
    const line = `'${spec.table}\\n'`;
    const grouped = spec.table === 'tool_call_warnings';
    const inner = sqlFile(ROWS_SQL[spec.table]).replaceAll(
      '{{columns}}',
      `toString(\`${spec.id}\`) AS _tt_id, ${rowBinarySql(spec)} AS _tt_row`,
    );
    const bytes = grouped
      ? `concat(${line}, arrayStringConcat(arrayMap(b -> formatRow('RowBinary', b), arraySort(groupArray(_tt_row)))))`
      : `concat(${line}, _tt_row)`;
    const query = `SELECT _tt_id, lower(hex(SHA256(${bytes}))) FROM (\n${inner}\n)${grouped ? ' GROUP BY _tt_id' : ''}`;
    const rs = await ch.query({ query, query_params: { db, tenant, hour_s: hour }, format: 'JSONCompactEachRow' });
    for (const [id, hash] of await rs.json<[string, string]>()) push(out, `${spec.table}\u0000${id}`, hash);
  }
  return out;
}

const SPEC_OF = new Map<string, TableSpec>(TABLE_SPECS.map((s) => [s.table, s]));

/** Whether a stored copy hashes, in one of the versions its entries were recorded in, to one of their hashes. */
function matches(table: string, copy: unknown[][], x: Expected): boolean {
  const spec = SPEC_OF.get(table);
  return spec !== undefined && [...x.versions].some((v) => x.hashes.has(entryHash(spec, copy, v)));
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

/** What verifyHours compared: records, entries (rows), of those the ones hashed here, and the log's late batches. */
export interface HourCounts {
  digestRecords: number;
  rows: number;
  /** Entries judged from values encoded here rather than from ClickHouse's version 2 hashes. */
  hashedHere: number;
  backfill: LoggedBackfill[];
}

/**
 * Compares the rows of each hour with what the log and the digest records recorded; returns how many records (digest
 * records, and the log's batches per hour) and entries it compared, and the log's late batches.
 */
export async function verifyHours(
  ch: ClickHouseClient,
  db: string,
  hours: readonly { tenant: string; hour_s: string }[],
  issue: IssueSink,
  expiry: { judge: ExpiryJudge; expired: ExpiredRows },
): Promise<HourCounts> {
  const counts: HourCounts = { digestRecords: 0, rows: 0, hashedHere: 0, backfill: [] };
  for (const h of hours) await verifyHour(ch, db, h, issue, counts, expiry);
  return counts;
}

interface Expected {
  hashes: Set<string>;
  /** The canonical versions the hashes were computed in. */
  versions: Set<number>;
  entries: number;
  chain: string;
  seq: number;
  batch: string;
  /** Who recorded it, for statements: `digest <chain>#<seq>` or `log <log> leaf <index>`. */
  by: string;
}

function expect(
  expected: Map<string, Expected>,
  table: string,
  id: string,
  hash: string,
  version: number,
  at: Omit<Expected, 'hashes' | 'versions' | 'entries'>,
) {
  const k = `${table}\u0000${id}`;
  const x = expected.get(k) ?? { hashes: new Set<string>(), versions: new Set<number>(), entries: 0, ...at };
  x.hashes.add(hash);
  x.versions.add(version);
  x.entries += 1;
  expected.set(k, x);
}

async function verifyHour(
  ch: ClickHouseClient,
  db: string,
  h: { tenant: string; hour_s: string },
  issue: IssueSink,
  counts: HourCounts,
  expiry: { judge: ExpiryJudge; expired: ExpiredRows },
): Promise<void> {
  const hour = Number(h.hour_s);
  const hourIso = isoOf(hour);
  const records = await rows(ch, sqlFile('digests_of_hour'), { db, tenant: h.tenant, hour_s: hour }, DigestRow);
  counts.digestRecords += records.length;
  const expected = new Map<string, Expected>();
  // Rows recorded in a canonical version this verify does not know: not compared, and not reported added.
  const unknown = new Set<string>();
  const unknownVersion = (
    version: number,
    at: { chain: string; seq: number; batch_id: string; what: string },
    rows: readonly { table: string; id: string }[],
  ): boolean => {
    if (CANONICAL_VERSIONS.includes(version)) return false;
    issue({
      kind: 'canonical_unknown',
      tenant: h.tenant,
      hour: hourIso,
      chain: at.chain,
      seq: at.seq,
      batch_id: at.batch_id,
      statement: `${at.what} hashed ${rows.length} row(s) in canonical version ${version}; this tooltrail knows versions ${CANONICAL_VERSIONS.join(' and ')}: verify them with the tooltrail that wrote them, or a newer one`,
    });
    for (const r of rows) unknown.add(`${r.table}\u0000${r.id}`);
    return true;
  };
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
    const at = { chain: r.chain, seq, batch_id: r.batch_id, what: `digest record ${r.chain}#${seq}` };
    if (unknownVersion(r.canonical_version, at, entries)) continue;
    for (const e of entries)
      expect(expected, e.table, e.id, e.hash, r.canonical_version, {
        chain: r.chain,
        seq,
        batch: r.batch_id,
        by: `digest ${r.chain}#${seq}`,
      });
  }
  // The log's entries, but for batches a digest record of the same chain already covers (copies of the same rows).
  const covered = new Set(records.map((r) => `${r.chain}\u0000${r.batch_id}`));
  const runs = (await rows(ch, sqlFile('log_runs_of_hour'), { db, tenant: h.tenant, hour_s: hour }, RunRow)).filter(
    (r) => !covered.has(`${r.log}\u0000${r.batch_id}`),
  );
  const batches = new Map<string, LoggedBackfill>();
  for (const r of runs) {
    const first = Number(r.idx_text);
    const k = `${r.log}\u0000${r.batch_id}`;
    const b = batches.get(k) ?? {
      tenant: h.tenant,
      hour,
      log: r.log,
      first,
      batchId: r.batch_id,
      recordedMs: Number(r.recorded_ms_text),
      rows: 0,
    };
    batches.set(k, b);
    b.first = Math.min(b.first, first);
    b.rows += r.width;
    if (r.backfill && !counts.backfill.includes(b)) counts.backfill.push(b);
    if (r.row_ids.length !== r.width || r.entries_hex.length !== 64 * r.width) {
      issue({
        kind: 'digest_altered',
        tenant: h.tenant,
        hour: hourIso,
        chain: r.log,
        seq: first,
        batch_id: r.batch_id,
        statement: `the entries of log ${r.log} leaves ${first}-${first + r.width - 1} were edited: ${r.row_ids.length} ids and ${r.entries_hex.length / 64} hashes for ${r.width} leaves`,
      });
      continue;
    }
    const at = {
      chain: r.log,
      seq: first,
      batch_id: r.batch_id,
      what: `the entries of log ${r.log} leaves ${first}-${first + r.width - 1}`,
    };
    if (
      unknownVersion(
        r.canonical_version,
        at,
        r.row_ids.map((id) => ({ table: r.row_table, id })),
      )
    )
      continue;
    for (const [i, id] of r.row_ids.entries())
      expect(expected, r.row_table, id, r.entries_hex.slice(64 * i, 64 * i + 64), r.canonical_version, {
        chain: r.log,
        seq: first + i,
        batch: r.batch_id,
        by: `log ${r.log} leaf ${first + i}`,
      });
  }
  counts.digestRecords += batches.size;
  const judge = (k: string, x: Expected, copies: number, allMatch: boolean) => {
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
    const policy = copies === 0 ? expiry.judge(h.tenant, hour) : undefined;
    if (policy) expiry.expired.add(policy);
    else if (copies === 0) {
      issue({
        kind: 'row_deleted',
        ...where,
        statement: `${table} row ${id} was recorded by ${x.by} and is no longer stored`,
      });
    } else if (!allMatch) {
      issue({
        kind: 'row_changed',
        ...where,
        statement: `${table} row ${id} was altered after it was stored (hash differs from ${x.by})`,
      });
    } else if (copies > x.entries) {
      issue({
        kind: 'row_added',
        ...where,
        statement: `${table} row ${id} is stored ${copies} times but was recorded ${x.entries} time(s)`,
      });
    }
  };
  // Version 2 entries are matched against the hashes ClickHouse computes of its rows. A row recorded only in version
  // 1, or a copy whose server hash matches none (a changed row, or a map ClickHouse sorts differently), is judged
  // from its values, encoded here: verify says how many rows that was (checked.rows_hashed_here).
  const fast = [...expected.values()].some((x) => x.versions.has(SERVER_VERSION))
    ? await serverHashes(ch, db, h.tenant, hour)
    : undefined;
  const here: [string, Expected][] = [];
  for (const [k, x] of expected) {
    const copies = fast?.get(k);
    if (fast && (copies === undefined || (x.versions.has(SERVER_VERSION) && copies.every((c) => x.hashes.has(c)))))
      judge(k, x, copies?.length ?? 0, true);
    else here.push([k, x]);
  }
  const stored = here.length > 0 || !fast ? await storedCopies(ch, db, h.tenant, hour) : undefined;
  if (stored) counts.hashedHere += here.length;
  for (const [k, x] of here) {
    const [table = ''] = k.split('\u0000');
    const copies = stored?.get(k) ?? [];
    judge(
      k,
      x,
      copies.length,
      copies.every((c) => matches(table, c, x)),
    );
  }
  for (const [k, copies] of fast ?? stored ?? []) {
    if (expected.has(k) || unknown.has(k)) continue;
    const [table = '', id = ''] = k.split('\u0000');
    issue({
      kind: 'row_added',
      tenant: h.tenant,
      hour: hourIso,
      table,
      row_id: id,
      statement: `${table} row ${id} is stored${copies.length > 1 ? ` ${copies.length} times` : ''} but nothing recorded it: written after the fact, or by a writer with its audit trail off`,
    });
  }
}
