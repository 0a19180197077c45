/**
 * Completeness read from what an MCP server returned: the tooltrail contract in `structuredContent` when the server
 * speaks it, else the shapes servers actually return (cursors, `hasMore`, `truncated`, `incomplete_results`, a text
 * cut at a declared size), else unknown, which counts as incomplete. Items are reduced to their ids for the guard.
 */
import type { ReasonCode } from '../contract/index.ts';
import { type Continuation, type ToolResult, ToolResultRuntimeSchema } from '../contract/index.ts';
import { type ToolPolicy, valueAt, valuesAt } from './policy.ts';

/** How the completeness was known. */
export type Recognized = 'contract' | 'shape' | 'declared' | 'unknown' | 'error';

export interface ReadCompleteness {
  result: ToolResult;
  recognized: Recognized;
}

/** Largest text content parsed as JSON when looking for shapes (bigger ones are not scanned). */
const MAX_JSON_TEXT = 1_000_000;

const CURSOR_KEYS = ['nextCursor', 'next_cursor', 'nextPageToken', 'next_page_token'] as const;
const MORE_KEYS = ['hasMore', 'has_more'] as const;

interface ResultLike {
  isError?: unknown;
  content?: unknown;
  structuredContent?: unknown;
}

export function readCompleteness(raw: unknown, policy: ToolPolicy | undefined): ReadCompleteness {
  const result = (raw ?? {}) as ResultLike;
  const scope = policy?.resource ? { resource: policy.resource } : undefined;
  if (result.isError === true) {
    return {
      result: {
        status: 'error',
        completeness: { complete: false, reasons: [], continuation: { kind: 'none' } },
        error: { type: 'tool_error', message: 'the MCP tool returned isError' },
        ...(scope ? { scope } : {}),
        warnings: [],
      },
      recognized: 'error',
    };
  }
  const structured = isObject(result.structuredContent) ? result.structuredContent : jsonText(result.content);
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
  const cut = policy?.textLimit !== undefined ? longestText(result.content) >= policy.textLimit : false;
  if (cut) {
    return {
      result: {
        status: 'partial',
        completeness: {
          complete: false,
          reasons: [
            {
              code: 'RESULT_LIMIT_REACHED',
              message: `a text result reached the declared limit of ${policy?.textLimit} chars`,
              limit: policy?.textLimit,
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
        reasons: [{ code: 'COMPLETENESS_UNKNOWN', message: 'the MCP server said nothing about completeness' }],
        continuation: { kind: 'none' },
      },
      ...body,
    },
    recognized: 'unknown',
  };
}

/** `tools/list`, `resources/list`, `prompts/list`: the spec's `nextCursor` is the only signal, and its absence is the end. */
export function readListCompleteness(raw: unknown, listKey: string): ReadCompleteness {
  const result = isObject(raw) ? raw : {};
  const list = result[listKey];
  const items = Array.isArray(list) ? list : [];
  const cursor = result.nextCursor;
  if (typeof cursor === 'string' && cursor.length > 0) {
    return {
      result: {
        status: 'partial',
        completeness: {
          complete: false,
          reasons: [{ code: 'MORE_PAGES_AVAILABLE', message: 'the list carries a nextCursor' }],
          continuation: { kind: 'next_cursor', cursor },
        },
        items,
        warnings: [],
      },
      recognized: 'shape',
    };
  }
  return {
    result: {
      status: 'complete',
      completeness: { complete: true, reasons: [], continuation: { kind: 'none' } },
      items,
      warnings: [],
    },
    recognized: 'shape',
  };
}

interface ShapeSignal {
  code?: ReasonCode;
  message: string;
  continuation: Continuation;
  /** An explicit `hasMore: false`: the server said this is everything. */
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

/** With an `itemId` path, items become `{ id }` so the guard can compare targets with what was seen. */
function idsOf(items: unknown[] | undefined, policy: ToolPolicy | undefined): unknown[] | undefined {
  if (!items || !policy?.itemId) return items;
  const path = policy.itemId;
  return items.map((item) => ({ id: valuesAt(item, path)[0] }));
}

/** A server without structuredContent often returns its JSON as the only text: read the shapes there too. */
function jsonText(content: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(content) || content.length !== 1) return undefined;
  const first = content[0] as { type?: unknown; text?: unknown };
  if (first?.type !== 'text' || typeof first.text !== 'string') return undefined;
  const text = first.text;
  if (text.length > MAX_JSON_TEXT || text.charCodeAt(0) !== 123 /* { */) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function longestText(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let max = 0;
  for (const c of content as { type?: unknown; text?: unknown }[]) {
    if (c?.type === 'text' && typeof c.text === 'string' && c.text.length > max) max = c.text.length;
  }
  return max;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
