/**
 * A labelled corpus for the mutation detectors: generated agent sessions mixing every case of the rules, and an
 * oracle that labels each mutation by applying the rules AS WRITTEN (alerts/detectors/*.sql headers) directly to
 * the session script, independently of the SQL. Deterministic for a given seed.
 */
import { REASON_CODES, type ReasonCode } from '../../contract/index.ts';
import { mulberry32 } from '../../platform/seeded-random.ts';
import type { MutationStep, ReadStep, SessionScript, Step } from '../../testkit/session-spans.ts';

export const CASES = [
  'incomplete_empty_then_absence',
  'incomplete_then_presence',
  'unknown_then_mutation',
  'complete_then_mutation',
  'incomplete_other_resource',
  'superseded_by_named_complete',
  'superseded_but_not_named',
  'named_incomplete_snapshot',
  'named_call_id_incomplete',
  'named_call_id_complete',
  'snapshot_completed_by_a_later_page',
  'read_outside_window',
  'read_just_inside_window',
  'read_after_mutation',
  'absence_without_any_read',
  'absence_naming_unread_evidence',
  'two_mutations_two_resources',
] as const;
export type CaseName = (typeof CASES)[number];

export interface LabelledSession {
  script: SessionScript;
  case: CaseName;
}

export interface CorpusOptions {
  sessions: number;
  seed: number;
  /** The detector window the labels are computed for. */
  windowSeconds: number;
  /** Sessions start within [now - spreadSeconds, now - 2 h]. */
  now: Date;
  spreadSeconds: number;
}

// Every reason a tool can state; COMPLETENESS_UNKNOWN is what a silent tool gets, generated separately.
const REASONS: ReasonCode[] = REASON_CODES.filter((c) => c !== 'COMPLETENESS_UNKNOWN');
const GUARDS = ['allowed', 'refused', 'review_requested', undefined] as const;

