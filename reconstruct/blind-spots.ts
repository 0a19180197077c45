/**
 * What a call could not see, in plain words, from its completeness fields. Reason codes are the contract's; the
 * sentences are for the person reading the reconstruction after an incident.
 */
import type { ReasonCode } from '../contract/index.ts';
import type { CallRow } from './rows.ts';
import type { BlindSpot, Completeness } from './timeline.ts';

type Kind = BlindSpot['kind'];

const BY_REASON: Readonly<Record<ReasonCode, { kind: Kind; say: (r: CallRow) => string }>> = {
  MORE_PAGES_AVAILABLE: {
    kind: 'pages_not_fetched',
    say: (r) =>
      `pages not fetched: more pages of ${what(r)} were available and were not read${
        r.result_continuation ? ` (continuation: ${r.result_continuation})` : ''
      }`,
  },
  RESULT_LIMIT_REACHED: {
    kind: 'result_limit',
    say: (r) => `stopped at a result limit: items of ${what(r)} beyond it were not returned`,
  },
  TIME_BUDGET_EXCEEDED: {
    kind: 'time_budget',
    say: (r) => `ran out of time: the part of ${what(r)} not reached in the time budget is missing`,
  },
  SOURCE_UNAVAILABLE: {
    kind: 'source_unavailable',
    say: (r) => `a source timed out or was unavailable: its part of ${what(r)} is missing`,
  },
  VISIBILITY_RESTRICTED: {
    kind: 'visibility_restricted',
    say: (r) =>
      `visibility restricted: it saw only what is ${r.scope_visibility || 'visible to its credential'}; items hidden from it were not returned`,
  },
  CLIENT_LIMIT_REACHED: {
    kind: 'client_limit',
    say: (r) => `the client's own page/item/time cap stopped it before the end of ${what(r)}`,
  },
  CURSOR_EXPIRED: {
    kind: 'cursor_expired',
    say: (r) => `its cursor expired part-way: the rest of ${what(r)} was not read`,
  },
  RATE_LIMITED: {
    kind: 'rate_limited',
    say: (r) => `it was rate limited: the rest of ${what(r)} was not read`,
  },
  COMPLETENESS_UNKNOWN: {
    kind: 'completeness_unknown',
    say: (r) => `completeness unknown: the tool did not say whether ${what(r)} was complete; counted as incomplete`,
  },
};

function what(r: CallRow): string {
  return r.scope_resource ? `"${r.scope_resource}"` : 'the result';
}

/** The contract's rule: only an explicit `complete: true` is complete; silence is unknown, never complete. */
export function completenessOf(r: Pick<CallRow, 'result_complete' | 'complete_reported'>): Completeness {
  if (!r.complete_reported) return 'unknown';
  return r.result_complete ? 'complete' : 'incomplete';
}

export function blindSpotsOf(r: CallRow): BlindSpot[] {
  const out: BlindSpot[] = [];
  const seen = new Set<string>();
  const completeness = completenessOf(r);
  if (completeness === 'unknown' && !r.result_reasons.includes('COMPLETENESS_UNKNOWN')) {
    out.push({ kind: 'completeness_unknown', reason: null, statement: BY_REASON.COMPLETENESS_UNKNOWN.say(r) });
  }
  for (const code of r.result_reasons) {
    if (seen.has(code)) continue;
    seen.add(code);
    const known = BY_REASON[code as ReasonCode] as (typeof BY_REASON)[ReasonCode] | undefined;
    out.push(
      known
        ? { kind: known.kind, reason: code, statement: known.say(r) }
        : {
            kind: 'other_reason',
            reason: code,
            statement: `incomplete for a reason this version does not know: ${code}`,
          },
    );
  }
  if (completeness === 'incomplete' && r.result_reasons.length === 0 && !isError(r)) {
    out.push({ kind: 'other_reason', reason: null, statement: `said it was incomplete without giving a reason` });
  }
  if (isError(r)) {
    const msg = r.span_status_message ? ` (${r.span_status_message})` : '';
    out.push({ kind: 'tool_error', reason: null, statement: `the call failed${msg}: it returned no usable data` });
  }
  return out;
}

function isError(r: CallRow): boolean {
  return r.result_status === 'error' || r.span_status_code === 'Error';
}
