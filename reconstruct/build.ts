/**
 * Stored rows -> the session timeline. Pure and deterministic (no clock, no I/O), so the rules below are unit
 * tested without a database:
 * - calls are ordered by start time (then sequence, then span id);
 * - a missing sequence number, a parent span that never arrived, and evidence a mutation names but that is not
 *   stored each become a gap ENTRY placed where the missing piece would have been;
 * - each mutation is linked to the stored reads its evidence names (call ids and snapshot tokens), in this session
 *   or another session of the same tenant;
 * - what each call could not see is stated plainly (blind-spots.ts), and gathered per session in timeline order;
 * - the pages a session read cursor after cursor are one read, a traversal (traversals.ts): listed as such, judged
 *   as a whole for the mutations that rely on them, and their earlier pages' "more pages" are not blind spots.
 */
import { blindSpotsOf, completenessOf } from './blind-spots.ts';
import type { CallRow, KnownSpan, SessionData } from './rows.ts';
import type {
  BlindSpot,
  CallEntry,
  Concern,
  Entry,
  EvidenceLink,
  GapEntry,
  ReadRef,
  SessionTimeline,
  Traversal,
  TraversalRef,
  WarningDetail,
} from './timeline.ts';
import { isPaged, judgeTraversal, type TraversalJudgement, traversalKey } from './traversals.ts';

/** Unix nanoseconds (decimal) -> `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`, exact. */
export function instantOf(ns: string): string {
  const v = BigInt(ns);
  const sec = v / 1_000_000_000n;
  const frac = (v % 1_000_000_000n).toString().padStart(9, '0');
  return `${new Date(Number(sec) * 1000).toISOString().slice(0, 19)}.${frac}Z`;
}

function compareCalls(a: CallRow, b: CallRow): number {
  const ta = BigInt(a.start_ns);
  const tb = BigInt(b.start_ns);
  if (ta !== tb) return ta < tb ? -1 : 1;
  const sa = a.sequence === null ? null : BigInt(a.sequence);
  const sb = b.sequence === null ? null : BigInt(b.sequence);
  if (sa !== sb) {
    if (sa === null) return 1;
    if (sb === null) return -1;
    return sa < sb ? -1 : 1;
  }
  return a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0;
}

const num = (s: string | null): number | null => (s === null ? null : Number(s));
const orNull = (s: string): string | null => (s === '' ? null : s);
const key = (trace: string, span: string) => `${trace}/${span}`;

function effectOf(r: CallRow): CallEntry['effect'] {
  return r.effect === 'read' || r.effect === 'mutation' ? r.effect : 'unknown';
}

function readRef(r: CallRow, sessionId: string, positionBySpan: Map<string, number>): ReadRef {
  const inSession = r.session_id === sessionId;
  return {
    span_id: r.span_id,
    trace_id: r.trace_id,
    tool_call_id: r.tool_call_id,
    tool_name: r.tool_name,
    session_id: r.session_id,
    in_session: inSession,
    position: (inSession && positionBySpan.get(key(r.trace_id, r.span_id))) || null,
    sequence: num(r.sequence),
    time: instantOf(r.start_ns),
    completeness: completenessOf(r),
    reasons: r.result_reasons,
    item_count: num(r.result_item_count),
    snapshot: orNull(r.scope_snapshot),
    traversal_id: isPaged(r) ? traversalKey(r) : null,
  };
}

interface Pending {
  /** Sort key: gaps that belong before a call carry that call's index with a lower rank. */
  callIndex: number;
  rank: number;
  entry: Omit<CallEntry, 'position'> | Omit<GapEntry, 'position'>;
}

