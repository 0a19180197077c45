/**
 * Cursor traversals: pages a session read one after another, each with the cursor the previous page returned, are
 * one read. A traversal is complete when its first page was read without a cursor, no page is missing, every page
 * declared the same snapshot (where pages declare one), no cursor expired, and its last page says `complete: true`;
 * its items are the union of its pages. A read with a cursor no page of the session returned starts a traversal
 * that can never be complete; a read without a cursor starts a new one.
 *
 * Pages form a chain: a read with the cursor page k returned is page k + 1, and reading it again replaces page
 * k + 1 and drops the pages after it (a re-read continues from there).
 */
import type { Continuation, Scope, TraversalBreak, Warning } from '../contract/index.ts';
import type { CursorLocator } from './cursor.ts';
import type { EvidenceRecord } from './session.ts';
import { MAX_REMEMBERED_IDS } from './session.ts';

/** Where a page sits: its traversal and its position (undefined: it carried a cursor nobody gave, position unknown). */
export interface PageOf {
  traversal: Traversal;
  page: number | undefined;
}

/** Why a traversal can no longer be complete, and at which page the session saw it. */
export interface TraversalBreakInfo {
  reason: TraversalBreak;
  page: number | undefined;
  detail: string;
}

/** What the span, the read's outcome and the model are told of a page's traversal. */
export interface TraversalState {
  /** `gen_ai.tool.call.id` of the first page. */
  id: string;
  /** This page's position (absent when it carried a cursor the session never received). */
  page?: number;
  /** Pages in the traversal so far. */
  pages: number;
  complete: boolean;
  /** Set on the page where the traversal broke. */
  break?: TraversalBreak;
}

/** A traversal as evidence: on the synthesized record the guard judges. */
export interface TraversalSummary {
  pages: number;
  complete: boolean;
  break?: TraversalBreakInfo;
}

/** How a read call was placed before it ran. */
export interface Placement {
  traversal: Traversal | undefined;
  page: number | undefined;
  /** Decided before the read ran (a cursor nobody gave, a page skipped). */
  break?: TraversalBreakInfo;
  /** A first page's arguments: its traversal's query, told apart from another traversal's by them. */
  args?: unknown;
}

export class Traversal {
  readonly id: string;
  readonly toolName: string;
  /** Started with a cursor the session never received: its beginning is unknown. */
  readonly headless: boolean;
  /** The first page's arguments (its query), when known. */
  readonly query: unknown;
  /** Page records by position - 1; a hole is a page skipped. */
  readonly pages: (EvidenceRecord | undefined)[] = [];
  /** Cursors of its pages registered in the book, to forget them with it. */
  readonly cursors: string[] = [];
  #breaks: TraversalBreakInfo[] = [];
  #evidence: EvidenceRecord | undefined;

  constructor(id: string, toolName: string, headless: boolean, query: unknown) {
    this.id = id;
    this.toolName = toolName;
    this.headless = headless;
    this.query = query;
  }

  get broke(): TraversalBreakInfo | undefined {
    return this.#breaks[0];
  }

