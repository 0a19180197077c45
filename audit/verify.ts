/**
 * `tooltrail verify`: recompute, from what the tables hold now, the hashes the writer recorded, hour by hour, and
 * walk the digest chain of the rows written before the Merkle log was the record.
 *
 * Rows: per (tenant, hour), every entry (table, id, hash) the log or a digest record holds is looked up among the
 * current rows of that hour: no such row -> row_deleted; a row whose hash differs -> row_changed; a row nothing
 * covers (or more copies than entries) -> row_added.
 * Chain (row_digests, no longer written): every record in range must hash to its digest_hash, link to its
 * predecessor and be linked to by its successor, with no seq missing or doubled; with a key, its signature must
 * verify. The log's own checks (checkpoints, tiles, leaves) are in log/verify-log.ts.
 * Late batches (recorded after their hour closed) are listed as backfill: explicit, not failures. Rows gone by
 * policy (past the retention, or erased by a recorded deletion request: expiry.ts) are listed as expired, not deleted.
 * This file picks the hours and assembles the report; verify-rows.ts and verify-chain.ts do the two checks.
 */
import { z } from 'zod';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import type { SchemaConfig } from '../schema/config.ts';
import { expiryPolicy } from './expiry.ts';
import type { NoteVerifier } from './log/note.ts';
import { ISSUE_KINDS, type VerifyIssue, type VerifyReport } from './report.ts';
import { sqlFile } from './sql.ts';
import { verifyChain } from './verify-chain.ts';
import { decimal, type IssueSink, isoOf, rows } from './verify-query.ts';
import { ExpiredRows, verifyHours } from './verify-rows.ts';

export interface VerifyOptions {
  tenant?: string;
  from: Date;
  to: Date;
  /** The HMAC key the writers sign with; without it signatures are not checked (and the report says so). */
  key?: string;
  /** Clock: rows of hours past the retention TTL may be gone (expired by policy, not deleted). */
  now?: () => Date;
  /** Trusted checkpoint keys: with any, only deletion requests signed by one are honoured. */
  verifiers?: readonly NoteVerifier[];
}

const HourRow = z.object({ tenant: z.string(), hour_s: decimal });

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
  const notes: string[] = [];

  const issue: IssueSink = (i) =>
    issues.push({ hour: null, table: null, row_id: null, chain: null, seq: null, batch_id: null, ...i });

  // ---- rows, hour by hour (verify-rows.ts), then the chain (verify-chain.ts)
  const hours = await rows(ch, sqlFile('hours_in_range'), range, HourRow);
  const now = options.now?.() ?? new Date();
  const policy = await expiryPolicy(ch, schema, { tenant, fromS, toS, now, verifiers: options.verifiers ?? [] });
  for (const i of policy.issues) issue(i);
  const expired = new ExpiredRows();
  const counts = await verifyHours(ch, db, hours, issue, { judge: policy.judge, expired });
  if (policy.deletions.some((d) => d.honoured && !d.signed))
    notes.push(
      'Deletion requests were honoured without checking a signature (no trusted checkpoint key): someone able to write audit_deletions could excuse a deletion. Give --key to honour signed requests only.',
    );
  const chained = await verifyChain(ch, range, options.key, issue);
  const { chains } = chained;
  const backfill = [
    ...chained.backfill,
    ...counts.backfill.map((b) => ({
      tenant: b.tenant,
      hour: isoOf(b.hour),
      chain: b.log,
      seq: b.first,
      batch_id: b.batchId,
      recorded_at: new Date(b.recordedMs).toISOString(),
      rows: b.rows,
      late_by_seconds: Math.max(0, Math.round(b.recordedMs / 1000 - (b.hour + 3600))),
    })),
  ];

  if (chains.length > 0) {
    if (!options.key)
      notes.push(
        'Digest records (rows written before the Merkle log was the record): signatures not checked (no TOOLTRAIL_DIGEST_KEY): changes made to the tables alone are detected, but someone able to rewrite both the tables and row_digests could rebuild an unsigned chain. Keep the chain heads below outside the database, or sign.',
      );
    notes.push('A deleted tail of a chain (its newest records) is only visible against a chain head kept elsewhere.');
  }

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
  // Within an hour, issues in the order ISSUE_KINDS lists them (the row's fate first, then the chain's).
  const order: readonly string[] = ISSUE_KINDS;
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
    checked: {
      hours: hours.length,
      digest_records: counts.digestRecords,
      rows: counts.rows,
      rows_hashed_here: counts.hashedHere,
    },
    issues,
    backfill,
    expired: expired.list(),
    deletions: policy.deletions,
    chains,
    notes,
  };
}
