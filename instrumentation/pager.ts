/**
 * The all-pages collector: follows the continuation of a paginated source within its own budget (pages, items,
 * time; the deadline is an input) and states what it covered. It says `complete: true` only when the last page
 * said so, every page carried the same snapshot (when more than one page was read), and no page reported a
 * reason. Otherwise it names the reason, its own limits first: CLIENT_LIMIT_REACHED is the case teams forget.
 * It never restarts after CURSOR_EXPIRED and never merges pages of two snapshots.
 */
import { z } from 'zod';
import type { Continuation, Reason, ReasonCode, Scope, ToolResult, Warning } from '../contract/index.ts';
import type { ListFunction, ListPagesOptions, PageAdapter } from './pager-adapter.ts';
import { fromListFunction, readThrough } from './pager-adapter.ts';
import { interpretToolResult } from './results.ts';

export interface PageRequest {
  /** undefined for the first page. */
  cursor: string | undefined;
  pageSize: number;
  /** 0 for the first page. */
  pageIndex: number;
  /** Aborted at the deadline or when the caller aborts. */
  signal: AbortSignal;
}

/** Time source and timer, injectable so that tests never sleep. */
export interface PagerClock {
  now(): number;
  /** Runs `fn` after `ms`; returns a cancel function. */
  setTimeout(fn: () => void, ms: number): () => void;
}

export const systemClock: PagerClock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  },
};

/** A source failure with a contract reason (e.g. CURSOR_EXPIRED, RATE_LIMITED, VISIBILITY_RESTRICTED). */
export class SourceError extends Error {
  readonly code: ReasonCode;
  readonly source: string | undefined;
  readonly continuation: Continuation | undefined;

  constructor(code: ReasonCode, message: string, options: { source?: string; continuation?: Continuation } = {}) {
    super(message);
    this.name = 'SourceError';
    this.code = code;
    this.source = options.source;
    this.continuation = options.continuation;
  }
}

export interface PagerBudget {
  /** Pages fetched at most. */
  maxPages: number;
  /** Items kept at most. */
  maxItems: number;
  /** Time allowed from the start, in ms (ignored when `deadline` is given). */
  timeBudgetMs: number;
  /** Absolute deadline on the clock's time line (epoch ms with the system clock). */
  deadline?: number;
}

export const DEFAULT_MAX_PAGES = 100;
export const DEFAULT_MAX_ITEMS = 10_000;
export const DEFAULT_TIME_BUDGET_MS = 30_000;

export function defaultPagerBudget(): PagerBudget {
  return { maxPages: DEFAULT_MAX_PAGES, maxItems: DEFAULT_MAX_ITEMS, timeBudgetMs: DEFAULT_TIME_BUDGET_MS };
}

export interface CollectAllPagesOptions<T> {
  /** Fetch one page; return a contract envelope (or throw, ideally a SourceError). */
  fetchPage: (request: PageRequest) => Promise<unknown>;
  pageSize: number;
  budget?: Partial<PagerBudget>;
  /**
   * Without a snapshot token, items can move between pages (inserts, deletes, reorders) unseen, so a
   * multi-page read cannot be complete. Set false only for sources whose pages cannot shift.
   */
  requireSnapshot?: boolean;
  /** Item identity, to notice an item returned twice (a sign the collection shifted). */
  itemId?: (item: T) => string | number | undefined;
  clock?: PagerClock;
  signal?: AbortSignal;
  /** Reads each raw page (and recognized API errors) into the contract: `fetchPage` may then return raw responses. */
  adapter?: PageAdapter;
}

const NONE: Continuation = { kind: 'none' };
const MORE = 'MORE_PAGES_AVAILABLE';

class DeadlineReached extends Error {}

const PagerSettingsSchema = z.object({
  pageSize: z.number().int().positive(),
  budget: z.object({
    maxPages: z.number().int().positive(),
    maxItems: z.number().int().positive(),
    timeBudgetMs: z.number().positive(),
    deadline: z.number().finite().optional(),
  }),
});

export function collectAllPages<T>(options: CollectAllPagesOptions<T>): Promise<ToolResult<T>>;
export function collectAllPages<T, P>(list: ListFunction<P>, options: ListPagesOptions<T, P>): Promise<ToolResult<T>>;
export function collectAllPages<T, P>(
  first: CollectAllPagesOptions<T> | ListFunction<P>,
  listOptions?: ListPagesOptions<T, P>,
): Promise<ToolResult<T>> {
  const options = typeof first === 'function' ? fromListFunction(first, listOptions as ListPagesOptions<T, P>) : first;
  if (!options.adapter) return collect(options);
  return collect({ ...options, fetchPage: readThrough(options.adapter, options.fetchPage) });
}

