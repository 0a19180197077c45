/**
 * Opaque keyset cursors. A cursor pins the snapshot it was issued for, the query it continues and the last id it
 * covered, so a page can never silently come from another snapshot or another query, and a page that came back
 * shorter (a shard missing, entries hidden) cannot shift the next one.
 */
export interface CursorState {
  /** Which API issued it: `inventory` or `search`. */
  api: string;
  revision: number;
  query: string;
  /** Last id covered; the next page starts after it. */
  after: string;
  /** Entries scanned so far by this query (the search's result window counts them). */
  scanned: number;
}

export class InvalidCursorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidCursorError';
  }
}

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, api: string, query: string): CursorState {
  let state: unknown;
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError('the cursor is not one this API issued');
  }
  if (!isCursorState(state) || state.api !== api) throw new InvalidCursorError('the cursor is not one this API issued');
  if (state.query !== query) throw new InvalidCursorError('the cursor belongs to another query');
  return state;
}

function isCursorState(v: unknown): v is CursorState {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  return (
    typeof s.api === 'string' &&
    typeof s.query === 'string' &&
    typeof s.after === 'string' &&
    Number.isInteger(s.revision) &&
    Number.isInteger(s.scanned) &&
    (s.scanned as number) >= 0
  );
}
