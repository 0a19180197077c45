/**
 * An incremental run keeps the open mutation findings it did not judge (nothing arrived in their session after
 * their mutation started): their verdict cannot have changed, so they are carried as found again, with the
 * owner resolved anew so an owner change still relabels them. Reconcile then keeps them alive or expires them.
 */
import type { Finding } from '../findings/finding.ts';
import { MUTATION_KINDS } from '../findings/finding.ts';
import type { JudgedSessions } from '../findings/judged.ts';
import type { FindingRecord } from '../findings/store.ts';
import type { OwnerDirectory } from '../owners/resolve.ts';

export function unjudgedFindings(
  stored: ReadonlyMap<string, FindingRecord>,
  judged: JudgedSessions,
  owners: OwnerDirectory,
): Finding[] {
  const kept: Finding[] = [];
  for (const rec of stored.values()) {
    const f = rec.finding;
    if (rec.resolved_at !== null || !MUTATION_KINDS.has(f.kind) || judged.judged(f)) continue;
    const owner = owners.forMutation(f.tenant, f.tool ?? '', f.agent ?? '');
    kept.push({ ...f, owner: owner?.owner ?? null, team: owner && owner.team !== '' ? owner.team : null });
  }
  return kept;
}