export function generateCorpus(o: CorpusOptions): LabelledSession[] {
  const rand = mulberry32(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const out: LabelledSession[] = [];
  const W = o.windowSeconds;

  for (let n = 0; n < o.sessions; n++) {
    const kase = CASES[n % CASES.length] as CaseName;
    const session = `bench-${o.seed}-${n}`;
    const resource = `res-${int(0, 30)}`;
    const other = `${resource}-other`;
    const snap = (k: number) => `${session}-snap-${k}`;
    const reasons = (): ReasonCode[] => (rand() < 0.3 ? [pick(REASONS), pick(REASONS)] : [pick(REASONS)]);
    const read = (over: Partial<ReadStep> & { at: number }): ReadStep => ({
      effect: 'read',
      tool: `list_${resource.replace('-', '_')}`,
      resource,
      complete: true,
      items: int(1, 50),
      snapshot: snap(over.at),
      ...over,
    });
    const incomplete = (over: Partial<ReadStep> & { at: number }): ReadStep =>
      read({ complete: false, reasons: reasons(), items: rand() < 0.5 ? 0 : int(1, 50), ...over });
    const mutation = (over: Partial<MutationStep> & { at: number }): MutationStep => ({
      effect: 'mutation',
      tool: `cleanup_${resource.replace('-', '_')}`,
      resource,
      basis: rand() < 0.5 ? 'absence' : 'presence',
      targets: int(1, 300),
      guard: pick(GUARDS),
      ...over,
    });
    // Noise: complete reads of unrelated resources before anything else.
    const noise: Step[] = Array.from({ length: int(0, 3) }, (_, i) =>
      read({ at: i, resource: `noise-${int(0, 5)}`, tool: 'list_noise', snapshot: `${session}-noise-${i}` }),
    );
    let steps: Step[];
    switch (kase) {
      case 'incomplete_empty_then_absence':
        steps = [incomplete({ at: 10, items: 0 }), mutation({ at: int(20, W - 10), basis: 'absence' })];
        break;
      case 'incomplete_then_presence':
        steps = [incomplete({ at: 10, items: int(1, 9) }), mutation({ at: int(20, W - 10), basis: 'presence' })];
        break;
      case 'unknown_then_mutation': {
        const r = read({ at: 10 });
        delete r.complete;
        steps = [r, mutation({ at: int(20, W - 10) })];
        break;
      }
      case 'complete_then_mutation':
        steps = [
          read({ at: 10 }),
          mutation({ at: int(20, W - 10), evidenceSnapshots: rand() < 0.5 ? [snap(10)] : undefined }),
        ];
        break;
      case 'incomplete_other_resource':
        steps = [incomplete({ at: 10, resource: other }), read({ at: 15 }), mutation({ at: int(20, W - 10) })];
        break;
      case 'superseded_by_named_complete':
        steps = [incomplete({ at: 10 }), read({ at: 20 }), mutation({ at: 30, evidenceSnapshots: [snap(20)] })];
        break;
      case 'superseded_but_not_named':
        steps = [incomplete({ at: 10 }), read({ at: 20 }), mutation({ at: 30 })];
        break;
      case 'named_incomplete_snapshot':
        steps = [incomplete({ at: 10, resource: other }), mutation({ at: 20, evidenceSnapshots: [snap(10)] })];
        break;
      case 'named_call_id_incomplete':
        steps = [
          incomplete({ at: 10, resource: other, callId: `${session}-ev` }),
          mutation({ at: 20, evidenceCallIds: [`${session}-ev`] }),
        ];
        break;
      case 'named_call_id_complete':
        steps = [
          incomplete({ at: 5 }),
          read({ at: 10, callId: `${session}-ev` }),
          mutation({ at: 20, evidenceCallIds: [`${session}-ev`] }),
        ];
        break;
      case 'snapshot_completed_by_a_later_page':
        // Page 1 incomplete, then the pager read the SAME snapshot to the end: the snapshot was read completely.
        steps = [
          incomplete({ at: 10, snapshot: snap(1) }),
          read({ at: 20, snapshot: snap(1) }),
          mutation({ at: 30, evidenceSnapshots: [snap(1)] }),
        ];
        break;
      case 'read_outside_window':
        steps = [incomplete({ at: 0 }), mutation({ at: W + int(1, 600) })];
        break;
      case 'read_just_inside_window':
        steps = [incomplete({ at: 0 }), mutation({ at: W })];
        break;
      case 'read_after_mutation':
        steps = [mutation({ at: 10 }), incomplete({ at: 20 })];
        break;
      case 'absence_without_any_read':
        steps = [mutation({ at: 10, basis: 'absence' })];
        break;
      case 'absence_naming_unread_evidence':
        steps = [read({ at: 10 }), mutation({ at: 20, basis: 'absence', evidenceSnapshots: [snap(999)] })];
        break;
      case 'two_mutations_two_resources':
        steps = [
          incomplete({ at: 10, resource: other }),
          read({ at: 15 }),
          mutation({ at: 20 }),
          mutation({ at: 25, resource: other, tool: 'cleanup_other' }),
        ];
        break;
    }
    const shifted = steps.map((s) => ({ ...s, at: s.at + 10 }));
    const start = new Date(o.now.getTime() - 2 * 3_600_000 - Math.floor(rand() * o.spreadSeconds) * 1000);
    out.push({
      case: kase,
      script: { session, agent: `agent-${n % 5}`, start, steps: [...noise, ...shifted].sort((a, b) => a.at - b.at) },
    });
  }
  return out;
}

/** The call id session-spans.ts gives a step (its own, or `${session}-call-${index + 1}`). */
function callIdOf(script: SessionScript, i: number): string {
  return script.steps[i]?.callId ?? `${script.session}-call-${i + 1}`;
}

interface Judgement {
  mutationIndex: number;
  mutationAfterIncompleteRead: boolean;
  absenceWithoutCompleteEvidence: boolean;
}

/** The rules of the two mutation detectors, applied directly to a session script. */
export function judgeSession(script: SessionScript, windowSeconds: number): Judgement[] {
  const steps = script.steps;
  const out: Judgement[] = [];
  steps.forEach((m, mi) => {
    if (m.effect !== 'mutation') return;
    const snaps = m.evidenceSnapshots ?? [];
    const calls = m.evidenceCallIds ?? [];
    const window = steps
      .map((r, ri) => ({ r, ri }))
      .filter(
        (x): x is { r: ReadStep; ri: number } =>
          x.r.effect === 'read' && (x.r.at < m.at || (x.r.at === m.at && x.ri < mi)) && m.at - x.r.at <= windowSeconds,
      );
    const named = (x: { r: ReadStep; ri: number }) =>
      (x.r.snapshot !== undefined && x.r.snapshot !== '' && snaps.includes(x.r.snapshot)) ||
      calls.includes(callIdOf(script, x.ri));
    const sameResource = (x: { r: ReadStep }) => !!m.resource && x.r.resource === m.resource;
    const related = window.filter((x) => sameResource(x) || named(x));
    const incomplete = related.filter((x) => x.r.complete !== true);
    const declared = snaps.length + calls.length > 0;
    const completelyRead = (key: string, isCall: boolean) =>
      window.some((x) => x.r.complete === true && (isCall ? callIdOf(script, x.ri) === key : x.r.snapshot === key));
    const evidenceComplete =
      declared && snaps.every((s) => completelyRead(s, false)) && calls.every((c) => completelyRead(c, true));
    const mair = incomplete.length > 0 && !evidenceComplete;
    const completeSameResource = window.some((x) => sameResource(x) && x.r.complete === true);
    const amwce =
      m.basis === 'absence' && incomplete.length === 0 && (declared ? !evidenceComplete : !completeSameResource);
    out.push({ mutationIndex: mi, mutationAfterIncompleteRead: mair, absenceWithoutCompleteEvidence: amwce });
  });
  return out;
}
