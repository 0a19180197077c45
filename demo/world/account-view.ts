/** What the APIs return for one service account (snake_case, as on the wire). */
import type { ServiceAccount } from './population.ts';

export interface AccountView {
  id: string;
  name: string;
  shard: string;
  team: string;
  owner: string | null;
  created_at: string;
}

export function toView(a: ServiceAccount): AccountView {
  return { id: a.id, name: a.name, shard: a.shard, team: a.team, owner: a.owner, created_at: a.createdAt };
}

/** Ids are fixed-width (`sa-1001`), so string order is creation order. */
export function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