  get complete(): boolean {
    if (this.headless || this.#breaks.length > 0 || this.pages.length === 0) return false;
    for (const p of this.pages) if (p === undefined) return false;
    return this.pages[this.pages.length - 1]?.complete === true;
  }

  /** The declared snapshot of the first page that declared one. */
  get snapshot(): string | undefined {
    for (const p of this.pages) if (p?.scope?.snapshot !== undefined) return p.scope.snapshot;
    return undefined;
  }

  /** Puts the page at its position, dropping the pages after it, then checks what it says against the others. */
  put(
    position: number | undefined,
    record: EvidenceRecord,
    early: TraversalBreakInfo | undefined,
  ): TraversalBreak | undefined {
    const at = position ?? 1;
    this.pages.length = at - 1;
    this.pages[at - 1] = record;
    if (this.#breaks.length > 0) this.#breaks = this.#breaks.filter((b) => b.page === undefined || b.page < at);
    this.#evidence = undefined;
    let broke: TraversalBreakInfo | undefined = early;
    const snapshot = record.scope?.snapshot;
    const before = snapshotBefore(this.pages, at - 1);
    if (broke === undefined && snapshot !== undefined && before !== undefined && snapshot !== before) {
      broke = {
        reason: 'SNAPSHOT_CHANGED',
        page: position,
        detail: `page ${at} is of snapshot ${snapshot}, the earlier pages of ${before}`,
      };
    }
    if (broke === undefined && record.reasons.some((r) => r.code === 'CURSOR_EXPIRED')) {
      broke = { reason: 'CURSOR_EXPIRED', page: position, detail: `the cursor of page ${at} had expired` };
    }
    if (broke !== undefined) this.#breaks.push(broke);
    return broke?.reason;
  }

  state(position: number | undefined, broke: TraversalBreak | undefined): TraversalState {
    return {
      id: this.id,
      ...(position !== undefined ? { page: position } : {}),
      pages: this.pages.length,
      complete: this.complete,
      ...(broke !== undefined ? { break: broke } : {}),
    };
  }

  /** The traversal as one read, for the guard: the union of its pages, complete only as a whole. */
  evidence(maxIds = MAX_REMEMBERED_IDS): EvidenceRecord {
    if (this.#evidence !== undefined) return this.#evidence;
    const pages = this.pages.filter((p): p is EvidenceRecord => p !== undefined);
    const first = pages[0] as EvidenceRecord;
    const last = pages[pages.length - 1] as EvidenceRecord;
    const complete = this.complete;
    const summary: TraversalSummary = {
      pages: this.pages.length,
      complete,
      ...(this.broke ? { break: this.broke } : {}),
    };
    const record: EvidenceRecord = {
      callId: this.id,
      toolName: this.toolName,
      sequence: last.sequence,
      // The age of what it says is the age of its oldest page.
      at: Math.min(...pages.map((p) => p.at)),
      status: complete ? 'complete' : last.status === 'error' ? 'error' : 'partial',
      complete,
      reasons: complete ? [] : last.reasons,
      continuation: complete ? NONE : last.continuation,
      traversal: summary,
    };
    const scope = unionScope(
      last.scope ?? first.scope,
      this.broke?.reason === 'SNAPSHOT_CHANGED' ? undefined : this.snapshot,
    );
    if (scope !== undefined) record.scope = scope;
    if (pages.every((p) => p.itemCount !== undefined))
      record.itemCount = pages.reduce((n, p) => n + (p.itemCount ?? 0), 0);
    const ids = unionIds(pages, maxIds);
    if (ids !== undefined) record.itemIds = ids;
    const warnings = unionWarnings(pages);
    if (warnings.length > 0) record.warnings = warnings;
    this.#evidence = record;
    return record;
  }
}

/**
 * A session's traversals: the cursors its pages returned (per tool), so the next read is placed in its traversal.
 * Bounded: the oldest traversal is forgotten first, with its cursors.
 */
export class TraversalBook {
  readonly #limit: number;
  /** Tool name -> cursor -> the traversals and positions of the pages that returned it, latest last. */
  readonly #cursors = new Map<string, Map<string, Link[]>>();
  /** Traversals oldest first, as a ring: slot n % limit holds the n-th kept. */
  readonly #ring: (Traversal | undefined)[];
  #kept = 0;

  constructor(limit: number) {
    this.#limit = limit;
    this.#ring = new Array(limit).fill(undefined);
  }

  /** Where a read call belongs, from its arguments, before it runs. */
  place(toolName: string, args: unknown, locator: CursorLocator, callId: string): Placement {
    const known = this.#cursors.get(toolName);
    if (known !== undefined) {
      const found = carried(known, args, locator);
      if (found !== undefined) return { traversal: found.traversal, page: found.after + 1 };
    }
    const given = locator.given(args);
    if (given === undefined) return { traversal: undefined, page: 1, args };
    const skipped = known === undefined ? undefined : skippedFrom(known, given);
    if (skipped !== undefined) {
      const page = skipped.after + 2;
      return {
        traversal: skipped.traversal,
        page,
        break: {
          reason: 'PAGE_SKIPPED',
          page,
          detail: `read ${given} after page ${skipped.after}, whose next was ${skipped.cursor}`,
        },
      };
    }
    const traversal = this.#keep(new Traversal(callId, toolName, true, undefined));
    return {
      traversal,
      page: undefined,
      break: {
        reason: 'CURSOR_NOT_RECEIVED',
        page: undefined,
        detail: `no read of this session returned the cursor it carried`,
      },
    };
  }

  /** Records the page's result in its traversal; undefined for a read that is a whole traversal on its own. */
  settle(placement: Placement, record: EvidenceRecord): TraversalState | undefined {
    const next = nextCursor(record.continuation);
    let traversal = placement.traversal;
    if (traversal === undefined) {
      // A first page is a traversal only once it points to a next page.
      if (next === undefined) return undefined;
      traversal = this.#keep(new Traversal(record.callId, record.toolName, false, placement.args));
    }
    const broke = traversal.put(placement.page, record, placement.break);
    record.pageOf = { traversal, page: placement.page };
    if (next !== undefined) this.#register(traversal, next, placement.page ?? 1);
    return traversal.state(placement.page, broke);
  }

  #register(traversal: Traversal, cursor: string, after: number): void {
    let known = this.#cursors.get(traversal.toolName);
    if (known === undefined) {
      known = new Map();
      this.#cursors.set(traversal.toolName, known);
    }
    let links = known.get(cursor) ?? [];
    // A page read again gives its cursor again: that traversal's older link goes.
    if (traversal.cursors.includes(cursor)) links = links.filter((l) => l.traversal !== traversal);
    else traversal.cursors.push(cursor);
    links.push({ traversal, after });
    // Two queries rarely share a cursor: the newest few traversals that gave it are enough to tell them apart.
    if (links.length > MAX_LINKS_PER_CURSOR) links.shift();
    // Re-inserted: the map's order is the order cursors were last given in.
    known.delete(cursor);
    known.set(cursor, links);
  }

  #keep(traversal: Traversal): Traversal {
    const slot = this.#kept % this.#limit;
    const old = this.#ring[slot];
    this.#ring[slot] = traversal;
    this.#kept += 1;
    if (old !== undefined) {
      const known = this.#cursors.get(old.toolName);
      for (const c of old.cursors) {
        const links = known?.get(c)?.filter((l) => l.traversal !== old);
        if (links === undefined || links.length === 0) known?.delete(c);
        else known?.set(c, links);
      }
      if (known?.size === 0) this.#cursors.delete(old.toolName);
    }
    return traversal;
  }
}

/** Records as the guard judges them: a page as its traversal (one read), each traversal once, in order. */
export function evidenceUnits(records: readonly EvidenceRecord[]): EvidenceRecord[] {
  if (records.every((r) => r.pageOf === undefined)) return records as EvidenceRecord[];
  const out: EvidenceRecord[] = [];
  for (const r of records) {
    const unit = r.pageOf === undefined ? r : r.pageOf.traversal.evidence(MAX_REMEMBERED_IDS);
    if (!out.includes(unit)) out.push(unit);
  }
  return out;
}

const NONE: Continuation = Object.freeze({ kind: 'none' });
const MAX_LINKS_PER_CURSOR = 8;

function nextCursor(c: Continuation): string | undefined {
  if (c.kind === 'next_cursor') return c.cursor;
  if (c.kind === 'retry_after') return c.cursor;
  return undefined;
}

type Link = { traversal: Traversal; after: number };

/**
 * The page whose cursor the arguments carry: the latest such (a re-read of an older page names its own); when two
 * traversals gave the same cursor (offsets of two queries), the one whose first page asked what these ask.
 */
function carried(known: Map<string, Link[]>, args: unknown, locator: CursorLocator): Link | undefined {
  let found: Link | undefined;
  for (const [cursor, links] of known) {
    if (!locator.carries(args, cursor)) continue;
    // Newest first: the first that asked what these ask wins at once.
    for (let i = links.length - 1; i >= 0; i--) {
      const link = links[i] as Link;
      if (asksAlike(link.traversal.query, args)) return link;
    }
    found = links[links.length - 1];
  }
  return found;
}

/** Every top-level argument of the first page has the same value in these (a cursor and a page size may be added). */
function asksAlike(query: unknown, args: unknown): boolean {
  if (typeof query !== 'object' || query === null || typeof args !== 'object' || args === null) return false;
  const a = args as Record<string, unknown>;
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    if (!(k in a) || JSON.stringify(a[k]) !== JSON.stringify(v)) return false;
  }
  return true;
}

