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
  'traversal_to_the_end',
  'traversal_stopped_short',
  'traversal_snapshot_changed',
  'traversal_page_skipped',
  'traversal_cursor_not_received',
  'traversal_completed_after_mutation',
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
    // A cursor traversal (semconv 1.5.0): pages linked to the first page's call id, the last one complete.
    const traversalId = `${session}-t1`;
    const page = (n: number, at: number, over: Partial<ReadStep> = {}): ReadStep =>
      incomplete({
        at,
        snapshot: snap(1),
        callId: n === 1 ? traversalId : `${session}-t${n}`,
        traversal: { id: traversalId, page: n },
        ...over,
      });
    const lastPage = (n: number, at: number, over: Partial<ReadStep> = {}): ReadStep =>
      page(n, at, { complete: true, reasons: [], ...over });
    const namesTraversal = () => (rand() < 0.5 ? { evidenceCallIds: [traversalId] } : {});
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
      case 'traversal_to_the_end':
        steps = [page(1, 10), page(2, 11), lastPage(3, 12), mutation({ at: 20, ...namesTraversal() })];
        break;
      case 'traversal_stopped_short':
        steps = [page(1, 10), page(2, 11), mutation({ at: 20, ...namesTraversal() })];
        break;
      case 'traversal_snapshot_changed':
        steps = [
          page(1, 10),
          page(2, 11, { snapshot: snap(2) }),
          lastPage(3, 12, { snapshot: snap(2) }),
          mutation({ at: 20, ...namesTraversal() }),
        ];
        break;
      case 'traversal_page_skipped':
        steps = [page(1, 10), page(2, 11), lastPage(4, 12), mutation({ at: 20, ...namesTraversal() })];
        break;
      case 'traversal_cursor_not_received':
        steps = [
          lastPage(1, 10, { traversal: { id: traversalId, break: 'CURSOR_NOT_RECEIVED' } }),
          mutation({ at: 20, ...namesTraversal() }),
        ];
        break;
      case 'traversal_completed_after_mutation':
        steps = [page(1, 10), page(2, 11), mutation({ at: 20, ...namesTraversal() }), lastPage(3, 30)];
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

type WindowRead = { r: ReadStep; ri: number };

/**
 * A read as the rules see it: one cursor traversal (its pages in the window, grouped by the traversal id, else a
 * read alone), complete as a whole: its first page, every position from 1 to the last, one snapshot, no break, a
 * complete last page.
 */
interface Unit {
  pages: WindowRead[];
  complete: boolean;
  callIds: string[];
  snapshots: string[];
}

function unitsOf(script: SessionScript, window: WindowRead[]): Unit[] {
  const groups = new Map<string, WindowRead[]>();
  for (const x of window) {
    const k = x.r.traversal?.id ?? callIdOf(script, x.ri);
    groups.set(k, [...(groups.get(k) ?? []), x]);
  }
  return [...groups].map(([k, pages]) => {
    const pos = (x: WindowRead) => Math.max(x.r.traversal?.page ?? 1, 1);
    const max = Math.max(...pages.map(pos));
    const positions = new Set(pages.map(pos));
    const snapshots = [...new Set(pages.flatMap((x) => (x.r.snapshot ? [x.r.snapshot] : [])))];
    const first = pages.some(
      (x) =>
        !x.r.traversal?.break && (x.r.traversal?.page ?? 0) <= 1 && (x.r.traversal?.id ?? k) === callIdOf(script, x.ri),
    );
    const last = pages.filter((x) => pos(x) === max).at(-1) as WindowRead;
    const broken = pages.some((x) => x.r.traversal?.break !== undefined || x.r.reasons?.includes('CURSOR_EXPIRED'));
    const complete = first && positions.size === max && !broken && snapshots.length <= 1 && last.r.complete === true;
    return { pages, complete, callIds: [k, ...pages.map((x) => callIdOf(script, x.ri))], snapshots };
  });
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
        (x): x is WindowRead =>
          x.r.effect === 'read' && (x.r.at < m.at || (x.r.at === m.at && x.ri < mi)) && m.at - x.r.at <= windowSeconds,
      );
    const units = unitsOf(script, window);
    const named = (x: WindowRead) =>
      (x.r.snapshot !== undefined && x.r.snapshot !== '' && snaps.includes(x.r.snapshot)) ||
      calls.includes(callIdOf(script, x.ri)) ||
      (x.r.traversal !== undefined && calls.includes(x.r.traversal.id));
    const sameResource = (x: { r: ReadStep }) => !!m.resource && x.r.resource === m.resource;
    const related = units.filter((u) => u.pages.some((x) => sameResource(x) || named(x)));
    const incomplete = related.filter((u) => !u.complete);
    const declared = snaps.length + calls.length > 0;
    const completelyRead = (key: string, isCall: boolean) =>
      units.some((u) => u.complete && (isCall ? u.callIds.includes(key) : u.snapshots.includes(key)));
    const evidenceComplete =
      declared && snaps.every((s) => completelyRead(s, false)) && calls.every((c) => completelyRead(c, true));
    const mair = incomplete.length > 0 && !evidenceComplete;
    const completeSameResource = units.some((u) => u.complete && u.pages.some(sameResource));
    const amwce =
      m.basis === 'absence' && incomplete.length === 0 && (declared ? !evidenceComplete : !completeSameResource);
    out.push({ mutationIndex: mi, mutationAfterIncompleteRead: mair, absenceWithoutCompleteEvidence: amwce });
  });
  return out;
}
