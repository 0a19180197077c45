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
  /** Where it broke, the earliest first (none on most). */
  #breaks: TraversalBreakInfo[] | undefined;
  #evidence: EvidenceRecord | undefined;

  constructor(id: string, toolName: string, headless: boolean, query: unknown) {
    this.id = id;
    this.toolName = toolName;
    this.headless = headless;
    this.query = query;
  }

  get broke(): TraversalBreakInfo | undefined {
    return this.#breaks?.[0];
  }

  get complete(): boolean {
    if (this.headless || this.#breaks !== undefined || this.pages.length === 0) return false;
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
    if (this.#breaks !== undefined) {
      const kept = this.#breaks.filter((b) => b.page === undefined || b.page < at);
      this.#breaks = kept.length > 0 ? kept : undefined;
    }
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
    if (broke === undefined && record.reasons.some(isExpired)) {
      broke = { reason: 'CURSOR_EXPIRED', page: position, detail: `the cursor of page ${at} had expired` };
    }
    if (broke !== undefined) this.#breaks = [...(this.#breaks ?? []), broke];
    return broke?.reason;
  }

  state(position: number | undefined, broke: TraversalBreak | undefined): TraversalState {
    const state: TraversalState = { id: this.id, pages: this.pages.length, complete: this.complete };
    if (position !== undefined) state.page = position;
    if (broke !== undefined) state.break = broke;
    return state;
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
 * A first page that points to a next one stays a link to its record until a read carries its cursor: most are
 * never continued, and an object graph per read kept alive for the ledger's length is what the GC pays for.
 * Bounded: the oldest traversal (or first page) is forgotten first, with its cursors.
 */
export class TraversalBook {
  readonly #limit: number;
  /** Tool name -> cursor -> the links of the pages that returned it, oldest first. */
  readonly #cursors = new Map<string, Map<string, Link[]>>();
  /** What is kept, oldest first, as a ring: slot n % limit holds the n-th kept (a traversal, or a first page's link). */
  readonly #ring: (Traversal | Link | undefined)[];
  #kept = 0;
  /** Links given so far: the latest link wins when two carry the arguments' cursor. */
  #given = 0;

  constructor(limit: number) {
    this.#limit = limit;
    this.#ring = new Array(limit).fill(undefined);
  }

  /** Where a read call belongs, from its arguments, before it runs. */
  place(toolName: string, args: unknown, locator: CursorLocator, callId: string): Placement {
    const known = this.#cursors.get(toolName);
    if (known !== undefined) {
      const found = carried(known, args, locator);
      if (found !== undefined) return { traversal: this.#open(found), page: found.after + 1 };
    }
    const given = locator.given(args);
    if (given === undefined) return { traversal: undefined, page: 1, args };
    const skipped = known === undefined ? undefined : skippedFrom(known, given);
    if (skipped !== undefined) {
      const page = skipped.link.after + 2;
      return {
        traversal: this.#open(skipped.link),
        page,
        break: {
          reason: 'PAGE_SKIPPED',
          page,
          detail: `read ${given} after page ${skipped.link.after}, whose next was ${skipped.cursor}`,
        },
      };
    }
    const traversal = new Traversal(callId, toolName, true, undefined);
    this.#keep(traversal);
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
    const traversal = placement.traversal;
    if (traversal === undefined) {
      // A first page is a traversal only once it points to a next page.
      if (next === undefined) return undefined;
      const link: Link = {
        cursor: next,
        toolName: record.toolName,
        after: 1,
        given: ++this.#given,
        traversal: undefined,
        first: record,
        query: placement.args,
      };
      this.#keep(link);
      this.#add(link);
      record.firstPage = true;
      // A first page can break only by an expired cursor (rare): then its traversal is made now, to say so.
      if (!record.reasons.some(isExpired)) return { id: record.callId, page: 1, pages: 1, complete: false };
      const opened = this.#open(link);
      return opened.state(1, opened.broke?.reason);
    }
    const broke = traversal.put(placement.page, record, placement.break);
    record.pageOf = { traversal, page: placement.page };
    if (next !== undefined) this.#register(traversal, next, placement.page ?? 1);
    return traversal.state(placement.page, broke);
  }

  /** The traversal a link continues, made from its first page when a read carries that page's cursor. */
  #open(link: Link): Traversal {
    if (link.traversal !== undefined) return link.traversal;
    const first = link.first as EvidenceRecord;
    const traversal = new Traversal(first.callId, first.toolName, false, link.query);
    traversal.put(1, first, undefined);
    traversal.cursors.push(link.cursor);
    first.pageOf = { traversal, page: 1 };
    link.traversal = traversal;
    link.first = undefined;
    link.query = undefined;
    return traversal;
  }

  #register(traversal: Traversal, cursor: string, after: number): void {
    // A page read again gives its cursor again: that traversal's older link goes.
    if (traversal.cursors.includes(cursor)) this.#remove(traversal.toolName, cursor, (l) => l.traversal === traversal);
    else traversal.cursors.push(cursor);
    this.#add({
      cursor,
      toolName: traversal.toolName,
      after,
      given: ++this.#given,
      traversal,
      first: undefined,
      query: undefined,
    });
  }

  #add(link: Link): void {
    let known = this.#cursors.get(link.toolName);
    if (known === undefined) {
      known = new Map();
      this.#cursors.set(link.toolName, known);
    }
    const links = known.get(link.cursor);
    if (links === undefined) {
      known.set(link.cursor, [link]);
      return;
    }
    links.push(link);
    // Two queries rarely share a cursor: the newest few that gave it are enough to tell them apart.
    if (links.length > MAX_LINKS_PER_CURSOR) links.shift();
  }

  #remove(toolName: string, cursor: string, match: (l: Link) => boolean): void {
    const known = this.#cursors.get(toolName);
    const links = known?.get(cursor);
    if (known === undefined || links === undefined) return;
    for (let i = links.length - 1; i >= 0; i--) if (match(links[i] as Link)) links.splice(i, 1);
    if (links.length > 0) return;
    known.delete(cursor);
    if (known.size === 0) this.#cursors.delete(toolName);
  }

  #keep(kept: Traversal | Link): void {
    const slot = this.#kept % this.#limit;
    const old = this.#ring[slot];
    this.#ring[slot] = kept;
    this.#kept += 1;
    if (old === undefined) return;
    const forgotten = old instanceof Traversal ? old : old.traversal;
    if (forgotten === undefined) {
      const link = old as Link;
      this.#remove(link.toolName, link.cursor, (l) => l === link);
      return;
    }
    for (const c of forgotten.cursors) this.#remove(forgotten.toolName, c, (l) => l.traversal === forgotten);
  }
}

