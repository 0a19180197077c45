/**
 * A finding: what a detector found, with its owner and fingerprint. This shape is the JSON of
 * `tooltrail findings --json` (an array of these; JSON Schema in ./finding.schema.json, generated from this
 * zod schema and checked by a test) and the source of the `findings` table rows and the Alertmanager alerts.
 */
import { z } from 'zod';

export const FINDING_KINDS = [
  'mutation_after_incomplete_read',
  'absence_mutation_without_complete_evidence',
  'dangerous_empty_reads',
  'persistent_unowned_warning',
  'warning_past_deadline',
  'warning_retirement_proposed',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/** Kinds about one mutation: an event that fires for alerts.findingActiveSeconds, then expires. */
export const MUTATION_KINDS: ReadonlySet<FindingKind> = new Set([
  'mutation_after_incomplete_read',
  'absence_mutation_without_complete_evidence',
]);

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

const isoTime = z.iso.datetime();

export const FindingSchema = z
  .object({
    kind: z.enum(FINDING_KINDS),
    /** Stable id: the same thing found by any run of any evaluator has the same fingerprint. */
    fingerprint: z.string().regex(/^[0-9a-f]{16}$/),
    severity: z.enum(SEVERITIES),
    /** The score the severity came from (alerts/README.md). */
    score: z.number().int().min(0).max(255),
    tenant: z.string(),
    /** The agent session (gen_ai.conversation.id) of a mutation finding. */
    session: z.string().nullable(),
    trace_id: z.string().nullable(),
    mutation_span_id: z.string().nullable(),
    /** The incomplete reads the mutation followed, with their trace ids and tools (same order). */
    read_span_ids: z.array(z.string()),
    read_trace_ids: z.array(z.string()),
    read_tools: z.array(z.string()),
    /** Incomplete reason codes of those reads (COMPLETENESS_UNKNOWN when a read said nothing). */
    reasons: z.array(z.string()),
    /** Declared evidence (snapshots, call ids) that no complete read matched. */
    missing_evidence: z.array(z.string()),
    /** Resolved owner; null: nobody owns it, the alert goes to the escalation receiver. */
    owner: z.string().nullable(),
    team: z.string().nullable(),
    tool: z.string().nullable(),
    agent: z.string().nullable(),
    scope_resource: z.string().nullable(),
    mutation_basis: z.string().nullable(),
    target_count: z.number().int().nullable(),
    /** null: no guard ran. */
    guard_decision: z.string().nullable(),
    incomplete_empty: z.boolean(),
    /** The mutation's start; a warning's last occurrence; a rate's window end. */
    event_time: isoTime,
    summary: z.string(),
    warning: z
      .object({
        code: z.string(),
        source: z.string(),
        days_seen: z.number().int(),
        window_days: z.number().int(),
        occurrences: z.number().int(),
        first_seen: isoTime,
        last_seen: isoTime,
        state: z.enum(['active', 'acknowledged', 'escalated', 'retired']),
        deadline: isoTime.nullable(),
      })
      .nullable(),
    rate: z
      .object({
        reason: z.string(),
        incomplete_empty_reads: z.number().int(),
        total_reads: z.number().int(),
        rate: z.number(),
        window_seconds: z.number().int(),
      })
      .nullable(),
    /** How to see what the agent saw: the CLI command and, when configured, a link. */
    reconstruct: z.object({ command: z.string(), url: z.string().nullable() }).nullable(),
  })
  .strict();
export type Finding = z.infer<typeof FindingSchema>;

export const FindingListSchema = z.array(FindingSchema);
