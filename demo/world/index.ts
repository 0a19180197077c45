/** The demo world's entry point: the in-process inventory an agent acts on. */
export type { Role } from './access.ts';
export { ROLES } from './access.ts';
export type { AccountView } from './account-view.ts';
export type { ShardConfig, WorldConfig, WorldConfigInput } from './config.ts';
export { DEFAULT_SEED, defaultWorldConfig, parseWorldConfig } from './config.ts';
export { InvalidCursorError } from './cursor.ts';
export type { DeleteOutcome, ListArgs } from './inventory.ts';
export { Inventory, SERVICE_ACCOUNTS } from './inventory.ts';
export type { LookupOwnersArgs, OwnerRecord } from './owners-directory.ts';
export type { Control, Ticket } from './paperwork.ts';
export type { Person, ServiceAccount } from './population.ts';
export type { SearchArgs } from './search-index.ts';
export { QueryError, SEARCH_INDEX_SOURCE, SearchIndex } from './search-index.ts';
export type { CensusAccount, World, WorldCensus } from './world.ts';
export { createWorld } from './world.ts';
