/**
 * Who gets paged for a finding: one resolution for every kind, most specific first, tenant-specific before the
 * every-tenant ('') assignment. No owner -> the alert carries no `owner` label and Alertmanager's escalation
 * route takes it.
 *   mutation findings:  the mutation tool's owner, else the agent's owner
 *   dangerous reads:    the read tool's owner
 *   warnings:           the (code, source) owner, else the owner of every code of that source (code `*`)
 *   audit log alerts:   the log's audit owner, else the owner of every log (subject `*`)
 */
import type { OwnerAssignment, SubjectKind } from './store.ts';

export interface ResolvedOwner {
  owner: string;
  team: string;
  /** When this owner was assigned (a persistent warning's reminder deadline counts from it). */
  assigned_at: string;
}

export class OwnerDirectory {
  private readonly byKey = new Map<string, OwnerAssignment>();

  constructor(assignments: readonly OwnerAssignment[]) {
    for (const a of assignments) this.byKey.set(key(a.tenant, a.kind, a.subject, a.source), a);
  }

  private lookup(tenant: string, kind: SubjectKind, subject: string, source = ''): ResolvedOwner | null {
    if (subject === '') return null;
    const a = this.byKey.get(key(tenant, kind, subject, source)) ?? this.byKey.get(key('', kind, subject, source));
    return a ? { owner: a.owner, team: a.team, assigned_at: a.assigned_at } : null;
  }

  forMutation(tenant: string, tool: string, agent: string): ResolvedOwner | null {
    return this.lookup(tenant, 'tool', tool) ?? this.lookup(tenant, 'agent', agent);
  }

  forTool(tenant: string, tool: string): ResolvedOwner | null {
    return this.lookup(tenant, 'tool', tool);
  }

  forAuditLog(tenant: string, log: string): ResolvedOwner | null {
    return this.lookup(tenant, 'audit', log) ?? this.lookup(tenant, 'audit', '*');
  }

  forWarning(tenant: string, code: string, source: string): ResolvedOwner | null {
    return this.lookup(tenant, 'warning', code, source) ?? this.lookup(tenant, 'warning', '*', source);
  }
}

function key(tenant: string, kind: SubjectKind, subject: string, source: string): string {
  return JSON.stringify([tenant, kind, subject, source]);
}
