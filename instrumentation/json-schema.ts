/** The contract envelope as JSON Schema (draft 2020-12), for runtimes in other languages. */
import { z } from 'zod';
import { SEMCONV_VERSION, ToolResultSchema } from '../contract/index.ts';

export const CONTRACT_SCHEMA_ID = `https://tooltrail.dev/schemas/tool-result/${SEMCONV_VERSION}.json`;

/** What a tool may send (input shape: fields with defaults are optional). */
export function contractJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ToolResultSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return { ...schema, $id: CONTRACT_SCHEMA_ID };
}
