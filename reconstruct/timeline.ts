/**
 * The reconstruction as data: one zod schema is the TypeScript type, the runtime check, and the JSON Schema that
 * `tooltrail reconstruct --json` output is published against (`reconstructionJsonSchema()`,
 * `reconstruct/reconstruction.schema.json`). Gaps are entries of the timeline, never footnotes: a reader walking
 * the entries meets each missing piece where it would have been.
 */
import { z } from 'zod';

export const RECONSTRUCTION_FORMAT = 'tooltrail.reconstruction' as const;
export const RECONSTRUCTION_VERSION = 1 as const;

/** UTC instant, ISO 8601 with nanoseconds (`2026-03-01T10:00:00.123456789Z`); exact, unlike a JS Date. */
export const InstantSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/)
  .describe('UTC, ISO 8601 with nanoseconds');

/** `complete` said true / said false / said nothing (which counts as incomplete, never as complete). */
export const COMPLETENESS = ['complete', 'incomplete', 'unknown'] as const;
export type Completeness = (typeof COMPLETENESS)[number];

export const BLIND_SPOT_KINDS = [
  'pages_not_fetched',
  'result_limit',
  'time_budget',
  'source_unavailable',
  'visibility_restricted',
  'client_limit',
  'cursor_expired',
  'rate_limited',
  'completeness_unknown',
  'tool_error',
  'traversal_broken',
  'other_reason',
] as const;

/** One thing a call could not see, stated plainly. */
export const BlindSpotSchema = z
  .object({
    kind: z.enum(BLIND_SPOT_KINDS),
    /** The reason code it comes from, when it comes from one. */
    reason: z.string().nullable(),
    statement: z.string(),
  })
  .meta({ id: 'BlindSpot' });

export const WarningDetailSchema = z
  .object({
    code: z.string(),
    source: z.string().nullable().describe('null when only the code was recorded (no warning event)'),
    message: z.string().nullable(),
  })
  .meta({ id: 'WarningDetail' });

/** A read as a mutation's evidence link shows it. */
export const ReadRefSchema = z
  .object({
    span_id: z.string(),
    trace_id: z.string(),
    tool_call_id: z.string(),
    tool_name: z.string(),
    session_id: z.string(),
    in_session: z.boolean().describe('false: the read belongs to another session of the same tenant'),
    position: z.number().int().positive().nullable().describe('its entry position in this timeline, if in it'),
    sequence: z.number().int().nonnegative().nullable(),
    time: InstantSchema,
    completeness: z.enum(COMPLETENESS),
    reasons: z.array(z.string()),
    item_count: z.number().int().nullable(),
    snapshot: z.string().nullable(),
    traversal_id: z.string().nullable().describe('the cursor traversal it is a page of, judged as a whole'),
  })
  .meta({ id: 'ReadRef' });

/** A cursor traversal as one read: its pages and whether, as a whole, it was complete. */
export const TraversalRefSchema = z
  .object({
    id: z.string().describe('tooltrail.traversal.id: the gen_ai.tool.call.id of its first page'),
    pages: z.number().int().nonnegative(),
    complete: z.boolean(),
    statement: z.string().describe('e.g. "3 pages, complete over snapshot inv-77", "2 pages, stopped at page 2 ..."'),
  })
  .meta({ id: 'TraversalRef' });

export const EvidenceLinkSchema = z
  .object({
    via: z.enum(['call_id', 'snapshot']).describe('tooltrail.mutation.evidence_call_ids or evidence_snapshots'),
    ref: z.string(),
    found: z.boolean(),
    reads: z.array(ReadRefSchema).describe('the stored reads the reference resolves to; empty when not stored'),
    traversals: z
      .array(TraversalRefSchema)
      .describe('the cursor traversals those reads are pages of, as they stood when the mutation ran'),
  })
  .meta({ id: 'EvidenceLink' });

