/**
 * `tooltrail verify`: recompute, from what the tables hold now, the hashes the writer recorded, hour by hour, and
 * walk the digest chain.
 *
 * Rows: per (tenant, hour), every digest entry (table, id, hash) is looked up among the current rows of that hour:
 * no such row -> row_deleted; a row whose hash differs -> row_changed; a row no digest covers (or more copies
 * than digests) -> row_added.
 * Chain: every record in range must hash to its digest_hash, link to its predecessor and be linked to by its
 * successor, with no seq missing or doubled; with a key, its signature must verify.
 * Late batches (recorded after their hour closed) are listed as backfill: explicit, not failures.
 */
import { z } from 'zod';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import type { SchemaConfig } from '../schema/config.ts';
import { columnIndex, entryHash, selectList, TABLE_SPECS, type TableSpec } from './canonical.ts';
import { type DigestHeader, digestHash, keyId, rowsHash, signatureValid } from './chain.ts';
import type { Backfill, ChainHead, VerifyIssue, VerifyReport } from './report.ts';
import { sqlFile } from './sql.ts';

export interface VerifyOptions {
  tenant?: string;
  from: Date;
  to: Date;
  /** The HMAC key the writers sign with; without it signatures are not checked (and the report says so). */
  key?: string;
  /** Clock: hours past the retention TTL are not compared (their rows are expected to be gone). */
  now?: () => Date;
}

const decimal = z.string().regex(/^\d+$/);

const HourRow = z.object({ tenant: z.string(), hour_s: decimal });

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

const ChainRow = z.object({
  tenant: z.string(),
  chain: z.string(),
  seq_text: decimal,
  hour_text: decimal,
  batch_id: z.string(),
  recorded_ms_text: decimal,
  backfill: z.boolean(),
  canonical_version: z.coerce.number(),
  row_count: z.coerce.number(),
  rows_hash: z.string(),
  previous_hash: z.string(),
  digest_hash: z.string(),
  signature: z.string(),
  key_id: z.string(),
  in_range: z.union([z.boolean(), z.number()]).transform((v) => v === true || v === 1),
});
type ChainRecord = z.infer<typeof ChainRow>;

const HeadRow = z.object({
  tenant: z.string(),
  chain: z.string(),
  head_seq: decimal,
  head_hash: z.string(),
  head_recorded_ms: decimal,
});

async function rows<T>(
  ch: ClickHouseClient,
  query: string,
  params: Record<string, unknown>,
  schema: z.ZodType<T>,
): Promise<T[]> {
  const rs = await ch.query({ query, query_params: params, format: 'JSONEachRow' });
  return (await rs.json<unknown>()).map((r) => schema.parse(r));
}

const isoOf = (seconds: number) => new Date(seconds * 1000).toISOString();

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

function push(m: Map<string, string[]>, k: string, v: string): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** The range verify can bind: whole hours as UInt32 seconds (DateTime), 1970-01-01 to 2106-02-07T06:00Z. */
const VERIFIABLE_FROM_MS = 0;
const VERIFIABLE_TO_MS = Math.floor(4_294_967_295 / 3600) * 3_600_000;

/** Why `from`/`to` cannot be verified, or undefined when they can (the CLI and the API answer it as a usage error). */
export function verifyRangeProblem(from: Date, to: Date): string | undefined {
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) return 'from/to must be valid times';
  if (from >= to) return 'from must be before to';
  if (from.getTime() < VERIFIABLE_FROM_MS || to.getTime() > VERIFIABLE_TO_MS) {
    return 'from/to must lie between 1970-01-01T00:00:00Z and 2106-02-07T06:00:00Z (the range digests can cover)';
  }
  return undefined;
}

