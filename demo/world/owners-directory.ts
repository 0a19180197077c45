/**
 * The owners directory: a legacy HR-synced lookup that answers with a bare JSON array and says nothing about
 * completeness. It answers for at most `maxBatch` account ids per call and drops the rest without a word, and an
 * account it has no owner for is simply absent. Its empty answer looks like "nobody owns these"; it proves nothing.
 */
import type { WorldConfig } from './config.ts';
import type { Inventory } from './inventory.ts';
import type { Person } from './population.ts';

export interface OwnerRecord {
  account_id: string;
  owner: string;
  owner_name: string;
  team: string;
}

export interface LookupOwnersArgs {
  account_ids: string[];
}

export class OwnersDirectory {
  readonly #config: WorldConfig;
  readonly #inventory: Inventory;
  readonly #people: ReadonlyMap<string, Person>;

  constructor(config: WorldConfig, inventory: Inventory, people: readonly Person[]) {
    this.#config = config;
    this.#inventory = inventory;
    this.#people = new Map(people.map((p) => [p.email, p]));
  }

  lookup(args: LookupOwnersArgs): OwnerRecord[] {
    const asked = new Set(args.account_ids.slice(0, this.#config.directory.maxBatch));
    const out: OwnerRecord[] = [];
    for (const a of this.#inventory.accounts()) {
      if (!asked.has(a.id) || a.owner === null) continue;
      const person = this.#people.get(a.owner);
      out.push({ account_id: a.id, owner: a.owner, owner_name: person?.name ?? a.owner, team: person?.team ?? a.team });
    }
    return out;
  }
}
