/**
 * The rows the reconstruction reads, as its SQL selects them (64-bit values as decimal strings, times as unix
 * nanoseconds), checked with zod at the edge so the builder receives typed values. Column types come from the
 * table definition (schema/readers.ts).
 */
import { z } from 'zod';
import { readerShape } from '../schema/readers.ts';
import { TOOL_CALL_WARNINGS, TOOL_CALLS } from '../schema/tables.ts';

const decimal = z.string().regex(/^-?\d+$/);

export const CallRowSchema = z.object({
  ...readerShape(TOOL_CALLS, [
    'tenant',
    'session_id',
    'sequence',
    'trace_id',
    'span_id',
    'parent_span_id',
    'tool_call_id',
    'tool_name',
    'agent_name',
    'agent_id',
    'service_name',
    'effect',
    'span_status_code',
    'span_status_message',
    'result_status',
    'result_complete',
    'complete_reported',
    'result_reasons',
    'result_item_count',
    'result_continuation',
    'scope_resource',
    'scope_visibility',
    'scope_snapshot',
    'warnings',
    'mutation_basis',
    'mutation_target_count',
    'evidence_snapshots',
    'evidence_call_ids',
    'guard_decision',
  ]),
  // The SQL selects the instants as unix nanoseconds.
  start_ns: decimal,
  end_ns: decimal,
  // A page of a cursor traversal (tool_calls.attributes, semconv 1.5.0); absent on reads before it.
  traversal_id: z.string().optional(),
  traversal_page: z.number().int().nonnegative().optional(),
  traversal_break: z.string().optional(),
});
export type CallRow = z.infer<typeof CallRowSchema>;

export const KnownSpanSchema = z.object({
  ...readerShape(TOOL_CALLS, ['trace_id', 'span_id', 'parent_span_id']),
  name: z.string(),
});
export type KnownSpan = z.infer<typeof KnownSpanSchema>;

export const WarningDetailRowSchema = z.object(
  readerShape(TOOL_CALL_WARNINGS, ['span_id', 'code', 'source', 'message']),
);
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
