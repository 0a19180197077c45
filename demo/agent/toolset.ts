/**
 * The cleanup agent's tools: the demo world's APIs wrapped as tooltrail read and mutation tools, bound to the
 * role the agent holds. The `*_all_*` reads follow every page with the library's all-pages collector, which
 * says `complete` only after the last page of one snapshot, and names its own limits otherwise.
 */
import type { FieldPolicies, ReadTool, ToolDefinition, ToolResult, Tooltrail } from '../../instrumentation/index.ts';
import { collectAllPages, completeResult } from '../../instrumentation/index.ts';
import type { AccountView, ListArgs, OwnerRecord, Role, SearchArgs, Ticket, World } from '../world/index.ts';
import { SERVICE_ACCOUNTS } from '../world/index.ts';
import type { GuardMode, Mutator } from './mutator.ts';
import { mutationTool } from './mutator.ts';

export type { GuardMode };

export interface ListAllArgs {
  owner: 'none' | 'any';
  page_size: number;
  deadline_ms?: number;
}

export interface SearchAllArgs {
  query: string;
  page_size: number;
}

export interface CleanupTools {
  getTicket: ReadTool<{ ticket_id: string }, never, ToolResult<never>>;
  searchServiceAccounts: ReadTool<SearchArgs, AccountView, ToolResult<AccountView>>;
  searchAllServiceAccounts: ReadTool<SearchAllArgs, AccountView, ToolResult<AccountView>>;
  listServiceAccounts: ReadTool<ListArgs, AccountView, ToolResult<AccountView>>;
  listAllServiceAccounts: ReadTool<ListAllArgs, AccountView, ToolResult<AccountView>>;
  /** Says nothing about completeness: recorded as unknown. */
  lookupOwners: ReadTool<{ account_ids: string[] }, OwnerRecord, OwnerRecord[]>;
  deleteServiceAccounts: Mutator<{ ids: string[] }>;
  markControlCompliant: Mutator<{ control_id: string; note: string }>;
  closeTicket: Mutator<{ ticket_id: string; resolution: string }>;
}

/** Pages the all-pages reads follow at most, and how long they may take (the collector's own limits). */
export const COLLECTOR_BUDGET = { maxPages: 20, timeBudgetMs: 10_000 } as const;

/** Only non-sensitive arguments are recorded on spans (ids, queries, sizes), so a reconstruction can show them. */
function definition<T = unknown>(name: string, args: readonly string[]): ToolDefinition<T> {
  const record: FieldPolicies = Object.fromEntries(args.map((a) => [a, 'raw' as const]));
  return { name, type: 'function', record: { arguments: record } };
}

export function createCleanupTools(tooltrail: Tooltrail, world: World, role: Role, guard: GuardMode): CleanupTools {
  const mutation = <A, V>(def: ToolDefinition, fn: (args: A) => V): Mutator<A> =>
    mutationTool(tooltrail, def, fn, guard);

  return {
    getTicket: tooltrail.readTool(definition('get_ticket', ['ticket_id']), (args: { ticket_id: string }) =>
      completeResult<never>({ data: world.paperwork.ticket(args.ticket_id), scope: { resource: 'tickets' } }),
    ),
    searchServiceAccounts: tooltrail.readTool(
      definition('search_service_accounts', ['query', 'page_size', 'cursor']),
      (args: SearchArgs) => world.search.search(args, role),
    ),
    searchAllServiceAccounts: tooltrail.readTool(
      definition('search_all_service_accounts', ['query', 'page_size']),
      (args: SearchAllArgs) =>
        collectAllPages<AccountView>({
          fetchPage: async ({ cursor, pageSize }) =>
            world.search.search({ query: args.query, page_size: pageSize, ...(cursor ? { cursor } : {}) }, role),
          pageSize: args.page_size,
          itemId: (a) => a.id,
          budget: COLLECTOR_BUDGET,
        }),
    ),
    listServiceAccounts: tooltrail.readTool(
      definition('list_service_accounts', ['owner', 'page_size', 'cursor', 'deadline_ms']),
      (args: ListArgs) => world.inventory.list(args, role),
    ),
    listAllServiceAccounts: tooltrail.readTool(
      definition('list_all_service_accounts', ['owner', 'page_size', 'deadline_ms']),
      (args: ListAllArgs) =>
        collectAllPages<AccountView>({
          fetchPage: async ({ cursor, pageSize }) =>
            world.inventory.list(
              {
                owner: args.owner,
                page_size: pageSize,
                ...(cursor ? { cursor } : {}),
                ...(args.deadline_ms ? { deadline_ms: args.deadline_ms } : {}),
              },
              role,
            ),
          pageSize: args.page_size,
          itemId: (a) => a.id,
          budget: COLLECTOR_BUDGET,
        }),
    ),
    lookupOwners: tooltrail.readTool(
      { ...definition('lookup_owners', ['account_ids']), itemId: (r: OwnerRecord) => r.account_id },
      (args: { account_ids: string[] }) => world.directory.lookup(args),
    ),
    deleteServiceAccounts: mutation(definition('delete_service_accounts', ['ids']), (args: { ids: string[] }) => {
      const out = world.deleteAccounts(args.ids, role);
      return completeResult({
        items: out.deleted.map((a) => ({ id: a.id })),
        data: { not_found: out.notFound },
        scope: { resource: SERVICE_ACCOUNTS },
      });
    }),
    markControlCompliant: mutation(
      definition('mark_control_compliant', ['control_id']),
      (args: { control_id: string; note: string }) =>
        completeResult({ data: world.paperwork.markCompliant(args.control_id, args.note) }),
    ),
    closeTicket: mutation(
      definition('close_ticket', ['ticket_id']),
      (args: { ticket_id: string; resolution: string }): ToolResult<Ticket> =>
        completeResult({ data: world.paperwork.closeTicket(args.ticket_id, args.resolution) }),
    ),
  };
}
