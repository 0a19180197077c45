/** What a fuzz target reports: cases tried and each kind of violation, with the first few examples to replay. */
/** `known_open`: a 5xx of a reported, not yet fixed bug (fuzz/README.md), still a violation of `npm run fuzz`. */
export type ViolationKind =
  | 'crash'
  | 'server_error'
  | 'known_open'
  | 'span_lost'
  | 'stack_trace'
  | 'not_one_line'
  | 'hang'
  /** A connection closed and the collector still held its admission slot or bytes. */
  | 'slot_leaked'
  /** After a case, another tenant's valid request was not served (200). */
  | 'other_tenant_refused'
  /** A 4xx or 408 without a body saying why (google.rpc.Status message). */
  | 'no_reason'
  /** Two implementations of one thing (the native row hasher and the JavaScript writer) answered differently. */
  | 'disagreement';

export interface Violation {
  kind: ViolationKind;
  /** Index of the case in this target's sequence (replay with the same --seed). */
  index: number;
  input: string;
  answer: string;
}

export class TargetReport {
  cases = 0;
  readonly counts: Record<ViolationKind, number> = {
    crash: 0,
    server_error: 0,
    known_open: 0,
    span_lost: 0,
    stack_trace: 0,
    not_one_line: 0,
    hang: 0,
    disagreement: 0,
    slot_leaked: 0,
    other_tenant_refused: 0,
    no_reason: 0,
  };
  readonly examples: Violation[] = [];
  /** Answers seen, by class (e.g. HTTP status, exit code): shows the cases reach past the first check. */
  readonly outcomes = new Map<string, number>();

  constructor(
    readonly target: string,
    private readonly keepExamples = 5,
  ) {}

  outcome(label: string): void {
    this.outcomes.set(label, (this.outcomes.get(label) ?? 0) + 1);
  }

  violation(v: Violation): void {
    this.counts[v.kind]++;
    if (this.examples.filter((e) => e.kind === v.kind).length < this.keepExamples) this.examples.push(v);
  }

  get violations(): number {
    return Object.values(this.counts).reduce((a, b) => a + b, 0);
  }
}

/** Shortens an input or answer for a report line. */
export function clip(s: string, max = 300): string {
  const flat = JSON.stringify(s);
  return flat.length > max ? `${flat.slice(0, max)}... (${s.length} chars)` : flat;
}

export interface FuzzTarget {
  readonly name: string;
  /** Runs `cases` cases from `seed`. */
  run(cases: number, seed: number): Promise<TargetReport>;
}