/** Records as the guard judges them: a page as its traversal (one read), each traversal once, in order. */
export function evidenceUnits(records: readonly EvidenceRecord[]): EvidenceRecord[] {
  if (records.every((r) => r.pageOf === undefined && r.firstPage !== true)) return records as EvidenceRecord[];
  const out: EvidenceRecord[] = [];
  for (const r of records) {
    const unit =
      r.pageOf !== undefined
        ? r.pageOf.traversal.evidence(MAX_REMEMBERED_IDS)
        : r.firstPage === true
          ? firstPageAlone(r)
          : r;
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

/** A cursor a page returned: the traversal it continues, or the first page whose traversal it would start. */
interface Link {
  cursor: string;
  toolName: string;
  /** The position of the page that returned it. */
  after: number;
  /** Its number among the links the book gave: the latest wins. */
  given: number;
  traversal: Traversal | undefined;
  /** A first page no read continued yet (its traversal is made when one does), and that page's arguments. */
  first: EvidenceRecord | undefined;
  query: unknown;
}

const isExpired = (r: { code: string }) => r.code === 'CURSOR_EXPIRED';

/** A first page no read continued: a traversal of one page, made for the guard's look and not kept. */
function firstPageAlone(record: EvidenceRecord): EvidenceRecord {
  const traversal = new Traversal(record.callId, record.toolName, false, undefined);
  traversal.put(1, record, undefined);
  return traversal.evidence(MAX_REMEMBERED_IDS);
}

/**
 * The link whose cursor the arguments carry: the latest given (a re-read of an older page names its own); when two
 * traversals gave the same cursor (offsets of two queries), the latest whose first page asked what these ask.
 */
function carried(known: Map<string, Link[]>, args: unknown, locator: CursorLocator): Link | undefined {
  let alike: Link | undefined;
  let latest: Link | undefined;
  for (const [cursor, links] of known) {
    if (!locator.carries(args, cursor)) continue;
    for (const link of links) {
      if (latest === undefined || link.given > latest.given) latest = link;
      if ((alike === undefined || link.given > alike.given) && asksAlike(link.traversal?.query ?? link.query, args))
        alike = link;
    }
  }
  return alike ?? latest;
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
function skippedFrom(known: Map<string, Link[]>, given: string): { link: Link; cursor: string } | undefined {
  if (!/^\d{1,15}$/.test(given)) return undefined;
  let found: { link: Link; cursor: string } | undefined;
  for (const [cursor, links] of known) {
    if (!/^\d{1,15}$/.test(cursor) || Number(given) <= Number(cursor)) continue;
    for (const link of links) {
      // Only the traversal's newest cursor says where its next page is (a first page's link is its only one).
      const newest =
        link.traversal === undefined ? link.cursor : link.traversal.cursors[link.traversal.cursors.length - 1];
      if (newest === cursor && (found === undefined || link.given > found.link.given)) found = { link, cursor };
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
