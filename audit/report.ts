/** The result of `tooltrail verify` (also its `--json` output and the HTTP API's response), as one zod schema. */
import { z } from 'zod';
import { LOG_ISSUE_KINDS } from './log/verify-log.ts';

export const ISSUE_KINDS = [
  /** A stored row no longer hashes to what the writer recorded. */
  'row_changed',
  /** A row the writer recorded is not in the table any more. */
  'row_deleted',
  /** A row (or an extra copy of one) that no digest covers: written after the fact, or never digested. */
  'row_added',
  /** A digest record whose fields no longer hash to its digest_hash, or whose row list was edited. */
  'digest_altered',
  /** Entries (or a digest record) hashed in a canonical version this tooltrail does not know: rows not compared. */
  'canonical_unknown',
  /** A digest record of the chain is missing (seq gap). */
  'digest_missing',
  /** A record does not link to its predecessor's hash. */
  'chain_broken',
  /** Two records share one (tenant, chain, seq): two writers used one chain, or a record was forged. */
  'chain_fork',
  /** Signed with a key that does not verify (or a different key). */
  'signature_invalid',
  /** Unsigned while verify was given a key. */
  'signature_missing',
  /** A deletion record verify cannot honour (unsigned or forged while checkpoint keys were given): its rows count as deleted. */
  'deletion_unverified',
] as const;

/** Why rows may be gone without an issue: the retention TTL, or a recorded deletion request. */
export const EXPIRY_POLICIES = ['retention', 'deletion_request'] as const;

const iso = z.string().describe('ISO 8601, UTC');

export const VerifyIssueSchema = z
  .object({
    kind: z.enum(ISSUE_KINDS),
    tenant: z.string(),
    hour: iso.nullable(),
    table: z.string().nullable(),
    row_id: z.string().nullable(),
    chain: z.string().nullable(),
    seq: z.number().int().nullable(),
    batch_id: z.string().nullable(),
    statement: z.string(),
  })
  .meta({ id: 'VerifyIssue' });

export const BackfillSchema = z
  .object({
    tenant: z.string(),
    hour: iso,
    chain: z.string(),
    seq: z.number().int(),
    batch_id: z.string(),
    recorded_at: iso,
    rows: z.number().int(),
    late_by_seconds: z.number().int().describe('seconds after the end of the hour'),
  })
  .meta({ id: 'Backfill' });

export const ChainHeadSchema = z
  .object({ tenant: z.string(), chain: z.string(), seq: z.number().int(), digest_hash: z.string(), recorded_at: iso })
  .meta({ id: 'ChainHead' });

export const ExpiredSchema = z
  .object({
    kind: z.literal('expired_by_policy'),
    policy: z.enum(EXPIRY_POLICIES),
    tenant: z.string(),
    hour: iso,
    rows: z.number().int().describe('digest entries of the hour no longer stored (a span’s warning rows count as one)'),
    expired_at: iso.describe('retention: the hour + the retention; deletion_request: when it was recorded'),
    deletion_id: z.string().nullable(),
    requested_by: z.string().nullable(),
    statement: z.string(),
  })
  .meta({ id: 'Expired' });

export const DeletionRecordSchema = z
  .object({
    id: z.string(),
    tenant: z.string(),
    from: iso,
    to: iso,
    requested_by: z.string(),
    reason: z.string(),
    recorded_at: iso,
    signed: z.boolean().describe('its signature verified with a trusted checkpoint key'),
    honoured: z.boolean().describe('false: not trusted, its rows count as deleted'),
  })
  .meta({ id: 'DeletionRecord' });

export const LogIssueSchema = z
  .object({
    kind: z.enum(LOG_ISSUE_KINDS),
    tenant: z.string(),
    log: z.string(),
    size: z.number().int().nullable().describe('tree size of the checkpoint concerned'),
    statement: z.string(),
  })
  .meta({ id: 'LogIssue' });

export const LogReportSchema = z
  .object({
    ok: z.boolean(),
    checkpoint_keys: z.number().int().describe('trusted checkpoint keys given; 0 = signatures could not be checked'),
    logs: z.array(
      z.object({
        tenant: z.string(),
        log: z.string(),
        leaves: z.number().int(),
        checkpoints: z.number().int(),
        latest: z.object({ size: z.number().int(), root_hash: z.string(), published_at: iso }).nullable(),
      }),
    ),
    issues: z.array(LogIssueSchema),
  })
  .meta({ id: 'LogReport' });

export const VerifyReportSchema = z
  .object({
    ok: z.boolean().describe('true when no issue was found'),
    tenant: z.string().nullable(),
    from: iso,
    to: iso,
    signatures_checked: z
      .boolean()
      .describe(
        "every signature the range holds was checked: the digest records' (TOOLTRAIL_DIGEST_KEY), the checkpoints' (trusted keys)",
      ),
    checked: z.object({
      hours: z.number().int(),
      digest_records: z.number().int(),
      rows: z.number().int().describe('digest entries compared (a span’s warning rows count as one)'),
      rows_hashed_here: z
        .number()
        .int()
        .describe(
          'of those, entries verify re-hashed from the rows’ values (version 1, or no match among the hashes ClickHouse computed in version 2)',
        ),
    }),
    issues: z.array(VerifyIssueSchema),
    backfill: z.array(BackfillSchema).describe('late arrivals: not failures, shown explicitly'),
    expired: z.array(ExpiredSchema).describe('rows gone by policy (retention, deletion requests): not failures'),
    deletions: z.array(DeletionRecordSchema).describe('the deletion requests recorded for the range'),
    chains: z.array(ChainHeadSchema).describe('chain heads: keep them elsewhere to detect a cut-off tail'),
    notes: z.array(z.string()),
    log: LogReportSchema.optional().describe('the Merkle log: checkpoints checked without re-walking rows'),
  })
  .meta({ id: 'VerifyReport', title: 'tooltrail verify report' });

export type VerifyIssue = z.infer<typeof VerifyIssueSchema>;
export type Backfill = z.infer<typeof BackfillSchema>;
export type Expired = z.infer<typeof ExpiredSchema>;
export type DeletionRecord = z.infer<typeof DeletionRecordSchema>;
export type ChainHead = z.infer<typeof ChainHeadSchema>;
export type VerifyReport = z.infer<typeof VerifyReportSchema>;

export function verifyReportJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(VerifyReportSchema, { target: 'draft-2020-12' }) as Record<string, unknown>;
}
