/**
 * A paged listing of service accounts, as the APIs agents page through serve one: a page of `pageSize` items and a
 * cursor for the next, every page tagged with the snapshot (index revision) it was read from. The scenario the
 * cursor-traversal tests share (library, framework bridges, MCP proxy, detectors): the snapshot can change between
 * two pages, cursors can expire, and the listing can be paged by opaque cursor or by page number.
 */
import type { ToolResult } from '../contract/index.ts';

export interface InventoryOptions {
  /** Default: sa-1 .. sa-5. */
  accounts?: readonly string[];
  /** Default 2: five accounts over three pages. */
  pageSize?: number;
  /** Default `inv-77`. */
  snapshot?: string;
  /** Page numbers (`'2'`, `'3'`) instead of opaque cursors. */
  numbered?: boolean;
}

export interface InventoryPage {
  items: { id: string }[];
  /** The cursor of the next page; absent on the last. */
  next?: string;
  snapshot: string;
  /** The cursor was issued before the cursors expired: no items. */
  expired?: boolean;
}

export const RESOURCE = 'service_accounts';

export class PagingInventory {
  readonly accounts: readonly string[];
  readonly pageSize: number;
  readonly numbered: boolean;
  snapshot: string;
  #epoch = 1;

  constructor(options: InventoryOptions = {}) {
    this.accounts = options.accounts ?? ['sa-1', 'sa-2', 'sa-3', 'sa-4', 'sa-5'];
    this.pageSize = options.pageSize ?? 2;
    this.numbered = options.numbered ?? false;
    this.snapshot = options.snapshot ?? 'inv-77';
  }

  /** The page a cursor points at (none: the first page). */
  page(cursor?: string): InventoryPage {
    const at = this.#offset(cursor);
    if (at === undefined) return { items: [], snapshot: this.snapshot, expired: true };
    const items = this.accounts.slice(at, at + this.pageSize).map((id) => ({ id }));
    const after = at + this.pageSize;
    return after < this.accounts.length
      ? { items, next: this.#cursor(after), snapshot: this.snapshot }
      : { items, snapshot: this.snapshot };
  }

  /** Every cursor issued so far stops working (as a search context or a scroll that timed out). */
  expireCursors(): void {
    this.#epoch += 1;
  }

  /** The listing's index is rebuilt: later pages declare another snapshot. */
  reindex(snapshot: string): void {
    this.snapshot = snapshot;
  }

  #cursor(offset: number): string {
    if (this.numbered) return String(offset / this.pageSize + 1);
    return Buffer.from(`${this.#epoch}:${offset}`).toString('base64url');
  }

  #offset(cursor: string | undefined): number | undefined {
    if (cursor === undefined || cursor === '') return 0;
    if (this.numbered) return (Number(cursor) - 1) * this.pageSize;
    const [epoch, offset] = Buffer.from(cursor, 'base64url').toString().split(':');
    return Number(epoch) === this.#epoch ? Number(offset) : undefined;
  }
}

/** A page as a tool speaking the completeness contract returns it. */
export function pageEnvelope(page: InventoryPage): ToolResult<{ id: string }> {
  const scope = { resource: RESOURCE, snapshot: page.snapshot };
  if (page.expired) {
    return {
      status: 'error',
      error: { type: 'cursor_expired', message: 'the cursor expired' },
      completeness: {
        complete: false,
        reasons: [{ code: 'CURSOR_EXPIRED', message: 'the cursor expired' }],
        continuation: { kind: 'none' },
      },
      scope,
      warnings: [],
    };
  }
  if (page.next !== undefined) {
    return {
      status: 'partial',
      completeness: {
        complete: false,
        reasons: [{ code: 'MORE_PAGES_AVAILABLE', message: 'more pages' }],
        continuation: { kind: 'next_cursor', cursor: page.next },
      },
      items: page.items,
      scope,
      warnings: [],
    };
  }
  return {
    status: 'complete',
    completeness: { complete: true, reasons: [], continuation: { kind: 'none' } },
    items: page.items,
    scope,
    warnings: [],
  };
}