async function collect<T>(options: CollectAllPagesOptions<T>): Promise<ToolResult<T>> {
  const settings = PagerSettingsSchema.safeParse({
    pageSize: options.pageSize,
    budget: { ...defaultPagerBudget(), ...options.budget },
  });
  if (!settings.success) {
    // A wrong budget is a programming error: it fails loudly rather than turning into a silent limit.
    const problems = settings.error.issues.map((i) => `collectAllPages.${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid pager options: ${problems.join('; ')}`);
  }
  const { budget } = settings.data;
  const clock = options.clock ?? systemClock;
  const requireSnapshot = options.requireSnapshot ?? true;
  const start = clock.now();
  const deadline = budget.deadline ?? start + budget.timeBudgetMs;

  const items: T[] = [];
  const reasons: Reason[] = [];
  const warnings: Warning[] = [];
  const seenIds = new Set<string>();
  const seenCursors = new Set<string>();
  let scope: Scope | undefined;
  let cursor: string | undefined;
  let pages = 0;
  let shortPages = 0;
  let finished = false;
  let continuation: Continuation = NONE;
  let failure: { type: string; message: string } | undefined;

  const addReason = (r: Reason) => {
    if (!reasons.some((x) => x.code === r.code && x.source === r.source)) reasons.push(r);
  };
  const clientLimit = (message: string, limit?: number) =>
    addReason({ code: 'CLIENT_LIMIT_REACHED', message, ...(limit !== undefined ? { limit } : {}) });

  const abort = new AbortController();
  let deadlineHit = false;
  const cancelTimer = clock.setTimeout(
    () => {
      deadlineHit = true;
      abort.abort(new DeadlineReached('deadline reached'));
    },
    Math.max(0, deadline - start),
  );
  const onCallerAbort = () => abort.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });

  try {
    for (;;) {
      if (pages >= budget.maxPages) {
        clientLimit(`stopped after the page budget of ${budget.maxPages} pages`, budget.maxPages);
        if (cursor !== undefined) continuation = { kind: 'next_cursor', cursor };
        break;
      }
      if (items.length >= budget.maxItems) {
        clientLimit(`stopped after the item budget of ${budget.maxItems} items`, budget.maxItems);
        if (cursor !== undefined) continuation = { kind: 'next_cursor', cursor };
        break;
      }
      if (deadlineHit || clock.now() >= deadline) {
        clientLimit(`stopped at the deadline after ${pages} pages and ${items.length} items`);
        continuation = { kind: 'retry_with_deadline' };
        break;
      }
      if (abort.signal.aborted) {
        clientLimit(`aborted by the caller after ${pages} pages`);
        break;
      }

      let raw: unknown;
      try {
        raw = await raceAbort(
          options.fetchPage({ cursor, pageSize: options.pageSize, pageIndex: pages, signal: abort.signal }),
          abort.signal,
        );
      } catch (err) {
        if (deadlineHit) {
          clientLimit(`stopped at the deadline while fetching page ${pages + 1}`);
          continuation = { kind: 'retry_with_deadline' };
        } else if (options.signal?.aborted) {
          clientLimit(`aborted by the caller while fetching page ${pages + 1}`);
        } else if (err instanceof SourceError) {
          addReason({ code: err.code, message: err.message, ...(err.source ? { source: err.source } : {}) });
          continuation = err.code === 'CURSOR_EXPIRED' ? NONE : (err.continuation ?? NONE);
          failure = { type: err.name, message: err.message };
        } else {
          const message = err instanceof Error ? err.message : String(err);
          addReason({ code: 'SOURCE_UNAVAILABLE', message: `page ${pages + 1} failed: ${message}` });
          failure = { type: err instanceof Error ? err.name : '_OTHER', message };
        }
        break;
      }
      pages += 1;

      const { result: page, recognized } = interpretToolResult<T>(raw);
      const expired = page.completeness.reasons.some((r) => r.code === 'CURSOR_EXPIRED');
      if (page.status === 'error' || expired) {
        // No usable data on this page (and an expired cursor may answer from anywhere): only its reasons count.
        for (const r of page.completeness.reasons) addReason(r);
        if (page.completeness.reasons.length === 0) {
          addReason({
            code: 'SOURCE_UNAVAILABLE',
            message: `page ${pages}: ${page.status === 'error' ? page.error.message : ''}`,
          });
        }
        if (page.status === 'error') failure = page.error;
        // Restarting after an expired cursor is a new scan; only the caller may choose it.
        continuation = expired ? NONE : page.completeness.continuation;
        if (pages === 1) scope = page.scope;
        break;
      }
      const snapshot = page.scope?.snapshot;
      // A page matters to the snapshot if it brings items, follows on, or claims the end; an empty page that only
      // says "retry later" or "narrow the query" (often without a scope) does not.
      const bearing =
        (page.items?.length ?? 0) > 0 ||
        page.completeness.complete ||
        page.completeness.continuation.kind === 'next_cursor';
      if (pages === 1) {
        scope = page.scope;
      } else if (bearing && snapshot !== scope?.snapshot) {
        // Items of another snapshot are another attempt: never merged into this one.
        addReason({
          code: 'COMPLETENESS_UNKNOWN',
          message: `page ${pages} came from snapshot ${snapshot ?? '(none)'}, not ${scope?.snapshot ?? '(none)'}; the scan was not merged`,
        });
        break;
      }
      for (const w of page.warnings) {
        if (!warnings.some((x) => x.code === w.code && x.source === w.source)) warnings.push(w);
      }

      const pageItems = page.items ?? [];
      let cut = false;
      for (const item of pageItems) {
        if (items.length >= budget.maxItems) {
          cut = true;
          break;
        }
        const id = safeId(options.itemId, item);
        if (id !== undefined) {
          if (seenIds.has(id)) {
            addReason({
              code: 'COMPLETENESS_UNKNOWN',
              message: `item ${id} was returned twice: the collection shifted between pages`,
            });
            continue;
          }
          seenIds.add(id);
        }
        items.push(item);
      }
      if (cut) {
        clientLimit(`stopped inside page ${pages} at the item budget of ${budget.maxItems} items`, budget.maxItems);
        continuation = { kind: 'narrow_query' };
        break;
      }
      if (recognized !== 'contract') {
        for (const r of page.completeness.reasons) addReason({ ...r, message: `page ${pages}: ${r.message ?? ''}` });
        break;
      }
      if (page.completeness.complete) {
        finished = true;
        break;
      }

      const next = page.completeness.continuation;
      for (const r of page.completeness.reasons) if (r.code !== MORE) addReason(r);
      if (next.kind === 'next_cursor') {
        if (seenCursors.has(next.cursor)) {
          addReason({ code: 'COMPLETENESS_UNKNOWN', message: `cursor repeated at page ${pages}: the scan would loop` });
          break;
        }
        seenCursors.add(next.cursor);
        if (pageItems.length < options.pageSize) shortPages += 1;
        cursor = next.cursor;
        continue;
      }
      // Any other continuation (retry_after, narrow_query, ...) is the caller's decision, not ours.
      for (const r of page.completeness.reasons) addReason(r);
      continuation = next;
      break;
    }
  } finally {
    cancelTimer();
    options.signal?.removeEventListener('abort', onCallerAbort);
  }

  if (finished && reasons.length === 0 && requireSnapshot && pages > 1 && scope?.snapshot === undefined) {
    addReason({
      code: 'COMPLETENESS_UNKNOWN',
      message: `the source declared no snapshot over ${pages} pages: items may have moved between pages`,
    });
  }
  const complete = finished && reasons.length === 0;
  if (!complete && reasons.length === 0) addReason({ code: 'COMPLETENESS_UNKNOWN', message: 'the scan ended early' });

  const common = {
    items,
    warnings,
    pagination: { pages, short_pages: shortPages, requested_page_size: options.pageSize },
    ...(scope ? { scope } : {}),
  };
  if (complete) {
    return {
      status: 'complete',
      completeness: { complete: true, reasons: [], continuation: { kind: 'none' } },
      ...common,
    };
  }
  const completeness = { complete: false as const, reasons, continuation };
  if (failure && items.length === 0) return { status: 'error', error: failure, completeness, ...common };
  return { status: 'partial', completeness, ...common };
}

function safeId<T>(itemId: ((item: T) => string | number | undefined) | undefined, item: T): string | undefined {
  if (!itemId) return undefined;
  try {
    const id = itemId(item);
    return id === undefined ? undefined : String(id);
  } catch {
    return undefined;
  }
}

/** Resolve with the fetch, or reject as soon as the signal aborts (a source that ignores the signal cannot hold us). */
function raceAbort<X>(promise: Promise<X>, signal: AbortSignal): Promise<X> {
  if (signal.aborted) {
    // The abandoned fetch may still fail; its failure is no longer anyone's to handle.
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<X>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
