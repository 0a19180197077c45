/**
 * Which emitter's tool span a span is, if any: a span carrying any `tooltrail.*` attribute speaks the contract and is
 * not normalised; every other span keeps today's verdict (contract/attribute-values.ts).
 */
import {
  AiSdk,
  EMITTER_SHAPES,
  type EmitterShape,
  EXECUTE_TOOL,
  GenAi,
  MCP_TOOLS_CALL,
  McpAttr,
  OpenInference,
  OpenLLMetry,
} from '../../contract/index.ts';
import type { KeyValue } from '../../platform/otlp/index.ts';

const CONTRACT_PREFIX = 'tooltrail.';

/** The column path (ingest/columns/rows.ts isToolSpan) declines exactly the spans this recognises. */
export function recognizeEmitter(attrs: readonly KeyValue[] | null | undefined): EmitterShape | undefined {
  if (!attrs) return undefined;
  let found: EmitterShape | undefined;
  let rank = 0;
  for (const kv of attrs) {
    const key = kv.key;
    if (key == null) continue;
    if (key.startsWith(CONTRACT_PREFIX)) return undefined;
    const s = kv.value?.stringValue;
    // The most specific mark wins: an MCP or OpenInference span may also say `execute_tool`.
    if (key === OpenInference.SPAN_KIND && s === OpenInference.TOOL)
      [found, rank] = pick(found, rank, 'openinference', 4);
    else if (key === OpenLLMetry.SPAN_KIND && s === OpenLLMetry.TOOL)
      [found, rank] = pick(found, rank, 'openllmetry', 4);
    else if (key === AiSdk.TOOL_NAME) [found, rank] = pick(found, rank, 'ai-sdk', 3);
    else if (key === McpAttr.METHOD_NAME && s === MCP_TOOLS_CALL) [found, rank] = pick(found, rank, 'mcp', 2);
    else if (key === GenAi.OPERATION_NAME && s === EXECUTE_TOOL) [found, rank] = pick(found, rank, 'genai', 1);
  }
  return found;
}

function pick(
  found: EmitterShape | undefined,
  rank: number,
  name: EmitterShape['name'],
  r: number,
): [EmitterShape | undefined, number] {
  return r > rank ? [EMITTER_SHAPES[name], r] : [found, rank];
}
