/**
 * What every adapter is: a raw API response in, a completeness contract out. An adapter never throws: a shape it
 * does not know (or a bug of ours) comes out as COMPLETENESS_UNKNOWN, with the data kept and the claim dropped.
 */
import type { Continuation, Reason, Scope, ToolResult, Warning } from '../../contract/index.ts';
import { ToolResultRuntimeSchema } from '../../contract/index.ts';
import { unknownResult } from '../results.ts';

/** What `complete` covers, when the caller knows better than the API. */
export interface AdapterOptions {
  /** The resource the result is about (`tooltrail.scope.resource`); some adapters derive one from the response. */
  resource?: string;
  /** What the credential could see, e.g. `readable by this token`. */
  visibility?: string;
}

export interface CompletenessAdapter<O extends AdapterOptions = AdapterOptions> {
  readonly name: string;
  /** Reads a response (or a thrown API error) into the contract. Never throws. */
  read<T = unknown>(response: unknown, options?: O): ToolResult<T>;
  /** The request parameters that fetch the page after `cursor` (`undefined`: the first page). */
  pageParams(cursor: string | undefined, pageSize: number): Record<string, unknown>;
}

/** What an adapter found in a response, before it becomes an envelope. */
export interface Reading {
  items?: unknown[];
  data?: unknown;
  /** Partial signals; none means complete (unless `error`). */
  reasons: Reason[];
  continuation?: Continuation;
  /** A snapshot, revision or point-in-time token the API gave. */
  snapshot?: string;
  /** A resource the response names, used when the caller gave none. */
  resource?: string;
  warnings?: Warning[];
  /** No usable data: the API answered with an error. */
  error?: { type: string; message: string };
}

/** An unknown shape: returned as is by `read` implementations, turned into COMPLETENESS_UNKNOWN. */
export interface Unrecognized {
  unrecognized: string;
  value: unknown;
}

export function unrecognized(value: unknown, why: string): Unrecognized {
  return { unrecognized: why, value };
}

const NONE: Continuation = { kind: 'none' };

export function defineAdapter<O extends AdapterOptions>(spec: {
  name: string;
  read: (response: unknown, options: O) => Reading | Unrecognized;
  pageParams: (cursor: string | undefined, pageSize: number) => Record<string, unknown>;
}): CompletenessAdapter<O> {
  const { name } = spec;
  return {
    name,
    read<T>(response: unknown, options?: O): ToolResult<T> {
      let reading: Reading | Unrecognized;
      try {
        reading = spec.read(response, options ?? ({} as O));
      } catch (err) {
        // A shape that broke our reading is a shape we do not know.
        const message = err instanceof Error ? err.message : String(err);
        return unknownResult<T>(response, `${name}: could not read the response (${message})`);
      }
      if ('unrecognized' in reading) return unknownResult<T>(reading.value, `${name}: ${reading.unrecognized}`);
      const result = toResult<T>(reading, options ?? ({} as O), name);
      // Belt and braces: an adapter must never emit an envelope the contract rejects.
      const valid = ToolResultRuntimeSchema.safeParse(result);
      if (!valid.success) return unknownResult<T>(response, `${name}: produced an invalid envelope`);
      return valid.data as ToolResult<T>;
    },
    pageParams: spec.pageParams,
  };
}

function toResult<T>(r: Reading, options: AdapterOptions, adapterName: string): ToolResult<T> {
  // A snapshot needs a scope to live in: without a named resource, the adapter's name stands for it.
  const resource = options.resource ?? r.resource ?? (r.snapshot ? adapterName : undefined);
  const scope: Scope | undefined = resource
    ? {
        resource,
        ...(options.visibility ? { visibility: options.visibility } : {}),
        ...(r.snapshot ? { snapshot: r.snapshot } : {}),
      }
    : undefined;
  const parts = {
    ...(r.items !== undefined ? { items: r.items as T[] } : {}),
    ...(r.data !== undefined ? { data: r.data } : {}),
    ...(scope ? { scope } : {}),
    warnings: r.warnings ?? [],
  };
  const reasons = dedupe(r.reasons);
  const continuation = r.continuation ?? NONE;
  if (r.error) {
    return { status: 'error', error: r.error, completeness: { complete: false, reasons, continuation }, ...parts };
  }
  if (reasons.length === 0) {
    return {
      status: 'complete',
      completeness: { complete: true, reasons: [], continuation: { kind: 'none' } },
      ...parts,
    };
  }
  return { status: 'partial', completeness: { complete: false, reasons, continuation }, ...parts };
}

function dedupe(reasons: Reason[]): Reason[] {
  const out: Reason[] = [];
  for (const r of reasons) if (!out.some((x) => x.code === r.code && x.source === r.source)) out.push(r);
  return out;
}

/** A plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string, or undefined. */
export function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The adapter with its options fixed, for the all-pages collector (`adapter: withOptions(sqlResult, { limit })`). */
export function withOptions<O extends AdapterOptions>(
  adapter: CompletenessAdapter<O>,
  options: O,
): CompletenessAdapter<O> {
  return {
    name: adapter.name,
    read: <T>(response: unknown, more?: O) => adapter.read<T>(response, { ...options, ...more }),
    pageParams: (cursor, pageSize) => adapter.pageParams(cursor, pageSize),
  };
}