export const CONCERN_CODES = [
  'ACTED_ON_ABSENCE_WITH_INCOMPLETE_EVIDENCE',
  'EVIDENCE_INCOMPLETE',
  'EVIDENCE_NOT_STORED',
  'NO_EVIDENCE_DECLARED',
] as const;

export const ConcernSchema = z.object({ code: z.enum(CONCERN_CODES), statement: z.string() }).meta({ id: 'Concern' });

export const MutationSchema = z
  .object({
    basis: z.string().nullable().describe('presence | absence; null when the span did not say'),
    target_count: z.number().int().nullable(),
    evidence: z.array(EvidenceLinkSchema),
    concerns: z.array(ConcernSchema),
  })
  .meta({ id: 'Mutation' });

export const CallEntrySchema = z
  .object({
    kind: z.literal('call'),
    position: z.number().int().positive(),
    sequence: z.number().int().nonnegative().nullable(),
    time: InstantSchema,
    end_time: InstantSchema,
    duration_ms: z.number().nonnegative(),
    trace_id: z.string(),
    span_id: z.string(),
    parent_span_id: z.string().nullable(),
    parent_name: z.string().nullable().describe('name of the parent span when it is stored'),
    tool_call_id: z.string(),
    tool_name: z.string(),
    agent_name: z.string(),
    agent_id: z.string(),
    service_name: z.string(),
    effect: z.enum(['read', 'mutation', 'unknown']),
    result_status: z.string().nullable(),
    span_status: z.object({ code: z.string(), message: z.string().nullable() }),
    completeness: z.enum(COMPLETENESS),
    item_count: z.number().int().nullable(),
    reasons: z.array(z.string()),
    continuation: z.string().nullable(),
    scope: z.object({
      resource: z.string().nullable(),
      visibility: z.string().nullable(),
      snapshot: z.string().nullable(),
    }),
    warnings: z.array(WarningDetailSchema),
    guard_decision: z.string().nullable().describe('allowed | refused | review_requested; null when no guard ran'),
    mutation: MutationSchema.nullable(),
    could_not_see: z.array(BlindSpotSchema),
    traversal: z
      .object({
        id: z.string(),
        page: z.number().int().positive().nullable().describe('its position; null when the emitter did not know it'),
      })
      .nullable()
      .describe('a page of a cursor traversal (the session timeline lists the traversal as one read)'),
  })
  .meta({ id: 'CallEntry' });

/** A cursor traversal of the session: one read made of pages, with where it stands as a whole. */
export const TraversalSchema = TraversalRefSchema.extend({
  tool_name: z.string(),
  entries: z.array(z.number().int().positive()).describe('the timeline positions of its pages, in order'),
  snapshot: z.string().nullable().describe('the one snapshot its pages declared, when they agree'),
  break: z.string().nullable().describe('SNAPSHOT_CHANGED, CURSOR_EXPIRED, CURSOR_NOT_RECEIVED or PAGE_SKIPPED'),
  stopped_at: z.number().int().positive().nullable().describe('incomplete without a break: the page it stopped at'),
}).meta({ id: 'Traversal' });

export const GapDetailSchema = z
  .discriminatedUnion('type', [
    z.object({
      type: z.literal('missing_sequence'),
      from_sequence: z.number().int().nonnegative(),
      to_sequence: z.number().int().nonnegative(),
      count: z.number().int().positive(),
    }),
    z.object({
      type: z.literal('missing_parent'),
      trace_id: z.string(),
      missing_span_id: z.string().describe('the parent span id that never arrived'),
      children: z.array(z.string()).describe('stored spans whose parent it is'),
      affected_calls: z.array(z.string()).describe('span ids of this session’s calls below it'),
    }),
    z.object({
      type: z.literal('missing_evidence'),
      mutation_span_id: z.string(),
      via: z.enum(['call_id', 'snapshot']),
      ref: z.string(),
    }),
  ])
  .meta({ id: 'GapDetail' });

export const GapEntrySchema = z
  .object({
    kind: z.literal('gap'),
    position: z.number().int().positive(),
    time: InstantSchema.nullable().describe('when it would have been, if known'),
    statement: z.string(),
    gap: GapDetailSchema,
  })
  .meta({ id: 'GapEntry' });

