/**
 * `tooltrail verify` over a range: the Merkle log's checkpoints (always; no row is read), and, unless told not to,
 * the hourly row walk that names the rows changed, deleted or added (verify.ts). The report is one VerifyReport.
 */
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import type { SchemaConfig } from '../../schema/config.ts';
import type { VerifyReport } from '../report.ts';
import { type VerifyOptions, verifyDigests } from '../verify.ts';
import type { NoteVerifier } from './note.ts';
import { LogStore } from './store.ts';
import { verifyLogs } from './verify-log.ts';

export interface RangeVerifyOptions extends VerifyOptions {
  /** Re-walk the rows of the range (names changed/deleted/added rows); false = the log's checkpoints only. */
  rows: boolean;
  /** Trusted checkpoint keys. */
  verifiers: readonly NoteVerifier[];
}

export async function verifyRange(
  ch: ClickHouseClient,
  schema: SchemaConfig,
  o: RangeVerifyOptions,
): Promise<VerifyReport> {
  const base: VerifyReport = o.rows
    ? await verifyDigests(ch, schema, o)
    : {
        ok: true,
        tenant: o.tenant ?? null,
        from: o.from.toISOString(),
        to: o.to.toISOString(),
        signatures_checked: false,
        checked: { hours: 0, digest_records: 0, rows: 0, rows_hashed_here: 0 },
        issues: [],
        backfill: [],
        expired: [],
        deletions: [],
        chains: [],
        notes: ['Rows were not re-walked (--no-rows): only the Merkle log was checked.'],
      };
  const log = await verifyLogs(new LogStore(ch, schema.database), {
    ...(o.tenant ? { tenant: o.tenant } : {}),
    verifiers: o.verifiers,
  });
  const notes = [...base.notes];
  if (o.verifiers.length === 0 && log.logs.some((l) => l.checkpoints > 0))
    notes.push(
      'No trusted checkpoint key (--key or TOOLTRAIL_CHECKPOINT_VERIFIERS): every checkpoint is reported as unverifiable.',
    );
  if (log.logs.length === 0)
    notes.push('No Merkle log holds this tenant yet (written before the log, or with TOOLTRAIL_AUDIT_LOG=false).');
  const logOk = log.issues.length === 0;
  // Checked when every kind of signature the range holds was: the old digest records' (HMAC key) if any, the
  // checkpoints' (trusted keys) if any.
  const checkpointed = log.logs.some((l) => l.checkpoints > 0);
  const signaturesChecked =
    (base.chains.length === 0 || base.signatures_checked) && (!checkpointed || o.verifiers.length > 0);
  return {
    ...base,
    signatures_checked: signaturesChecked && (base.chains.length > 0 || checkpointed),
    ok: base.ok && logOk,
    notes,
    log: { ok: logOk, checkpoint_keys: o.verifiers.length, logs: log.logs, issues: log.issues },
  };
}
