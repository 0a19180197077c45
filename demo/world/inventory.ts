/**
 * The authoritative inventory API: fans a query out to every shard, pages with keyset cursors pinned to a
 * snapshot (every deletion makes a new revision; old ones stay readable), answers within a per-request deadline,
 * and says what it could not cover: a shard that missed the deadline, accounts the role may not read.
 * Latency is simulated (compared with the deadline), so nothing waits and nothing keeps the process alive.
 */
import { z } from 'zod';
import type { Reason, ToolResult } from '../../instrumentation/index.ts';
import { completeResult, partialResult } from '../../instrumentation/index.ts';
import type { Role } from './access.ts';
import { canRead, visibilityOf } from './access.ts';
import type { AccountView } from './account-view.ts';
import { byId, toView } from './account-view.ts';
import type { WorldConfig } from './config.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import type { ServiceAccount } from './population.ts';

export const SERVICE_ACCOUNTS = 'service_accounts';
const API = 'inventory';

export const ListArgsSchema = z.object({
  /** `none`: accounts with no owner recorded; `any`: every account. */
  owner: z.enum(['none', 'any']).default('any'),
  page_size: z.number().int().positive().optional(),
  cursor: z.string().min(1).optional(),
  /** How long the caller lets the fan-out run; shards slower than this do not answer. */
  deadline_ms: z.number().int().positive().optional(),
});
export type ListArgs = z.input<typeof ListArgsSchema>;

export interface DeleteOutcome {
  deleted: ServiceAccount[];
  /** Unknown, already deleted, or not readable by the role (not named apart, on purpose). */
  notFound: string[];
  revision: number;
}

export class Inventory {
  readonly #config: WorldConfig;
  readonly #revisions = new Map<number, readonly ServiceAccount[]>();
  #current: number;

  constructor(config: WorldConfig, accounts: readonly ServiceAccount[], initialRevision: number) {
    this.#config = config;
    this.#current = initialRevision;
    this.#revisions.set(initialRevision, [...accounts].sort(byId));
  }

  get revision(): number {
    return this.#current;
  }

  /** The accounts of the current revision, in id order. */
  accounts(): readonly ServiceAccount[] {
    return this.#snapshot(this.#current);
  }

  static snapshotToken(revision: number): string {
    return `inv-r${revision}`;
  }

  list(input: ListArgs, role: Role): ToolResult<AccountView> {
    const args = ListArgsSchema.parse(input);
    const { maxPageSize, defaultPageSize, defaultDeadlineMs } = this.#config.inventory;
    const pageSize = args.page_size ?? defaultPageSize;
    if (pageSize > maxPageSize) throw new RangeError(`page_size must be <= ${maxPageSize}`);
    const query = `owner=${args.owner}`;
    const state = args.cursor === undefined ? undefined : decodeCursor(args.cursor, API, query);
    const revision = state?.revision ?? this.#current;
    const deadline = args.deadline_ms ?? defaultDeadlineMs;

    const late = this.#config.shards.filter((s) => s.latencyMs > deadline);
    const answered = new Set(this.#config.shards.filter((s) => s.latencyMs <= deadline).map((s) => s.name));
    const inScope = this.#snapshot(revision).filter(
      (a) => answered.has(a.shard) && (args.owner === 'any' || a.owner === null),
    );
    const readable = inScope.filter((a) => canRead(role, a));
    const rest = state === undefined ? readable : readable.filter((a) => a.id > state.after);
    const page = rest.slice(0, pageSize);
    const last = page.at(-1);
    const more = rest.length > page.length && last !== undefined;

    const reasons: Reason[] = [];
    if (more) reasons.push({ code: 'MORE_PAGES_AVAILABLE', message: 'more accounts match; follow next_cursor' });
    for (const s of late) {
      reasons.push({
        code: 'TIME_BUDGET_EXCEEDED',
        source: `inventory-shard-${s.name}`,
        message: `shard ${s.name} did not answer within the ${deadline} ms deadline`,
      });
    }
    if (readable.length < inScope.length) {
      // The role may learn that something is hidden, never what.
      reasons.push({
        code: 'VISIBILITY_RESTRICTED',
        source: 'inventory-acl',
        message: `some service accounts in this scope are not readable by role ${role}`,
      });
    }
    const scope = {
      resource: SERVICE_ACCOUNTS,
      visibility: visibilityOf(role),
      snapshot: Inventory.snapshotToken(revision),
    };
    const items = page.map(toView);
    const [first, ...others] = reasons;
    if (first === undefined) return completeResult({ items, scope });
    const slowest = Math.max(0, ...late.map((s) => s.latencyMs));
    const continuation = more
      ? {
          kind: 'next_cursor' as const,
          cursor: encodeCursor({ api: API, revision, query, after: last.id, scanned: 0 }),
        }
      : late.length > 0
        ? { kind: 'retry_with_deadline' as const, minimum_seconds: Math.ceil(slowest / 1000) }
        : { kind: 'none' as const };
    return partialResult({ items, scope, reasons: [first, ...others], continuation });
  }

  /** Delete what the role may read; the rest is reported as not found. Makes a new revision. */
  delete(ids: readonly string[], role: Role): DeleteOutcome {
    const wanted = new Set(ids);
    const current = this.#snapshot(this.#current);
    const deleted = current.filter((a) => wanted.has(a.id) && canRead(role, a));
    const gone = new Set(deleted.map((a) => a.id));
    const notFound = ids.filter((id) => !gone.has(id));
    if (deleted.length > 0) {
      this.#current += 1;
      this.#revisions.set(
        this.#current,
        current.filter((a) => !gone.has(a.id)),
      );
    }
    return { deleted, notFound, revision: this.#current };
  }

  #snapshot(revision: number): readonly ServiceAccount[] {
    const snapshot = this.#revisions.get(revision);
    if (snapshot === undefined) throw new RangeError(`unknown inventory revision ${revision}`);
    return snapshot;
  }
}
