/**
 * Why the column path leaves a message to the general path (flatten), by name: each decline is counted by reason
 * in the ingest's metrics (`tooltrail_ingest_column_path_declines_total`). Anything else thrown is a bug and surfaces.
 */
import { OUTSIDE as OUTSIDE$ } from '../../platform/otlp/reader/index.ts';

const OUTSIDE = OUTSIDE$;

export const DECLINE_REASONS = [
  /** Bytes outside the OTLP reader's subset (platform/otlp/reader/read.ts). */
  'wire_subset',
  /** No tenant, or a claimed one outside the tenant rule: the general path rejects the spans. */
  'tenant',
  /** A trace or span id of the wrong length or all zero: rejected by the general path. */
  'id',
  /** A span without its start or end time. */
  'times',
  /** A duration the columns do not hold (end far before or after start). */
  'duration',
  /** Scope attributes (the columns have none). */
  'scope_attributes',
  /** An attribute a plain map would not hold as it is (bytes, a key-value list, a mixed array, a repeated key...). */
  'attribute_shape',
  /** A `tooltrail.*` attribute the general path stores flagged or coerced. */
  'flagged_attribute',
  /** A tool call recognised only by what it carries, not by its operation (flatten decides it). */
  'tool_call_shape',
  /** Another emitter's tool span (OpenInference, OpenLLMetry, AI SDK, MCP, GenAI without tooltrail attributes). */
  'emitter_tool_span',
  /** Prompts, messages or tool payloads on a span that is not a tool call (contract/emitters.ts CONTENT_KEYS). */
  'content_attribute',
] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/** The reason of the decline under way (set just before OUTSIDE is thrown; read once the reader has stopped). */
export const declined: { reason: DeclineReason } = { reason: 'wire_subset' };

/** Stops the read: the message takes the general path, for `reason`. */
export function decline(reason: DeclineReason): never {
  declined.reason = reason;
  throw OUTSIDE;
}
