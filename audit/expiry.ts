/**
 * The policies under which recorded rows may be gone, for verify: the retention TTL (a row of hour H may expire
 * from H + retention, judged by the hour because digests and leaves record the hour, not the instant) and the
 * deletion requests recorded in audit_deletions (trusted per deletions.ts). Anything else missing is deleted.
 */
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import type { SchemaConfig } from '../schema/config.ts';
import { type Deletion, deletionsOverlapping, deletionTrust, deletionView } from './deletions.ts';
import type { NoteVerifier } from './log/note.ts';
import type { DeletionRecord, VerifyIssue } from './report.ts';
import { isoOf } from './verify-query.ts';
import type { ExpiryJudge } from './verify-rows.ts';

export interface ExpiryPolicy {
  judge: ExpiryJudge;
  deletions: DeletionRecord[];
  issues: (Partial<VerifyIssue> & Pick<VerifyIssue, 'kind' | 'tenant' | 'statement'>)[];
}

export async function expiryPolicy(
  ch: ClickHouseClient,
  schema: SchemaConfig,
  o: { tenant: string; fromS: number; toS: number; now: Date; verifiers: readonly NoteVerifier[] },
): Promise<ExpiryPolicy> {
  const retentionS = schema.retentionDays * 86_400;
  const nowS = o.now.getTime() / 1000;
  const honoured: Deletion[] = [];
  const deletions: DeletionRecord[] = [];
  const issues: ExpiryPolicy['issues'] = [];
  for (const d of await deletionsOverlapping(ch, schema.database, o.tenant, o.fromS, o.toS)) {
    const trust = deletionTrust(d, o.verifiers);
    // A request recorded after now (a skewed clock, a forged date) has not erased anything yet.
    const inForce = trust.honoured && d.recordedAt <= o.now;
    if (inForce) honoured.push(d);
    else
      issues.push({
        kind: 'deletion_unverified',
        tenant: d.tenant,
        hour: d.from.toISOString(),
        table: 'audit_deletions',
        row_id: d.id,
        statement: `deletion request ${d.id} (${d.from.toISOString()} -> ${d.to.toISOString()}, by ${d.requestedBy}) is not honoured: ${
          trust.honoured ? 'it is dated after now' : trust.why
        }; the rows it names count as deleted`,
      });
    deletions.push({
      ...deletionView(d),
      signed: trust.honoured && trust.signed,
      honoured: inForce,
    });
  }
  const judge: ExpiryJudge = (tenant, hourS) => {
    const d = honoured.find(
      (x) => x.tenant === tenant && x.from.getTime() / 1000 <= hourS && hourS + 3600 <= x.to.getTime() / 1000,
    );
    if (d)
      return {
        kind: 'expired_by_policy',
        policy: 'deletion_request',
        tenant,
        hour: isoOf(hourS),
        expired_at: d.recordedAt.toISOString(),
        deletion_id: d.id,
        requested_by: d.requestedBy,
      };
    if (nowS >= hourS + retentionS)
      return {
        kind: 'expired_by_policy',
        policy: 'retention',
        tenant,
        hour: isoOf(hourS),
        expired_at: isoOf(hourS + retentionS),
        deletion_id: null,
        requested_by: null,
      };
    return undefined;
  };
  return { judge, deletions, issues };
}
