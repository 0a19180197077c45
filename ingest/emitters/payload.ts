/**
 * What an emitter recorded as a tool's result or arguments, as the object it stands for. Emitters wrap the value:
 * JSON text inside a JSON string (the AI SDK), a LangChain message (`kwargs.content`) inside `{output}`
 * (OpenInference), Python's `{args, kwargs}` (OpenLLMetry), an MCP `CallToolResult`
 * (`structuredContent`, else its only text). A text that does not parse (cut by the emitter's own length limit, or
 * plain prose) gives nothing: its completeness stays unknown, never complete.
 */
import { isObject, MAX_JSON_TEXT } from '../../contract/index.ts';

export interface Recorded {
  /** The object, when the text was one (after unwrapping). */
  value?: Record<string, unknown>;
  /** The text looked like JSON but did not parse: cut by the emitter. */
  cut: boolean;
  /** An MCP result that said `isError: true`. */
  error: boolean;
}

const NOTHING: Recorded = { cut: false, error: false };
const CUT: Recorded = { cut: true, error: false };

/** How many wrappings are undone at most (a string in a message in a string...). */
const MAX_UNWRAP = 4;

export function readRecorded(text: string | undefined): Recorded {
  if (text === undefined || text.length === 0) return NOTHING;
  let v: unknown = text;
  for (let depth = 0; depth < MAX_UNWRAP; depth++) {
    if (typeof v === 'string') {
      const s = v.trimStart();
      const c = s.charCodeAt(0);
      // Only an object, an array or a string can be a wrapped result; prose is not.
      if (c !== 123 /* { */ && c !== 91 /* [ */ && c !== 34 /* " */) return NOTHING;
      if (s.length > MAX_JSON_TEXT) return NOTHING;
      try {
        v = JSON.parse(s);
      } catch {
        return CUT;
      }
      continue;
    }
    if (!isObject(v)) return NOTHING;
    const inner = unwrap(v);
    if (inner === undefined) return { value: v, cut: false, error: false };
    if (inner === ERROR) return { cut: false, error: true };
    v = inner;
  }
  return isObject(v) ? { value: v, cut: false, error: false } : NOTHING;
}

const ERROR = Symbol('error');

/** The value inside a known wrapper; undefined when `o` is the result itself. */
function unwrap(o: Record<string, unknown>): unknown {
  // OpenInference's LangChain output: {output: <the serialised ToolMessage>}.
  if (isObject(o.output) && Object.keys(o).length === 1) return o.output;
  // OpenLLMetry's arguments of a Python function: {args: [...], kwargs: {...}}.
  if (Array.isArray(o.args) && isObject(o.kwargs) && Object.keys(o).length === 2) return o.kwargs;
  // LangChain's serialised message: {lc: 1, type: 'constructor', id: [..., 'ToolMessage'], kwargs: {content}}.
  if (o.lc === 1 && isObject(o.kwargs) && 'content' in o.kwargs) return textOf(o.kwargs.content);
  // An MCP CallToolResult.
  if (Array.isArray(o.content) && ('structuredContent' in o || 'isError' in o || onlyTextParts(o.content))) {
    if (o.isError === true) return ERROR;
    if (isObject(o.structuredContent)) return o.structuredContent;
    return textOf(o.content);
  }
  return undefined;
}

function onlyTextParts(content: unknown[]): boolean {
  return content.length > 0 && content.every((c) => isObject(c) && c.type === 'text' && typeof c.text === 'string');
}

/** A message content: a string, or the only text part of a list of parts. */
function textOf(content: unknown): unknown {
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.length === 1 && isObject(content[0]) && typeof content[0].text === 'string') {
    return content[0].text;
  }
  return content;
}
