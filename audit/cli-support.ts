/** What the `verify` command needs beyond the verifier: time options, the key from the environment, the text view. */
import { digestConfigFromEnv } from './config.ts';
import type { VerifyReport } from './report.ts';

/** `now`, a relative time (`-24h`, `-30m`, `-7d`), or an ISO 8601 date/time. */
export function parseTimeOption(value: string, now: Date): Date {
  if (value === 'now') return now;
  const rel = /^-(\d+)([mhd])$/.exec(value);
  if (rel) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[rel[2] as 'm' | 'h' | 'd'];
    return new Date(now.getTime() - Number(rel[1]) * unit);
  }
  if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
    const d = new Date(
      /[T ]/.test(value) && !/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? `${value.replace(' ', 'T')}Z` : value,
    );
    if (!Number.isNaN(d.getTime())) return d;
  }
  throw new Error(
    `invalid time ${JSON.stringify(value)}: use now, -24h / -30m / -7d, or ISO 8601 (UTC unless it says otherwise)`,
  );
}

/** The signing key verify checks against, from TOOLTRAIL_DIGEST_KEY. */
export function createVerifyOptions(env: NodeJS.ProcessEnv): { key?: string } {
  const c = digestConfigFromEnv(env);
  return c.key ? { key: c.key } : {};
}

export function renderVerifyText(r: VerifyReport): string {
  const out: string[] = [];
  out.push(
    `${r.ok ? 'VERIFIED' : 'FAILED'}: ${r.tenant ? `tenant ${r.tenant}` : 'all tenants'}, ${r.from} -> ${r.to}; ${r.checked.hours} hour(s), ${r.checked.digest_records} digest record(s), ${r.checked.rows} row(s) compared${r.checked.rows_hashed_here > 0 ? ` (${r.checked.rows_hashed_here} re-hashed here)` : ''}; signatures ${r.signatures_checked ? 'checked' : 'NOT checked'}`,
  );
  if (r.issues.length) {
    out.push('', `${r.issues.length} issue(s):`);
    for (const i of r.issues) {
      const where = [i.tenant, i.hour, i.table, i.row_id].filter(Boolean).join(' ');
      out.push(`  ${i.kind.padEnd(17)} ${where}: ${i.statement}`);
    }
  }
  if (r.backfill.length) {
    out.push('', `${r.backfill.length} backfill batch(es) (arrived after their hour closed; not a failure):`);
    for (const b of r.backfill) {
      out.push(
        `  ${b.tenant} hour ${b.hour}: ${b.rows} row(s) recorded ${b.recorded_at} (${b.late_by_seconds}s late), ${b.chain}#${b.seq} batch ${b.batch_id}`,
      );
    }
  }
  if (r.expired.length) {
    out.push('', `${r.expired.length} hour(s) with rows expired by policy (not a failure):`);
    for (const e of r.expired) out.push(`  ${e.statement}`);
  }
  if (r.deletions.length) {
    out.push('', `${r.deletions.length} deletion request(s) recorded for the range:`);
    for (const d of r.deletions)
      out.push(
        `  ${d.id} ${d.tenant} ${d.from} -> ${d.to} by ${d.requested_by} at ${d.recorded_at} (${JSON.stringify(d.reason)}): ${
          d.honoured ? (d.signed ? 'honoured, signature verified' : 'honoured, signature NOT checked') : 'NOT honoured'
        }`,
      );
  }
  if (r.chains.length) {
    out.push('', 'Chain heads (keep these outside the database):');
    for (const c of r.chains) out.push(`  ${c.tenant} ${c.chain}#${c.seq} ${c.digest_hash} at ${c.recorded_at}`);
  }
  for (const n of r.notes) out.push('', `Note: ${n}`);
  return out.join('\n');
}
