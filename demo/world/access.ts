/** The roles an agent can hold, and what each may read: the visibility that `complete` is scoped to. */
import type { ServiceAccount } from './population.ts';

export const ROLES = ['cleanup-bot', 'cleanup-admin'] as const;
export type Role = (typeof ROLES)[number];

interface RoleGrant {
  /** May read (and delete) the security team's restricted accounts. */
  readsRestricted: boolean;
  /** `scope.visibility` of every read made with this role. */
  visibility: string;
}

const GRANTS: Record<Role, RoleGrant> = {
  'cleanup-bot': { readsRestricted: false, visibility: 'service accounts readable by role cleanup-bot' },
  'cleanup-admin': { readsRestricted: true, visibility: 'all service accounts (role cleanup-admin)' },
};

export function canRead(role: Role, account: ServiceAccount): boolean {
  return !account.restricted || GRANTS[role].readsRestricted;
}

export function visibilityOf(role: Role): string {
  return GRANTS[role].visibility;
}