export const EntrySchema = z.discriminatedUnion('kind', [CallEntrySchema, GapEntrySchema]).meta({ id: 'Entry' });

/** Whether the reconstruction itself is complete: it follows the contract it reports on. */
export const ReconstructionCompletenessSchema = z.object({
  complete: z.boolean(),
  reasons: z.array(z.string()),
  statement: z.string().nullable(),
});

export const SessionTimelineSchema = z
  .object({
    tenant: z.string(),
    session_id: z.string().describe('empty for calls that carried no gen_ai.conversation.id (trace view)'),
    trace_ids: z.array(z.string()),
    agents: z.array(z.object({ name: z.string(), id: z.string() })),
    started_at: InstantSchema,
    ended_at: InstantSchema,
    summary: z.object({
      calls: z.number().int().nonnegative(),
      reads: z.number().int().nonnegative(),
      mutations: z.number().int().nonnegative(),
      incomplete_reads: z.number().int().nonnegative(),
      unknown_reads: z.number().int().nonnegative(),
      gaps: z.number().int().nonnegative(),
      mutations_with_concerns: z.number().int().nonnegative(),
      traversals: z.number().int().nonnegative().describe('cursor traversals of several pages'),
    }),
    traversals: z.array(TraversalSchema),
    could_not_see: z.array(z.string()).describe('plain statements of every blind spot and gap, in timeline order'),
    notes: z.array(z.string()),
    reconstruction: ReconstructionCompletenessSchema,
    entries: z.array(EntrySchema),
  })
  .meta({ id: 'SessionTimeline' });

export const SubjectSchema = z.object({
  kind: z.enum(['session', 'trace', 'finding']),
  id: z.string(),
  tenant: z.string().nullable(),
});

export const ReconstructionSchema = z
  .object({
    format: z.literal(RECONSTRUCTION_FORMAT),
    version: z.literal(RECONSTRUCTION_VERSION),
    generated_at: z.string().describe('ISO 8601'),
    subject: SubjectSchema,
    finding: z
      .object({
        fingerprint: z.string(),
        kind: z.string().describe('the detector kind, e.g. mutation_after_incomplete_read'),
        summary: z.string(),
        session_id: z.string().nullable(),
        trace_id: z.string().nullable(),
        mutation_span_id: z.string().nullable().describe('the mutation the finding is about'),
      })
      .nullable()
      .describe('the alert finding the reconstruction started from'),
    sessions: z.array(SessionTimelineSchema),
  })
  .meta({
    id: 'Reconstruction',
    title: 'tooltrail reconstruction',
    description: 'What an agent saw, what it could not see, and on what it acted.',
  });

export type BlindSpot = z.infer<typeof BlindSpotSchema>;
export type WarningDetail = z.infer<typeof WarningDetailSchema>;
export type ReadRef = z.infer<typeof ReadRefSchema>;
export type EvidenceLink = z.infer<typeof EvidenceLinkSchema>;
export type TraversalRef = z.infer<typeof TraversalRefSchema>;
export type Traversal = z.infer<typeof TraversalSchema>;
export type Concern = z.infer<typeof ConcernSchema>;
export type Mutation = z.infer<typeof MutationSchema>;
export type CallEntry = z.infer<typeof CallEntrySchema>;
export type GapDetail = z.infer<typeof GapDetailSchema>;
export type GapEntry = z.infer<typeof GapEntrySchema>;
export type Entry = z.infer<typeof EntrySchema>;
export type SessionTimeline = z.infer<typeof SessionTimelineSchema>;
export type Subject = z.infer<typeof SubjectSchema>;
export type Reconstruction = z.infer<typeof ReconstructionSchema>;

/** The JSON Schema of `--json` output (draft 2020-12). */
export function reconstructionJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ReconstructionSchema, { target: 'draft-2020-12' }) as Record<string, unknown>;
}
