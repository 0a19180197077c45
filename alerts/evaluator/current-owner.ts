/**
 * A mutation finding an incremental run did not judge (nothing arrived in its session after its mutation started)
 * keeps its verdict, but not necessarily its owner: it is resolved anew on every run, so an owner change still
 * relabels it (reconcile then resolves the old alert and fires the new one).
 */
import type { Finding } from '../findings/finding.ts';
import { MUTATION_KINDS } from '../findings/finding.ts';
import type { OwnerDirectory } from '../owners/resolve.ts';

export function withCurrentOwner(f: Finding, owners: OwnerDirectory): Finding {
  if (!MUTATION_KINDS.has(f.kind)) return f;
  const resolved = owners.forMutation(f.tenant, f.tool ?? '', f.agent ?? '');
  const owner = resolved?.owner ?? null;
  const team = resolved && resolved.team !== '' ? resolved.team : null;
  return owner === f.owner && team === f.team ? f : { ...f, owner, team };
}
