/**
 * Completeness read from a tool's returned value when the tool does not speak the contract: the contract envelope
 * when it is there, else the shapes APIs actually return (cursors, `hasMore`, `truncated`, `incomplete_results`,
 * page tokens, Kubernetes' `metadata.continue`), else unknown, which counts as incomplete. Items are reduced to their
 * ids by the tool policy. Shared by the MCP proxy (what a server returned) and the ingest (what another emitter
 * recorded on its tool span), so both judge one result the same way.
 */
import type { ReasonCode } from './codes.ts';
import { type Continuation, type ToolResult, ToolResultRuntimeSchema } from './envelope.ts';
import { type ToolPolicy, valueAt, valuesAt } from './tool-policy.ts';

/** How the completeness was known. */
export type Recognized = 'contract' | 'shape' | 'declared' | 'unknown' | 'error';

export interface ReadCompleteness {
  result: ToolResult;
  recognized: Recognized;
}

/** Largest JSON text parsed when looking for shapes (bigger ones are not scanned). */
export const MAX_JSON_TEXT = 1_000_000;

const CURSOR_KEYS = ['nextCursor', 'next_cursor', 'nextPageToken', 'next_page_token', 'nextToken', 'NextToken'];
const MORE_KEYS = ['hasMore', 'has_more'] as const;

export interface ShapeOptions {
  /** The result was cut at the tool's declared text limit (policy `textLimit`). */
  cutAt?: number;
  /** What the unknown verdict says, naming who said nothing. */
  unknownMessage: string;
}

/** The completeness of a returned object (`undefined`: nothing parseable was returned). */
export function readResultShapes(
  structured: Record<string, unknown> | undefined,
  policy: ToolPolicy | undefined,
  options: ShapeOptions,
): ReadCompleteness {
  const scope = policy?.resource ? { resource: policy.resource } : undefined;
  if (structured) {
    const contract = ToolResultRuntimeSchema.safeParse(structured);
    if (contract.success) {
      const r = contract.data as ToolResult;
      return {
        result: { ...r, items: idsOf(r.items, policy), ...((r.scope ?? scope) ? { scope: r.scope ?? scope } : {}) },
        recognized: 'contract',
      };
    }
  }
  const items = idsOf(collectionIn(structured, policy), policy);
  const body = { ...(items ? { items } : {}), ...(scope ? { scope } : {}), warnings: [] };
  const signal = structured ? shapeSignal(structured) : undefined;
  if (signal?.code) {
    return {
      result: {
        status: 'partial',
        completeness: {
          complete: false,
          reasons: [{ code: signal.code, message: signal.message }],
          continuation: signal.continuation,
        },
        ...body,
      },
      recognized: 'shape',
    };
  }
  if (options.cutAt !== undefined) {
    return {
      result: {
        status: 'partial',
        completeness: {
          complete: false,
          reasons: [
            {
              code: 'RESULT_LIMIT_REACHED',
              message: `a text result reached the declared limit of ${options.cutAt} chars`,
              limit: options.cutAt,
            },
          ],
          continuation: { kind: 'narrow_query' },
        },
        ...body,
      },
      recognized: 'shape',
    };
  }
  if (signal?.complete || policy?.complete === 'declared') {
    return {
      result: {
        status: 'complete',
        completeness: { complete: true, reasons: [], continuation: { kind: 'none' } },
        ...body,
      },
      recognized: signal?.complete ? 'shape' : 'declared',
    };
  }
  return {
    result: {
      status: 'partial',
      completeness: {
        complete: false,
        reasons: [{ code: 'COMPLETENESS_UNKNOWN', message: options.unknownMessage }],
        continuation: { kind: 'none' },
      },
      ...body,
    },
    recognized: 'unknown',
  };
}

/** A JSON object's text as the object; undefined for anything else (an array, a cut or invalid text, too long). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  if (text.length > MAX_JSON_TEXT || text.charCodeAt(0) !== 123 /* { */) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

interface ShapeSignal {
  code?: ReasonCode;
  message: string;
  continuation: Continuation;
  /** An explicit `hasMore: false`: the tool said this is everything. */
  complete?: boolean;
}

function shapeSignal(s: Record<string, unknown>): ShapeSignal | undefined {
  for (const key of CURSOR_KEYS) {
    const cursor = s[key];
    if (typeof cursor === 'string' && cursor.length > 0) {
      return {
        code: 'MORE_PAGES_AVAILABLE',
        message: `the result carries ${key}`,
        continuation: { kind: 'next_cursor', cursor },
      };
    }
  }
  const k8s = isObject(s.metadata) ? s.metadata.continue : undefined;
  if (typeof k8s === 'string' && k8s.length > 0) {
    return {
      code: 'MORE_PAGES_AVAILABLE',
      message: 'the result carries metadata.continue',
      continuation: { kind: 'next_cursor', cursor: k8s },
    };
  }
  for (const key of MORE_KEYS) {
    if (s[key] === true)
      return { code: 'MORE_PAGES_AVAILABLE', message: `the result says ${key}: true`, continuation: { kind: 'none' } };
  }
  if (s.truncated === true) {
    return {
      code: 'RESULT_LIMIT_REACHED',
      message: 'the result says truncated: true',
      continuation: { kind: 'narrow_query' },
    };
  }
  if (s.incomplete_results === true) {
    return {
      code: 'TIME_BUDGET_EXCEEDED',
      message: 'the result says incomplete_results: true',
      continuation: { kind: 'retry_with_deadline' },
    };
  }
  for (const key of MORE_KEYS) {
    if (s[key] === false)
      return { message: `the result says ${key}: false`, continuation: { kind: 'none' }, complete: true };
  }
  return undefined;
}

/** The policy's `items` path, else `items`, else the only array-valued field. */
function collectionIn(s: Record<string, unknown> | undefined, policy: ToolPolicy | undefined): unknown[] | undefined {
  if (!s) return undefined;
  if (policy?.items) {
    const v = valueAt(s, policy.items);
    return Array.isArray(v) ? v : undefined;
  }
  if (Array.isArray(s.items)) return s.items;
  let only: unknown[] | undefined;
  for (const v of Object.values(s)) {
    if (!Array.isArray(v)) continue;
    if (only) return undefined;
    only = v;
  }
  return only;
}

/** With an `itemId` path, items become `{ id }` so a guard can compare targets with what was seen. */
function idsOf(items: unknown[] | undefined, policy: ToolPolicy | undefined): unknown[] | undefined {
  if (!items || !policy?.itemId) return items;
  const path = policy.itemId;
  return items.map((item) => ({ id: valuesAt(item, path)[0] }));
}
