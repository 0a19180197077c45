/**
 * The demo world: an inventory of service accounts over several shards, its stale search index, an owners
 * directory that says nothing about completeness, and the ticket and control the agent updates. In-process,
 * deterministic for a seed, no network, no timers. `census()` is the ground truth the agent never sees.
 */
import type { Role } from './access.ts';
import type { WorldConfig, WorldConfigInput } from './config.ts';
import { parseWorldConfig } from './config.ts';
import { Inventory } from './inventory.ts';
import { OwnersDirectory } from './owners-directory.ts';
import type { Control, Ticket } from './paperwork.ts';
import { Paperwork } from './paperwork.ts';
import type { Person, ServiceAccount } from './population.ts';
import { generatePopulation } from './population.ts';
import { SearchIndex } from './search-index.ts';

export interface CensusAccount {
  id: string;
  name: string;
  shard: string;
  owner: string | null;
  /** Hidden from roles that may not read the security team's accounts. */
  restricted: boolean;
  /** Known to the (stale) search index. */
  indexed: boolean;
}

export interface WorldCensus {
  revision: number;
  accounts: number;
  /** Accounts with no owner that still exist. */
  unowned: CensusAccount[];
  /** Accounts deleted so far, with the owner they had. */
  deleted: CensusAccount[];
  ticket: Ticket;
  control: Control;
}

export interface World {
  readonly config: WorldConfig;
  readonly people: readonly Person[];
  readonly inventory: Inventory;
  readonly search: SearchIndex;
  readonly directory: OwnersDirectory;
  readonly paperwork: Paperwork;
  /** Delete through the inventory and remember what was deleted, for the census. */
  deleteAccounts(ids: readonly string[], role: Role): ReturnType<Inventory['delete']>;
  census(): WorldCensus;
}

const MINUTE_MS = 60_000;

export function createWorld(input: WorldConfigInput = {}): World {
  const config = parseWorldConfig(input);
  const { people, accounts } = generatePopulation(config);
  const indexedAt = new Date(Date.parse(config.now) - config.search.lagMinutes * MINUTE_MS).toISOString();
  const indexedIds = new Set(accounts.filter((a) => a.createdAt <= indexedAt).map((a) => a.id));
  // One revision per account created: the index was built before the fresh ones.
  const revision = 1800 + (config.seed % 100);
  const inventory = new Inventory(config, accounts, revision);
  const search = new SearchIndex(
    config,
    accounts.filter((a) => indexedIds.has(a.id)),
    revision - (accounts.length - indexedIds.size),
    indexedAt,
  );
  const directory = new OwnersDirectory(config, inventory, people);
  const paperwork = new Paperwork(config.ticketId, config.controlId);
  const deleted: CensusAccount[] = [];
  const describe = (a: ServiceAccount): CensusAccount => ({
    id: a.id,
    name: a.name,
    shard: a.shard,
    owner: a.owner,
    restricted: a.restricted,
    indexed: indexedIds.has(a.id),
  });

  return {
    config,
    people,
    inventory,
    search,
    directory,
    paperwork,
    deleteAccounts(ids, role) {
      const outcome = inventory.delete(ids, role);
      deleted.push(...outcome.deleted.map(describe));
      return outcome;
    },
    census() {
      const current = inventory.accounts();
      return {
        revision: inventory.revision,
        accounts: current.length,
        unowned: current.filter((a) => a.owner === null).map(describe),
        deleted: [...deleted],
        ticket: paperwork.ticket(config.ticketId),
        control: paperwork.control(config.controlId),
      };
    },
  };
}