export async function verifyDigests(
  ch: ClickHouseClient,
  schema: SchemaConfig,
  options: VerifyOptions,
): Promise<VerifyReport> {
  const db = schema.database;
  const tenant = options.tenant ?? '';
  const fromS = Math.floor(options.from.getTime() / 3_600_000) * 3600;
  const toS = Math.ceil(options.to.getTime() / 3_600_000) * 3600;
  const range = { db, tenant, from_s: fromS, to_s: toS };
  const issues: VerifyIssue[] = [];
  const backfill: Backfill[] = [];
  const notes: string[] = [];
  let digestRecords = 0;
  let compared = 0;

  const issue = (i: Partial<VerifyIssue> & Pick<VerifyIssue, 'kind' | 'tenant' | 'statement'>) =>
    issues.push({ hour: null, table: null, row_id: null, chain: null, seq: null, batch_id: null, ...i });

  // ---- rows, hour by hour
  const allHours = await rows(ch, sqlFile('hoursInRange'), range, HourRow);
  // Rows older than the retention TTL are deleted by design; comparing them would report every one as deleted.
  const expiredBefore = (options.now?.() ?? new Date()).getTime() / 1000 - schema.retentionDays * 86_400;
  const hours = allHours.filter((h) => Number(h.hour_s) + 3600 > expiredBefore);
  if (hours.length < allHours.length) {
    notes.push(
      `${allHours.length - hours.length} hour(s) older than the ${schema.retentionDays}-day retention were not compared: their rows expire by TTL.`,
    );
  }
  for (const h of hours) {
    const hour = Number(h.hour_s);
    const hourIso = isoOf(hour);
    const records = await rows(ch, sqlFile('digestsOfHour'), { db, tenant: h.tenant, hour_s: hour }, DigestRow);
    digestRecords += records.length;
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
      compared += 1;
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
      if (copies.length === 0) {
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

  // ---- the chain
  const chainRows = await rows(ch, sqlFile('chainRecords'), range, ChainRow);
  const heads = await rows(ch, sqlFile('chainHeads'), { db, tenant }, HeadRow);
  const headSeq = new Map(heads.map((x) => [`${x.tenant}\u0000${x.chain}`, Number(x.head_seq)]));
  const bySeq = new Map<string, ChainRecord[]>();
  for (const r of chainRows) push2(bySeq, `${r.tenant}\u0000${r.chain}\u0000${r.seq_text}`, r);
  const get = (r: ChainRecord, seq: number) => bySeq.get(`${r.tenant}\u0000${r.chain}\u0000${seq}`) ?? [];
  const forks = new Set<string>();
  const checkedLinks = new Set<string>();
  const ourKeyId = options.key ? keyId(options.key) : '';
  for (const r of chainRows) {
    if (!r.in_range) continue;
    const seq = Number(r.seq_text);
    const hourIso = isoOf(Number(r.hour_text));
    const at = { tenant: r.tenant, hour: hourIso, chain: r.chain, seq, batch_id: r.batch_id };
    const here = get(r, seq);
    if (here.length > 1 && !forks.has(`${r.tenant}\u0000${r.chain}\u0000${seq}`)) {
      forks.add(`${r.tenant}\u0000${r.chain}\u0000${seq}`);
      issue({
        kind: 'chain_fork',
        ...at,
        statement: `${here.length} digest records share ${r.chain}#${seq}: two writers used one chain, or a record was forged`,
      });
    }
    const header: DigestHeader = {
      tenant: r.tenant,
      chain: r.chain,
      seq,
      hour: Number(r.hour_text),
      batch_id: r.batch_id,
      recorded_at_ms: Number(r.recorded_ms_text),
      backfill: r.backfill,
      canonical_version: r.canonical_version,
      row_count: r.row_count,
      rows_hash: r.rows_hash,
      previous_hash: r.previous_hash,
    };
    if (digestHash(header) !== r.digest_hash) {
      issue({
        kind: 'digest_altered',
        ...at,
        statement: `digest record ${r.chain}#${seq} was edited: its fields no longer hash to its digest_hash`,
      });
    }
    if (options.key) {
      if (!r.signature)
        issue({ kind: 'signature_missing', ...at, statement: `digest record ${r.chain}#${seq} is not signed` });
      else if (r.key_id !== ourKeyId || !signatureValid(options.key, r.digest_hash, r.signature)) {
        issue({
          kind: 'signature_invalid',
          ...at,
          statement:
            r.key_id !== ourKeyId
              ? `digest record ${r.chain}#${seq} is signed with another key (key id ${r.key_id})`
              : `digest record ${r.chain}#${seq} has a signature that does not verify`,
        });
      }
    }
    // Links: to the predecessor, and from the successor (a record edited and re-hashed breaks the latter).
    if (seq === 1) {
      if (r.previous_hash !== '')
        issue({ kind: 'chain_broken', ...at, statement: `the first record of chain ${r.chain} names a predecessor` });
    } else {
      const prev = get(r, seq - 1);
      if (prev.length === 0) {
        issue({
          kind: 'digest_missing',
          ...at,
          seq: seq - 1,
          batch_id: null,
          statement: `digest record ${r.chain}#${seq - 1} is missing: deleted`,
        });
      } else link(prev, [r]);
    }
    const next = get(r, seq + 1);
    const head = headSeq.get(`${r.tenant}\u0000${r.chain}`) ?? seq;
    if (next.length > 0) link([r], next);
    else if (seq < head) {
      issue({
        kind: 'digest_missing',
        ...at,
        seq: seq + 1,
        batch_id: null,
        statement: `digest record ${r.chain}#${seq + 1} is missing: deleted`,
      });
    }
    if (r.backfill) {
      backfill.push({
        tenant: r.tenant,
        hour: hourIso,
        chain: r.chain,
        seq,
        batch_id: r.batch_id,
        recorded_at: new Date(Number(r.recorded_ms_text)).toISOString(),
        rows: r.row_count,
        late_by_seconds: Math.max(0, Math.round(Number(r.recorded_ms_text) / 1000 - (Number(r.hour_text) + 3600))),
      });
    }
  }

  function link(prevs: ChainRecord[], nexts: ChainRecord[]): void {
    for (const p of prevs) {
      for (const n of nexts) {
        const k = `${n.tenant}\u0000${n.chain}\u0000${n.seq_text}\u0000${p.digest_hash}\u0000${n.previous_hash}`;
        if (checkedLinks.has(k)) continue;
        checkedLinks.add(k);
        if (n.previous_hash !== p.digest_hash) {
          issue({
            kind: 'chain_broken',
            tenant: n.tenant,
            hour: isoOf(Number(n.hour_text)),
            chain: n.chain,
            seq: Number(n.seq_text),
            batch_id: n.batch_id,
            statement: `digest record ${n.chain}#${n.seq_text} does not link to ${p.chain}#${p.seq_text}: one of them was altered or replaced`,
          });
        }
      }
    }
  }

  if (!options.key) {
    notes.push(
      'Signatures not checked (no TOOLTRAIL_DIGEST_KEY): changes made to the tables alone are detected, but someone able to rewrite both the tables and row_digests could rebuild an unsigned chain. Keep the chain heads below outside the database, or sign.',
    );
  }
  notes.push('A deleted tail of a chain (its newest records) is only visible against a chain head kept elsewhere.');

  const chains: ChainHead[] = heads.map((x) => ({
    tenant: x.tenant,
    chain: x.chain,
    seq: Number(x.head_seq),
    digest_hash: x.head_hash,
    recorded_at: new Date(Number(x.head_recorded_ms)).toISOString(),
  }));
  // One issue per (kind, place): a missing record is seen from both of its neighbours.
  const seen = new Set<string>();
  const unique = issues.filter((i) => {
    const k = JSON.stringify([i.kind, i.tenant, i.chain, i.seq, i.table, i.row_id, i.hour]);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  issues.length = 0;
  issues.push(...unique);
  const order = ISSUE_ORDER;
  issues.sort(
    (a, b) =>
      a.tenant.localeCompare(b.tenant) ||
      (a.hour ?? '').localeCompare(b.hour ?? '') ||
      order.indexOf(a.kind) - order.indexOf(b.kind),
  );
  return {
    ok: issues.length === 0,
    tenant: options.tenant ?? null,
    from: isoOf(fromS),
    to: isoOf(toS),
    signatures_checked: Boolean(options.key),
    checked: { hours: hours.length, digest_records: digestRecords, rows: compared },
    issues,
    backfill,
    chains,
    notes,
  };
}

const ISSUE_ORDER: readonly string[] = [
  'row_changed',
  'row_deleted',
  'row_added',
  'digest_altered',
  'digest_missing',
  'chain_broken',
  'chain_fork',
  'signature_invalid',
  'signature_missing',
];

function push2<V>(m: Map<string, V[]>, k: string, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}
