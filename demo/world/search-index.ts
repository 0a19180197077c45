/**
 * The inventory's search index: fast, but stale (built from an older revision, so it misses the newest accounts and
 * still lists deleted ones), and shaped like many real search APIs. Only `shard` and `team` are indexed; `owner` is
 * applied to each page of scanned entries afterwards (as DynamoDB's FilterExpression does), so a page can be empty
 * while more pages exist. One query scans at most `resultWindow` entries (as Elasticsearch's max_result_window).
 */
import { z } from 'zod';
import type { Continuation, Reason, ToolResult } from '../../instrumentation/index.ts';
import { completeResult, partialResult, warning } from '../../instrumentation/index.ts';
import type { Role } from './access.ts';
import { canRead, visibilityOf } from './access.ts';
import type { AccountView } from './account-view.ts';
import { byId, toView } from './account-view.ts';
import type { WorldConfig } from './config.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { SERVICE_ACCOUNTS } from './inventory.ts';
import type { ServiceAccount } from './population.ts';

export const SEARCH_INDEX_SOURCE = 'inventory-search-index';
const API = 'search';

export const SearchArgsSchema = z.object({
  /** Space-separated terms: `owner:none`, `owner:<email>`, `shard:<name>`, `team:<name>`. */
  query: z.string(),
  page_size: z.number().int().positive().optional(),
  cursor: z.string().min(1).optional(),
});
export type SearchArgs = z.input<typeof SearchArgsSchema>;

export class QueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueryError';
  }
}

interface ParsedQuery {
  /** Normalized text, which a cursor is bound to. */
  text: string;
  indexed: (a: ServiceAccount) => boolean;
  postFilter: (a: ServiceAccount) => boolean;
}

export class SearchIndex {
  readonly #config: WorldConfig;
  readonly #entries: readonly ServiceAccount[];
  readonly #revision: number;
  readonly #indexedAt: string;

  /** `entries`: the accounts as they were at `revision`, when the index was last built. */
  constructor(config: WorldConfig, entries: readonly ServiceAccount[], revision: number, indexedAt: string) {
    this.#config = config;
    this.#entries = [...entries].sort(byId);
    this.#revision = revision;
    this.#indexedAt = indexedAt;
  }

  static snapshotToken(revision: number): string {
    return `idx-r${revision}`;
  }

  get snapshot(): string {
    return SearchIndex.snapshotToken(this.#revision);
  }

  search(input: SearchArgs, role: Role): ToolResult<AccountView> {
    const args = SearchArgsSchema.parse(input);
    const { resultWindow, maxPageSize, lagMinutes } = this.#config.search;
    const pageSize = args.page_size ?? maxPageSize;
    if (pageSize > maxPageSize) throw new RangeError(`page_size must be <= ${maxPageSize}`);
    const query = parseQuery(args.query);
    const state = args.cursor === undefined ? undefined : decodeCursor(args.cursor, API, query.text);
    if (state !== undefined && state.revision !== this.#revision) {
      throw new RangeError('the cursor belongs to another index revision');
    }

    const candidates = this.#entries.filter(query.indexed);
    const rest = state === undefined ? candidates : candidates.filter((a) => a.id > state.after);
    const scannedBefore = state?.scanned ?? 0;
    const scan = rest.slice(0, Math.min(pageSize, resultWindow - scannedBefore));
    const scanned = scannedBefore + scan.length;
    const remaining = rest.length - scan.length;
    const items = scan.filter((a) => canRead(role, a) && query.postFilter(a)).map(toView);

    const reasons: Reason[] = [];
    const last = scan.at(-1);
    let continuation: Continuation = { kind: 'none' };
    if (remaining > 0 && scanned >= resultWindow) {
      reasons.push({
        code: 'RESULT_LIMIT_REACHED',
        limit: resultWindow,
        message: `the query stopped after scanning ${resultWindow} index entries, ${remaining} not scanned`,
      });
      continuation = { kind: 'narrow_query', hint: 'add shard:<name> or team:<name> to the query' };
    } else if (remaining > 0 && last !== undefined) {
      reasons.push({ code: 'MORE_PAGES_AVAILABLE', message: 'more index entries to scan; follow next_cursor' });
      continuation = {
        kind: 'next_cursor',
        cursor: encodeCursor({ api: API, revision: this.#revision, query: query.text, after: last.id, scanned }),
      };
    }
    if (scan.some((a) => !canRead(role, a))) {
      reasons.push({
        code: 'VISIBILITY_RESTRICTED',
        source: 'inventory-acl',
        message: `some index entries are not readable by role ${role}`,
      });
    }
    const warnings = [
      warning(
        'STALE_INDEX',
        SEARCH_INDEX_SOURCE,
        `index ${this.snapshot} was built at ${this.#indexedAt}, ${lagMinutes} minutes behind the inventory: newer accounts are missing, deleted ones may still appear`,
      ),
    ];
    const scope = { resource: SERVICE_ACCOUNTS, visibility: visibilityOf(role), snapshot: this.snapshot };
    const [first, ...others] = reasons;
    if (first === undefined) return completeResult({ items, scope, warnings });
    return partialResult({ items, scope, warnings, reasons: [first, ...others], continuation });
  }
}

function parseQuery(text: string): ParsedQuery {
  const terms = text.trim().split(/\s+/).filter(Boolean).sort();
  const indexed: ((a: ServiceAccount) => boolean)[] = [];
  const post: ((a: ServiceAccount) => boolean)[] = [];
  for (const term of terms) {
    const [key, value] = term.split(':', 2);
    if (!value) throw new QueryError(`term "${term}" is not key:value`);
    if (key === 'shard') indexed.push((a) => a.shard === value);
    else if (key === 'team') indexed.push((a) => a.team === value);
    else if (key === 'owner') post.push(value === 'none' ? (a) => a.owner === null : (a) => a.owner === value);
    else throw new QueryError(`unknown search field "${key}" (known: owner, shard, team)`);
  }
  return {
    text: terms.join(' '),
    indexed: (a) => indexed.every((f) => f(a)),
    postFilter: (a) => post.every((f) => f(a)),
  };
}