export function buildSessionTimeline(data: SessionData): SessionTimeline {
  const calls = [...data.calls].sort(compareCalls);
  const notes: string[] = [];
  const pending: Pending[] = [];

  // Warning details by span; the code list on the row is the fallback when no event was stored.
  const warningsBySpan = new Map<string, WarningDetail[]>();
  for (const w of data.warnings) {
    const list = warningsBySpan.get(w.span_id) ?? [];
    list.push({ code: w.code, source: orNull(w.source), message: orNull(w.message) });
    warningsBySpan.set(w.span_id, list);
  }

  const known = new Map<string, KnownSpan>();
  for (const s of data.knownSpans) known.set(key(s.trace_id, s.span_id), s);
  const traversals = sessionTraversals(calls);

  calls.forEach((r, i) => {
    const details = warningsBySpan.get(r.span_id) ?? [];
    const detailed = new Set(details.map((d) => d.code));
    const warnings = [
      ...details,
      ...r.warnings.filter((c) => !detailed.has(c)).map((code) => ({ code, source: null, message: null })),
    ];
    const parent = r.parent_span_id ? known.get(key(r.trace_id, r.parent_span_id)) : undefined;
    const entry: Omit<CallEntry, 'position'> = {
      kind: 'call',
      sequence: num(r.sequence),
      time: instantOf(r.start_ns),
      end_time: instantOf(r.end_ns),
      duration_ms: Math.max(0, Number(BigInt(r.end_ns) - BigInt(r.start_ns)) / 1e6),
      trace_id: r.trace_id,
      span_id: r.span_id,
      parent_span_id: orNull(r.parent_span_id),
      parent_name: parent ? parent.name : null,
      tool_call_id: r.tool_call_id,
      tool_name: r.tool_name,
      agent_name: r.agent_name,
      agent_id: r.agent_id,
      service_name: r.service_name,
      effect: effectOf(r),
      result_status: orNull(r.result_status),
      span_status: { code: r.span_status_code, message: orNull(r.span_status_message) },
      completeness: completenessOf(r),
      item_count: num(r.result_item_count),
      reasons: r.result_reasons,
      continuation: orNull(r.result_continuation),
      scope: {
        resource: orNull(r.scope_resource),
        visibility: orNull(r.scope_visibility),
        snapshot: orNull(r.scope_snapshot),
      },
      warnings,
      guard_decision: orNull(r.guard_decision),
      mutation: null,
      // What a call could not see is about what it read; a mutation's own result is shown, not read from.
      could_not_see: r.effect === 'mutation' ? [] : pageBlindSpots(r, traversals),
      traversal: isPaged(r) && r.effect !== 'mutation' ? { id: traversalKey(r), page: r.traversal_page || null } : null,
    };
    pending.push({ callIndex: i, rank: 1, entry });
  });

  sequenceGaps(calls, pending, notes);
  parentGaps(calls, known, pending);

  // Positions are final once every gap is placed; evidence links point at positions, so they come last.
  pending.sort((a, b) => a.callIndex - b.callIndex || a.rank - b.rank);
  const evidenceGapsAt = evidenceGaps(calls, data);
  const entries = assignPositions(pending, evidenceGapsAt);
  linkEvidence(calls, data, entries);

  return summarize(data, calls, entries, notes, traversals);
}

interface SessionTraversal {
  tool: string;
  pages: CallRow[];
  judged: TraversalJudgement;
}

