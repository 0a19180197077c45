/** Stored call rows as the reconstruction's SQL returns them, for the builder's unit tests. */
import type { CallRow } from '../../../reconstruct/rows.ts';

export const TRACE = 'a'.repeat(32);
export const ROOT = 'r000000000000000';
export const T0 = 1_772_359_200_000_000_000n; // 2026-03-01T10:00:00Z

export function call(n: number, over: Partial<CallRow> = {}): CallRow {
  const start = T0 + BigInt(n) * 1_000_000_000n;
  return {
    tenant: 'acme',
    session_id: 'sess-1',
    sequence: String(n),
    start_ns: String(start),
    end_ns: String(start + 500_000_000n),
    trace_id: TRACE,
    span_id: `s${String(n).padStart(15, '0')}`,
    parent_span_id: ROOT,
    tool_call_id: `call-${n}`,
    tool_name: 'list_service_accounts',
    agent_name: 'ops-bot',
    agent_id: 'agent-1',
    service_name: 'agent-runtime',
    effect: 'read',
    span_status_code: 'Ok',
    span_status_message: '',
    result_status: 'complete',
    result_complete: true,
    complete_reported: true,
    result_reasons: [],
    result_item_count: '3',
    result_continuation: '',
    scope_resource: 'service_accounts',
    scope_visibility: '',
    scope_snapshot: '',
    warnings: [],
    mutation_basis: '',
    mutation_target_count: null,
    evidence_snapshots: [],
    evidence_call_ids: [],
    guard_decision: '',
    ...over,
  };
}
