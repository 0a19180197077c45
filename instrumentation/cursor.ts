/**
 * Where a read's cursor is in its arguments, so that a page read with the cursor an earlier page returned is taken
 * as the next page of that traversal. Three sources, most precise first: the read policy's `cursor` (a JSON pointer
 * or a function), the adapter's `pageParams` (the request parameters it adds for a cursor), else the parameter
 * names paging APIs use (`cursor`, `page_token`, `after`, `continue`...).
 */
import { CURSOR_ARGUMENT_NAMES, cursorText } from '../contract/index.ts';
import { atPointer } from './json-pointer.ts';

export { CURSOR_ARGUMENT_NAMES };

/** An RFC 6901 JSON pointer (`/cursor`, `/page/after`) or a function of the arguments. */
export type CursorSelector<A = unknown> = string | ((args: A) => string | number | undefined);

/** The request parameters an adapter adds to fetch the page after `cursor` (`undefined`: the first page). */
export type PageParams = (cursor: string | undefined, pageSize: number) => Record<string, unknown>;

export interface CursorLocator {
  /** The cursor the arguments carry, as text; undefined on a first page (none, or a page number / offset of 0 or 1). */
  given(args: unknown): string | undefined;
  /** Whether the arguments carry this cursor (one a page of the session returned). */
  carries(args: unknown, cursor: string): boolean;
}

/** From the read policy: exactly where the cursor is. */
export function selectorLocator<A>(selector: CursorSelector<A>): CursorLocator {
  const given = (args: unknown): string | undefined => {
    if (typeof selector === 'function') {
      try {
        return cursorText(selector(args as A));
      } catch {
        // A selector that cannot read the arguments finds no cursor: the read then counts as a first page only
        // when no cursor of the session appears in them (traversal.ts checks both).
        return undefined;
      }
    }
    const found = atPointer(args, selector);
    return found.ok ? cursorText(found.value) : undefined;
  };
  return { given, carries: (args, cursor) => given(args) === cursor };
}

/** The names an adapter's `pageParams` gives a cursor, learnt by asking it for a first and a later page. */
export function pageParamsLocator(pageParams: PageParams): CursorLocator {
  const firstKeys = new Set(safeKeys(() => pageParams(undefined, 1)));
  const cursorKeys = new Set(safeKeys(() => pageParams('tooltrail-cursor-probe', 1)).filter((k) => !firstKeys.has(k)));
  return {
    given(args) {
      if (!isRecord(args)) return undefined;
      for (const k of cursorKeys) {
        const t = cursorText(args[k]);
        if (t !== undefined) return t;
      }
      return namedLocator.given(args);
    },
    carries(args, cursor) {
      if (!isRecord(args)) return false;
      let params: Record<string, unknown>;
      try {
        params = pageParams(cursor, 1);
      } catch {
        return namedLocator.carries(args, cursor);
      }
      // A link-header cursor is a URL whose query (`page=2`) becomes several parameters: each must be there.
      const entries = Object.entries(params).filter(([k]) => !firstKeys.has(k));
      if (entries.length === 0) return namedLocator.carries(args, cursor);
      for (const [k] of entries) cursorKeys.add(k);
      return entries.every(([k, v]) => k in args && sameValue(args[k], v)) || namedLocator.carries(args, cursor);
    },
  };
}

const CURSOR_NAMES = new Set(CURSOR_ARGUMENT_NAMES);

/** Without a declaration: a known parameter name gives the cursor, and any argument equal to one links the page. */
export const namedLocator: CursorLocator = {
  given(args) {
    if (!isRecord(args)) return undefined;
    // Arguments are few: walk them, not the list of names.
    for (const name in args) {
      if (!CURSOR_NAMES.has(name)) continue;
      const t = cursorText(args[name]);
      if (t !== undefined) return t;
    }
    return undefined;
  },
  carries: (args, cursor) => holds(args, cursor, 0),
};

/** Whether a value equal to `cursor` sits anywhere in the arguments (a few levels deep). */
function holds(value: unknown, cursor: string, depth: number): boolean {
  if (typeof value === 'string') return value === cursor;
  if (typeof value === 'number') return String(value) === cursor;
  if (depth >= 4 || typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return JSON.stringify(value) === cursor || value.some((v) => holds(v, cursor, depth + 1));
  for (const k in value) if (holds((value as Record<string, unknown>)[k], cursor, depth + 1)) return true;
  return false;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'object' || typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return String(a) === String(b);
}

function safeKeys(f: () => Record<string, unknown>): string[] {
  try {
    return Object.keys(f());
  } catch {
    return [];
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
