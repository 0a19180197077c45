/** What an emitter's tool span says of its call, read from the emitter's own keys (contract/emitters.ts). */
import { type EmitterShape, GenAi } from '../../contract/index.ts';
import { int64ToString, type KeyValue, type Span } from '../../platform/otlp/index.ts';

export interface CallParts {
  toolName: string | undefined;
  /** The name came from another key than `gen_ai.tool.name`, or from the span name. */
  toolNameInferred: boolean;
  callId: string | undefined;
  argsText: string | undefined;
  resultText: string | undefined;
}

export function readParts(span: Span, shape: EmitterShape): CallParts {
  const attrs = span.attributes ?? [];
  const toolName = first(attrs, shape.toolName) ?? fromSpanName(span.name ?? '', shape);
  return {
    toolName,
    toolNameInferred: toolName !== undefined && textOf(attrs, GenAi.TOOL_NAME) !== toolName,
    callId: first(attrs, shape.callId),
    argsText: first(attrs, shape.arguments),
    resultText: first(attrs, shape.result),
  };
}

function fromSpanName(name: string, shape: EmitterShape): string | undefined {
  if (shape.spanNamePrefix !== undefined && name.startsWith(shape.spanNamePrefix)) {
    return name.slice(shape.spanNamePrefix.length) || undefined;
  }
  if (shape.spanNameSuffix !== undefined && name.endsWith(shape.spanNameSuffix)) {
    return name.slice(0, -shape.spanNameSuffix.length) || undefined;
  }
  return undefined;
}

/** The text of the first of `keys` present (a string, or an id sent as a number). */
function first(attrs: readonly KeyValue[], keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const t = textOf(attrs, key);
    if (t !== undefined) return t;
  }
  return undefined;
}

function textOf(attrs: readonly KeyValue[], key: string): string | undefined {
  for (const kv of attrs) {
    if (kv.key !== key) continue;
    const v = kv.value;
    if (v?.stringValue != null && v.stringValue !== '') return v.stringValue;
    if (v?.intValue != null) return int64ToString(v.intValue);
    return undefined;
  }
  return undefined;
}