/** A page number or offset past the next one a traversal of the tool was given. */
function skippedFrom(known: Map<string, Link[]>, given: string): (Link & { cursor: string }) | undefined {
  if (!/^\d{1,15}$/.test(given)) return undefined;
  let found: (Link & { cursor: string }) | undefined;
  for (const [cursor, links] of known) {
    if (!/^\d{1,15}$/.test(cursor) || Number(given) <= Number(cursor)) continue;
    for (const link of links) {
      // Only the traversal's newest cursor says where its next page is.
      if (link.traversal.cursors[link.traversal.cursors.length - 1] === cursor) found = { ...link, cursor };
    }
  }
  return found;
}

function snapshotBefore(pages: readonly (EvidenceRecord | undefined)[], end: number): string | undefined {
  for (let i = 0; i < end; i++) {
    const s = pages[i]?.scope?.snapshot;
    if (s !== undefined) return s;
  }
  return undefined;
}

function unionScope(scope: Scope | undefined, snapshot: string | undefined): Scope | undefined {
  if (scope === undefined) return undefined;
  const { snapshot: _own, ...rest } = scope;
  return snapshot === undefined ? rest : { ...rest, snapshot };
}

function unionIds(pages: readonly EvidenceRecord[], maxIds: number): string[] | undefined {
  if (pages.some((p) => p.itemIds === undefined)) return undefined;
  const ids = new Set<string>();
  for (const p of pages) for (const id of p.itemIds ?? []) ids.add(id);
  return ids.size <= maxIds ? [...ids] : undefined;
}

function unionWarnings(pages: readonly EvidenceRecord[]): Warning[] {
  const out: Warning[] = [];
  for (const p of pages) {
    for (const w of p.warnings ?? []) if (!out.some((x) => x.code === w.code && x.source === w.source)) out.push(w);
  }
  return out;
}
