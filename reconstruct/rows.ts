/**
 * The rows the reconstruction reads, as its SQL selects them (64-bit values as decimal strings, times as unix
 * nanoseconds), checked with zod at the edge so the builder receives typed values.
 */
import { z } from 'zod';

const decimal = z.string().regex(/^-?\d+$/);

export const CallRowSchema = z.object({
  tenant: z.string(),
  session_id: z.string(),
  sequence: decimal.nullable(),
  start_ns: decimal,
  end_ns: decimal,
  trace_id: z.string(),
  span_id: z.string(),
  parent_span_id: z.string(),
  tool_call_id: z.string(),
  tool_name: z.string(),
  agent_name: z.string(),
  agent_id: z.string(),
  service_name: z.string(),
  effect: z.string(),
  span_status_code: z.string(),
  span_status_message: z.string(),
  result_status: z.string(),
  result_complete: z.boolean(),
  complete_reported: z.boolean(),
  result_reasons: z.array(z.string()),
  result_item_count: decimal.nullable(),
  result_continuation: z.string(),
  scope_resource: z.string(),
  scope_visibility: z.string(),
  scope_snapshot: z.string(),
  warnings: z.array(z.string()),
  mutation_basis: z.string(),
  mutation_target_count: decimal.nullable(),
  evidence_snapshots: z.array(z.string()),
  evidence_call_ids: z.array(z.string()),
  guard_decision: z.string(),
});
export type CallRow = z.infer<typeof CallRowSchema>;

export const KnownSpanSchema = z.object({
  trace_id: z.string(),
  span_id: z.string(),
  parent_span_id: z.string(),
  name: z.string(),
});
export type KnownSpan = z.infer<typeof KnownSpanSchema>;

export const WarningDetailRowSchema = z.object({
  span_id: z.string(),
  code: z.string(),
  source: z.string(),
  message: z.string(),
});
export type WarningDetailRow = z.infer<typeof WarningDetailRowSchema>;

/** Everything the builder needs about one session, loaded by reconstruct.ts (or built by hand in unit tests). */
export interface SessionData {
  tenant: string;
  sessionId: string;
  /** The session's calls in time order. */
  calls: CallRow[];
  /** True when the session had more calls than were loaded. */
  truncated: boolean;
  /** Every stored span (context and tool) of the traces the calls ran in. */
  knownSpans: KnownSpan[];
  /** Warning details of the session's calls. */
  warnings: WarningDetailRow[];
  /** Stored calls the mutations reference as evidence, in or outside this session. */
  referencedReads: CallRow[];
}