/** The session's reads grouped by traversal, for those an emitter linked (semconv 1.5.0), judged as they ended. */
function sessionTraversals(calls: readonly CallRow[]): Map<string, SessionTraversal> {
  const groups = new Map<string, CallRow[]>();
  for (const c of calls) {
    if (c.effect === 'mutation') continue;
    const k = traversalKey(c);
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  const out = new Map<string, SessionTraversal>();
  for (const [k, pages] of groups) {
    if (!pages.some(isPaged)) continue;
    out.set(k, { tool: pages[0]?.tool_name ?? '', pages, judged: judgeTraversal(pages) });
  }
  return out;
}

/**
 * A page's blind spots: its own, except "more pages" on a page the traversal went past (they were read); the page
 * where it stopped or broke says so.
 */
function pageBlindSpots(r: CallRow, traversals: Map<string, SessionTraversal>): BlindSpot[] {
  const own = blindSpotsOf(r);
  const t = isPaged(r) ? traversals.get(traversalKey(r)) : undefined;
  if (t === undefined) return own;
  const last = t.pages[t.pages.length - 1] === r;
  const kept = own.filter((b) => b.kind !== 'pages_not_fetched' || (last && t.judged.stoppedAt !== null));
  if (last && t.judged.broke) {
    kept.push({
      kind: 'traversal_broken',
      reason: t.judged.broke.reason,
      statement: `the paged read ${t.judged.statement}`,
    });
  }
  return kept;
}

/** Missing numbers in 1..max of the session's sequence numbers, each run one gap entry. */
function sequenceGaps(calls: CallRow[], pending: Pending[], notes: string[]): void {
  const withSeq = calls.map((c, i) => ({ seq: c.sequence === null ? null : BigInt(c.sequence), i }));
  const present = [...new Set(withSeq.flatMap((x) => (x.seq === null ? [] : [x.seq])))].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  const without = withSeq.filter((x) => x.seq === null).length;
  if (calls.length > 0 && present.length === 0) {
    notes.push('The emitter sent no sequence numbers: calls missing from this session cannot be detected.');
    return;
  }
  if (without > 0) notes.push(`${without} call(s) carried no sequence number; gaps are checked among the others.`);
  const dupes = withSeq.length - without - present.length;
  if (dupes > 0) notes.push(`${dupes} sequence number(s) appear on more than one stored call.`);
  if (present.length > 0) {
    notes.push(`Calls after sequence ${present[present.length - 1]} (the last stored) cannot be detected as missing.`);
  }
  let expected = 1n;
  for (const seq of present) {
    if (seq > expected) {
      const from = expected;
      const to = seq - 1n;
      const count = Number(to - from + 1n);
      // Placed before the first call (in time order) numbered after the run.
      const before = withSeq.find((x) => x.seq !== null && x.seq > to)?.i ?? calls.length;
      const range = from === to ? `sequence number ${from}` : `sequence numbers ${from}-${to}`;
      pending.push({
        callIndex: before,
        rank: 0,
        entry: {
          kind: 'gap',
          time: null,
          statement: `${count} call(s) missing: ${range} never arrived; what they read or changed is unknown.`,
          gap: { type: 'missing_sequence', from_sequence: Number(from), to_sequence: Number(to), count },
        },
      });
    }
    expected = seq + 1n;
  }
}

/** A parent span id on the way from a call to its trace root that is not stored: one gap per missing span. */
function parentGaps(calls: CallRow[], known: Map<string, KnownSpan>, pending: Pending[]): void {
  const missing = new Map<
    string,
    { trace: string; span: string; children: Set<string>; calls: string[]; first: number }
  >();
  calls.forEach((c, i) => {
    let child = c.span_id;
    let parent = c.parent_span_id;
    // Bounded walk: a malformed cycle must not hang the reconstruction.
    for (let depth = 0; parent && depth < 1000; depth++) {
      const p = known.get(key(c.trace_id, parent));
      if (!p) {
        const k = key(c.trace_id, parent);
        const m = missing.get(k) ?? { trace: c.trace_id, span: parent, children: new Set(), calls: [], first: i };
        m.children.add(child);
        m.calls.push(c.span_id);
        missing.set(k, m);
        break;
      }
      child = p.span_id;
      parent = p.parent_span_id;
    }
  });
  for (const m of missing.values()) {
    const n = m.calls.length;
    pending.push({
      callIndex: m.first,
      rank: 0,
      entry: {
        kind: 'gap',
        time: null,
        statement: `Parent span ${m.span} of trace ${m.trace} never arrived; ${n} call(s) below it are shown without the context that started them.`,
        gap: {
          type: 'missing_parent',
          trace_id: m.trace,
          missing_span_id: m.span,
          children: [...m.children].sort(),
          affected_calls: m.calls,
        },
      },
    });
  }
}

interface EvidenceRefs {
  callIds: string[];
  snapshots: string[];
}

function refsOf(r: CallRow): EvidenceRefs {
  return { callIds: [...new Set(r.evidence_call_ids)], snapshots: [...new Set(r.evidence_snapshots)] };
}

/**
 * Which stored reads a reference resolves to. Reads of the mutation's own session win. Otherwise a tool call id
 * resolves only within the mutation's trace (call ids are unique per conversation at best: `call_1` recurs across
 * sessions), while a snapshot token, which names one revision of the data, resolves to reads anywhere in the
 * tenant. A snapshot match must not start after the mutation.
 */
function resolve(mutation: CallRow, via: 'call_id' | 'snapshot', ref: string, pool: CallRow[]): CallRow[] {
  const matches = pool.filter((r) => {
    if (r.span_id === mutation.span_id && r.trace_id === mutation.trace_id) return false;
    if (via === 'call_id') {
      return r.tool_call_id === ref && (r.session_id === mutation.session_id || r.trace_id === mutation.trace_id);
    }
    return r.scope_snapshot === ref && r.effect !== 'mutation' && BigInt(r.start_ns) <= BigInt(mutation.start_ns);
  });
  const own = matches.filter((r) => r.session_id === mutation.session_id);
  return own.length > 0 ? own : matches;
}

function readPool(calls: CallRow[], data: SessionData): CallRow[] {
  const seen = new Set(calls.map((c) => key(c.trace_id, c.span_id)));
  return [...calls, ...data.referencedReads.filter((r) => !seen.has(key(r.trace_id, r.span_id)))];
}

/** Gap entries for evidence that is not stored, keyed by the mutation's call index (placed just before it). */
function evidenceGaps(calls: CallRow[], data: SessionData): Map<number, Omit<GapEntry, 'position'>[]> {
  const pool = readPool(calls, data);
  const out = new Map<number, Omit<GapEntry, 'position'>[]>();
  calls.forEach((c, i) => {
    if (c.effect !== 'mutation') return;
    const refs = refsOf(c);
    const gaps: Omit<GapEntry, 'position'>[] = [];
    const add = (via: 'call_id' | 'snapshot', ref: string) => {
      if (resolve(c, via, ref, pool).length > 0) return;
      const what = via === 'call_id' ? `tool call ${ref}` : `snapshot ${ref}`;
      gaps.push({
        kind: 'gap',
        time: null,
        statement: `The read this mutation relied on (${what}) is not stored: what it returned is unknown.`,
        gap: { type: 'missing_evidence', mutation_span_id: c.span_id, via, ref },
      });
    };
    for (const id of refs.callIds) add('call_id', id);
    for (const s of refs.snapshots) add('snapshot', s);
    if (gaps.length) out.set(i, gaps);
  });
  return out;
}

function assignPositions(pending: Pending[], evidenceGapsAt: Map<number, Omit<GapEntry, 'position'>[]>): Entry[] {
  const entries: Entry[] = [];
  const push = (e: Omit<CallEntry, 'position'> | Omit<GapEntry, 'position'>) =>
    entries.push({ ...e, position: entries.length + 1 } as Entry);
  for (const p of pending) {
    if (p.entry.kind === 'call') for (const g of evidenceGapsAt.get(p.callIndex) ?? []) push(g);
    push(p.entry);
  }
  return entries;
}

function linkEvidence(calls: CallRow[], data: SessionData, entries: Entry[]): void {
  const pool = readPool(calls, data);
  const byTraversal = new Map<string, CallRow[]>();
  for (const r of pool) {
    if (r.effect === 'mutation') continue;
    const k = `${r.session_id}\u0000${traversalKey(r)}`;
    byTraversal.set(k, [...(byTraversal.get(k) ?? []), r]);
  }
  const positionBySpan = new Map<string, number>();
  for (const e of entries) if (e.kind === 'call') positionBySpan.set(key(e.trace_id, e.span_id), e.position);
  const rowBySpan = new Map(calls.map((c) => [key(c.trace_id, c.span_id), c]));
  for (const e of entries) {
    if (e.kind !== 'call' || e.effect !== 'mutation') continue;
    const row = rowBySpan.get(key(e.trace_id, e.span_id))!;
    const refs = refsOf(row);
    const evidence: EvidenceLink[] = [
      ...refs.callIds.map((ref) => link(row, 'call_id', ref)),
      ...refs.snapshots.map((ref) => link(row, 'snapshot', ref)),
    ];
    e.mutation = {
      basis: orNull(row.mutation_basis),
      target_count: num(row.mutation_target_count),
      evidence,
      concerns: concernsOf(row, evidence),
    };
  }
  function link(m: CallRow, via: 'call_id' | 'snapshot', ref: string): EvidenceLink {
    const rows = resolve(m, via, ref, pool);
    const reads = rows.map((r) => readRef(r, m.session_id, positionBySpan));
    const traversals = new Map<string, TraversalRef>();
    for (const r of rows) {
      const pages = byTraversal.get(`${r.session_id}\u0000${traversalKey(r)}`) ?? [r];
      if (!pages.some(isPaged) || traversals.has(traversalKey(r))) continue;
      // As the traversal stood when the mutation ran: its pages read before it.
      const before = pages.filter((p) => BigInt(p.start_ns) <= BigInt(m.start_ns));
      const judged = judgeTraversal(before.length > 0 ? before : pages);
      traversals.set(traversalKey(r), {
        id: traversalKey(r),
        pages: judged.pages,
        complete: judged.complete,
        statement: judged.statement,
      });
    }
    return { via, ref, found: reads.length > 0, reads, traversals: [...traversals.values()] };
  }
}

function concernsOf(row: CallRow, evidence: EvidenceLink[]): Concern[] {
  const concerns: Concern[] = [];
  const notStored = evidence.filter((l) => !l.found);
  // A page of a traversal is judged with its traversal (as it stood when the mutation ran), not alone.
  const short = [...new Map(evidence.flatMap((l) => l.traversals).map((t) => [t.id, t])).values()].filter(
    (t) => !t.complete,
  );
  const incomplete = evidence
    .flatMap((l) => l.reads)
    .filter((r) => r.completeness !== 'complete' && r.traversal_id === null);
  if (evidence.length === 0) {
    concerns.push({
      code: 'NO_EVIDENCE_DECLARED',
      statement: 'The mutation declared no evidence: nothing links it to what it relied on.',
    });
  }
  if (notStored.length > 0) {
    concerns.push({
      code: 'EVIDENCE_NOT_STORED',
      statement: `${notStored.length} evidence reference(s) resolve to no stored read: ${notStored.map((l) => l.ref).join(', ')}.`,
    });
  }
  if (incomplete.length > 0 || short.length > 0) {
    const list = [
      ...new Set([
        ...incomplete.map(
          (r) => `${r.tool_name} (${r.completeness}${r.reasons.length ? `: ${r.reasons.join(', ')}` : ''})`,
        ),
        ...short.map((t) => `a paged read (${t.statement})`),
      ]),
    ];
    concerns.push({
      code: 'EVIDENCE_INCOMPLETE',
      statement: `It relied on read(s) that were not complete: ${list.join('; ')}.`,
    });
  }
  if (
    row.mutation_basis === 'absence' &&
    (evidence.length === 0 || notStored.length > 0 || incomplete.length > 0 || short.length > 0)
  ) {
    concerns.push({
      code: 'ACTED_ON_ABSENCE_WITH_INCOMPLETE_EVIDENCE',
      statement:
        'It acted on what a read did NOT return, but that read was not shown to be complete: the missing items may simply not have been seen.',
    });
  }
  return concerns;
}

function summarize(
  data: SessionData,
  calls: CallRow[],
  entries: Entry[],
  notes: string[],
  traversals: Map<string, SessionTraversal>,
): SessionTimeline {
  const callEntries = entries.filter((e): e is CallEntry => e.kind === 'call');
  const gapEntries = entries.filter((e): e is GapEntry => e.kind === 'gap');
  const couldNotSee: string[] = [];
  for (const e of entries) {
    if (e.kind === 'gap') couldNotSee.push(`#${e.position} gap: ${e.statement}`);
    else
      for (const b of e.could_not_see) couldNotSee.push(`#${e.position} ${e.tool_name} (${e.effect}): ${b.statement}`);
  }
  const reasons: string[] = [];
  const said: string[] = [];
  if (data.truncated) {
    reasons.push('TRUNCATED');
    said.push(`only the first ${calls.length} calls of the session were loaded`);
  }
  if (gapEntries.length > 0) {
    reasons.push('GAPS_IN_RECORD');
    said.push(`${gapEntries.length} gap(s) in the stored record`);
  }
  if (calls.length > 0 && calls.every((c) => c.sequence === null)) {
    reasons.push('SEQUENCE_NOT_RECORDED');
    said.push('without sequence numbers, missing calls cannot be detected');
  }
  const agents = new Map<string, { name: string; id: string }>();
  for (const c of calls) agents.set(`${c.agent_name}\u0000${c.agent_id}`, { name: c.agent_name, id: c.agent_id });
  const reads = callEntries.filter((e) => e.effect === 'read');
  const completeTraversals = new Set([...traversals].filter(([, t]) => t.judged.complete).map(([k]) => k));
  const positionBySpan = new Map(callEntries.map((e) => [key(e.trace_id, e.span_id), e.position]));
  const listed: Traversal[] = [...traversals].map(([id, t]) => ({
    id,
    tool_name: t.tool,
    entries: t.pages.map((p) => positionBySpan.get(key(p.trace_id, p.span_id)) ?? 0).filter((n) => n > 0),
    pages: t.judged.pages,
    complete: t.judged.complete,
    snapshot: t.judged.snapshot,
    break: t.judged.broke?.reason ?? null,
    stopped_at: t.judged.stoppedAt,
    statement: t.judged.statement,
  }));
  const first = calls[0];
  const last = calls.reduce<CallRow | undefined>(
    (acc, c) => (acc === undefined || BigInt(c.end_ns) > BigInt(acc.end_ns) ? c : acc),
    undefined,
  );
  return {
    tenant: data.tenant,
    session_id: data.sessionId,
    trace_ids: [...new Set(calls.map((c) => c.trace_id))],
    agents: [...agents.values()],
    started_at: instantOf(first?.start_ns ?? '0'),
    ended_at: instantOf(last?.end_ns ?? '0'),
    summary: {
      calls: callEntries.length,
      reads: reads.length,
      mutations: callEntries.filter((e) => e.effect === 'mutation').length,
      // A page of a traversal that went on to complete is not an incomplete read: the traversal is the read.
      incomplete_reads: reads.filter(
        (e) => e.completeness === 'incomplete' && !(e.traversal && completeTraversals.has(e.traversal.id)),
      ).length,
      unknown_reads: reads.filter((e) => e.completeness === 'unknown').length,
      gaps: gapEntries.length,
      mutations_with_concerns: callEntries.filter((e) => (e.mutation?.concerns.length ?? 0) > 0).length,
      traversals: listed.length,
    },
    traversals: listed,
    could_not_see: couldNotSee,
    notes,
    reconstruction: {
      complete: reasons.length === 0,
      reasons,
      statement: said.length ? `This reconstruction is incomplete: ${said.join('; ')}.` : null,
    },
    entries,
  };
}
