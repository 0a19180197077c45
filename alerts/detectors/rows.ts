/**
 * The rows each detector returns, parsed at the boundary (ClickHouse's JSON quotes 64-bit integers and prints
 * DateTime64 as `YYYY-MM-DD hh:mm:ss.fffffffff` in UTC).
 */
import { z } from 'zod';

/** `2026-01-02 03:04:05.123456789` (UTC) -> `2026-01-02T03:04:05.123Z`. */
export function chTimeToIso(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z?$/.exec(text);
  if (!m) throw new Error(`not a ClickHouse DateTime: "${text}"`);
  const ms = (m[3] ?? '').padEnd(3, '0').slice(0, 3);
  return `${m[1]}T${m[2]}.${ms}Z`;
}

const chTime = z.string().transform(chTimeToIso);
const chInt = z.union([z.number(), z.string()]).transform((v) => Number(v));
const chNullableInt = z.union([z.number(), z.string(), z.null()]).transform((v) => (v === null ? null : Number(v)));
const chBool = z.union([z.boolean(), z.number()]).transform((v) => Boolean(v));

const mutationColumns = {
  kind: z.string(),
  tenant: z.string(),
  session: z.string(),
  trace_id: z.string(),
  mutation_span_id: z.string(),
  mutation_tool_call_id: z.string(),
  mutation_time: chTime,
  tool_name: z.string(),
  agent_name: z.string(),
  scope_resource: z.string(),
  mutation_basis: z.string(),
  target_count: chNullableInt,
  guard_decision: z.string(),
  evidence_snapshots: z.array(z.string()),
  evidence_call_ids: z.array(z.string()),
  score: chInt,
  severity: z.enum(['info', 'warning', 'critical']),
};

export const MutationAfterIncompleteReadRow = z.object({
  ...mutationColumns,
  kind: z.literal('mutation_after_incomplete_read'),
  read_span_ids: z.array(z.string()),
  read_trace_ids: z.array(z.string()),
  read_tool_names: z.array(z.string()),
  reasons: z.array(z.string()),
  incomplete_empty: chBool,
});
export type MutationAfterIncompleteReadRow = z.infer<typeof MutationAfterIncompleteReadRow>;

export const AbsenceMutationRow = z.object({
  ...mutationColumns,
  kind: z.literal('absence_mutation_without_complete_evidence'),
  missing_evidence: z.array(z.string()),
});
export type AbsenceMutationRow = z.infer<typeof AbsenceMutationRow>;

export const DangerousEmptyReadsRow = z.object({
  kind: z.literal('dangerous_empty_reads'),
  tenant: z.string(),
  tool_name: z.string(),
  reason: z.string(),
  incomplete_empty_reads: chInt,
  total_reads: chInt,
  rate: z.number(),
});
export type DangerousEmptyReadsRow = z.infer<typeof DangerousEmptyReadsRow>;

export const WarningStatsRow = z.object({
  tenant: z.string(),
  code: z.string(),
  source: z.string(),
  days_seen: chInt,
  occurrences: chInt,
  first_seen: chTime,
  last_seen: chTime,
  tools: z.array(z.string()),
  agents: z.array(z.string()),
  persistent: chBool,
  stale: chBool,
  state: z.enum(['active', 'acknowledged', 'escalated', 'retired']),
  due_at: z.union([chTime, z.null()]),
  state_changed_at: z.union([chTime, z.null()]),
});
export type WarningStatsRow = z.infer<typeof WarningStatsRow>;
