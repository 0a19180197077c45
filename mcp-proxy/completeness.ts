/**
 * Completeness read from what an MCP server returned: the tooltrail contract in `structuredContent` when the server
 * speaks it, else the shapes servers actually return (contract/result-shapes.ts), in `structuredContent` or in the
 * only text content, or a text cut at a declared size; else unknown, which counts as incomplete.
 */
import {
  isObject,
  parseJsonObject,
  type ReadCompleteness,
  readResultShapes,
  type ToolPolicy,
} from '../contract/index.ts';

interface ResultLike {
  isError?: unknown;
  content?: unknown;
  structuredContent?: unknown;
}

export function readCompleteness(raw: unknown, policy: ToolPolicy | undefined): ReadCompleteness {
  const result = (raw ?? {}) as ResultLike;
  if (result.isError === true) {
    const scope = policy?.resource ? { resource: policy.resource } : undefined;
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
  const cut = policy?.textLimit !== undefined && longestText(result.content) >= policy.textLimit;
  return readResultShapes(structured, policy, {
    ...(cut ? { cutAt: policy?.textLimit } : {}),
    unknownMessage: 'the MCP server said nothing about completeness',
  });
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

/** A server without structuredContent often returns its JSON as the only text: read the shapes there too. */
function jsonText(content: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(content) || content.length !== 1) return undefined;
  const first = content[0] as { type?: unknown; text?: unknown };
  if (first?.type !== 'text' || typeof first.text !== 'string') return undefined;
  return parseJsonObject(first.text);
}

function longestText(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let max = 0;
  for (const c of content as { type?: unknown; text?: unknown }[]) {
    if (c?.type === 'text' && typeof c.text === 'string' && c.text.length > max) max = c.text.length;
  }
  return max;
}
