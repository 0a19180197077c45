/**
 * An agent session (a conversation): numbers every tool call from 1, so that a gap in the stored sequence shows a
 * span that never arrived, and remembers what each read covered, so the guard judges evidence from its own record
 * rather than from what the caller says about it.
 */
import type { Continuation, GuardDecision, Reason, ResultStatus, Scope, Warning } from '../contract/index.ts';
import type { PageOf, TraversalSummary } from './traversal.ts';
import { TraversalBook } from './traversal.ts';

/** Above this, a read's item ids are not remembered: the guard then cannot compare targets with it (it says so). */
export const MAX_REMEMBERED_IDS = 100_000;

export interface SessionInfo {
  /** `gen_ai.conversation.id`: the agent session. */
  conversationId: string;
  agentName?: string;
  agentId?: string;
}

/** What the session remembers of one read: enough for the guard and for a review request. */
export interface EvidenceRecord {
  callId: string;
  toolName: string;
  sequence: number;
  /** When the read was recorded (ms since the epoch, from the configured clock): evidence has an age. */
  at: number;
  status: ResultStatus;
  complete: boolean;
  reasons: readonly Reason[];
  continuation: Continuation;
  /** What the read covered: its result's scope, else `{ resource }` from its tool's policy. */
  scope?: Scope;
  itemCount?: number;
  /** Ids of the returned items, when the tool's items have ids. */
  itemIds?: readonly string[];
  /** The result's warnings, when it had any: a warning policy may make them block a mutation. */
  warnings?: readonly Warning[];
  /** A page of a cursor traversal: which one, and where in it (set once its result is in). */
  pageOf?: PageOf;
  /** A first page that points to a next one, no read continued yet: the guard judges it as a traversal of one page. */
  firstPage?: boolean;
  /** On the record that stands for a whole traversal (traversal.ts `asEvidence`): its pages and whether it broke. */
  traversal?: TraversalSummary;
}

/**
 * The reads a session remembers, oldest forgotten first. Adding a read (every read call) is a store into a ring, with
 * no hashing; the call-id index is brought up to date only when the guard looks (at a mutation, far rarer), from
 * the reads added since. A retried call id takes a new slot, and lookups see its latest record.
 */
export class EvidenceLedger {
  readonly #ring: (EvidenceRecord | undefined)[];
  /** How many records were ever added: record number n lives in slot n % size until number n + size replaces it. */
  #added = 0;
  /** Call id -> number of its latest record, for the records added before #indexed (evicted ones may linger). */
  readonly #byCall = new Map<string, number>();
  #indexed = 0;

  constructor(limit: number) {
    this.#ring = new Array(limit).fill(undefined);
  }

  add(record: EvidenceRecord): void {
    this.#ring[this.#added % this.#ring.length] = record;
    this.#added += 1;
  }

  byCallId(callId: string): EvidenceRecord | undefined {
    this.#sync();
    const n = this.#byCall.get(callId);
    return n === undefined || n < this.#oldest() ? undefined : this.#ring[n % this.#ring.length];
  }

  /** Every remembered read of this snapshot token, oldest first. */
  bySnapshot(snapshot: string): EvidenceRecord[] {
    this.#sync();
    const out: EvidenceRecord[] = [];
    for (let n = this.#oldest(); n < this.#added; n += 1) {
      const r = this.#ring[n % this.#ring.length];
      // A record replaced by a later one with the same call id is not a read of its own.
      if (r !== undefined && r.scope?.snapshot === snapshot && this.#byCall.get(r.callId) === n) out.push(r);
    }
    return out;
  }

  /** Every remembered read of this resource, newest first. */
  byResource(resource: string): EvidenceRecord[] {
    this.#sync();
    const out: EvidenceRecord[] = [];
    for (let n = this.#added - 1; n >= this.#oldest(); n -= 1) {
      const r = this.#ring[n % this.#ring.length];
      if (r !== undefined && r.scope?.resource === resource && this.#byCall.get(r.callId) === n) out.push(r);
    }
    return out;
  }

  /** Number of the oldest record still in the ring. */
  #oldest(): number {
    return Math.max(0, this.#added - this.#ring.length);
  }

  #sync(): void {
    if (this.#indexed === this.#added) return;
    const size = this.#ring.length;
    // Entries of evicted reads are ignored by lookups; drop them once they outnumber the live ones.
    if (this.#byCall.size > 2 * size) {
      this.#byCall.clear();
      this.#indexed = this.#oldest();
    }
    for (let n = Math.max(this.#indexed, this.#oldest()); n < this.#added; n += 1) {
      const r = this.#ring[n % size];
      if (r !== undefined) this.#byCall.set(r.callId, n);
    }
    this.#indexed = this.#added;
  }
}

export class Session {
  readonly conversationId: string;
  readonly agentName: string | undefined;
  readonly agentId: string | undefined;
  readonly evidence: EvidenceLedger;
  /** The cursor traversals of its reads, as many as the ledger holds reads. */
  readonly traversals: TraversalBook;
  #sequence = 0;
  readonly #decisions = new Map<GuardDecision, number>();

  constructor(info: SessionInfo, ledgerSize: number) {
    if (typeof info.conversationId !== 'string' || info.conversationId.length === 0) {
      throw new Error('tooltrail session: conversationId must be a non-empty string');
    }
    this.conversationId = info.conversationId;
    this.agentName = info.agentName;
    this.agentId = info.agentId;
    this.evidence = new EvidenceLedger(ledgerSize);
    this.traversals = new TraversalBook(ledgerSize);
  }

  /** Taken when a call starts, so numbers follow call order even when calls overlap. */
  nextSequence(): number {
    this.#sequence += 1;
    return this.#sequence;
  }

  /** The last sequence number handed out (0 before the first call). */
  get lastSequence(): number {
    return this.#sequence;
  }

  countDecision(decision: GuardDecision): void {
    this.#decisions.set(decision, (this.#decisions.get(decision) ?? 0) + 1);
  }

  /** How many mutations the guard allowed, refused or sent for review in this session. */
  decisions(): Readonly<Record<GuardDecision, number>> {
    return {
      allowed: this.#decisions.get('allowed') ?? 0,
      refused: this.#decisions.get('refused') ?? 0,
      review_requested: this.#decisions.get('review_requested') ?? 0,
    };
  }
}
