/**
 * An agent session (a conversation): numbers every tool call from 1, so that a gap in the stored sequence shows a
 * span that never arrived, and remembers what each read covered, so the guard judges evidence from its own record
 * rather than from what the caller says about it.
 */
import type { GuardDecision, ResultStatus } from '../contract/codes.ts';
import type { Continuation, Reason, Scope } from '../contract/envelope.ts';

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
  status: ResultStatus;
  complete: boolean;
  reasons: readonly Reason[];
  continuation: Continuation;
  scope?: Scope;
  itemCount?: number;
  /** Ids of the returned items, when the tool's items have ids. */
  itemIds?: readonly string[];
}

export class EvidenceLedger {
  readonly #byCall = new Map<string, EvidenceRecord>();
  /** Call ids in arrival order, as a ring: O(1) eviction (iterating a Map after many deletes is not). */
  readonly #ring: (string | undefined)[];
  #next = 0;

  constructor(limit: number) {
    this.#ring = new Array(limit).fill(undefined);
  }

  add(record: EvidenceRecord): void {
    if (this.#byCall.has(record.callId)) {
      // A repeated call id (a retried call) replaces the earlier record in place.
      this.#byCall.set(record.callId, record);
      return;
    }
    const evicted = this.#ring[this.#next];
    if (evicted !== undefined) this.#byCall.delete(evicted);
    this.#ring[this.#next] = record.callId;
    this.#next = (this.#next + 1) % this.#ring.length;
    this.#byCall.set(record.callId, record);
  }

  byCallId(callId: string): EvidenceRecord | undefined {
    return this.#byCall.get(callId);
  }

  /** Every remembered read of this snapshot token. */
  bySnapshot(snapshot: string): EvidenceRecord[] {
    const out: EvidenceRecord[] = [];
    for (const r of this.#byCall.values()) if (r.scope?.snapshot === snapshot) out.push(r);
    return out;
  }
}

export class Session {
  readonly conversationId: string;
  readonly agentName: string | undefined;
  readonly agentId: string | undefined;
  readonly evidence: EvidenceLedger;
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
