/**
 * What both framework integrations share, built on the package's public entry only: each tool declared once as a
 * read (with its resource and, optionally, the adapter that reads the API's response) or a mutation (with its
 * policy), run through the instrumented wrappers, and what the model receives back: the read's contract, or the
 * guard's structured refusal instead of the mutation's result.
 */
import type {
  GuardFinding,
  MutationOutcome,
  MutationPolicy,
  ReadAdapter,
  ReadOutcome,
  ReadPolicy,
  RecoveryOption,
  Session,
  Tooltrail,
} from '../index.ts';

/** How one framework tool is judged: every tool must say, as MCP's own defaults take an undeclared tool as destructive. */
export type FrameworkToolPolicy =
  | {
      effect: 'read';
      /** The resource its results describe when they declare no scope, and where its cursor is in the arguments. */
      policy?: ReadPolicy;
      /**
       * Reads the API's raw response into the contract (e.g. `githubSearch`, `kubernetesList`); its `pageParams`
       * tell where the cursor is when the policy does not.
       */
      adapter?: ReadAdapter;
    }
  | { effect: 'mutation'; policy: MutationPolicy };

/** What the model receives when the guard stops a mutation: enough to explain itself and to recover. */
export interface GuardRefusal {
  tooltrail_guard: 'refused' | 'review_requested';
  tool: string;
  message: string;
  findings: Pick<GuardFinding, 'code' | 'message'>[];
  /** The reasons the evidence was incomplete, from the reads the session recorded. */
  incomplete_reasons: { code: string; message?: string }[];
  /** What would make the mutation acceptable (read all pages, narrow the query, ...). */
  options: RecoveryOption[];
}

/**
 * What the model receives from a read: the contract (completeness, reasons, continuation), what to do next, and for
 * a page of a cursor traversal where it stands (a last page that says complete, of a traversal that broke, is not).
 */
export type ReadForModel = ReadOutcome['result'] & {
  next_step: ReadOutcome['nextStep'];
  traversal?: NonNullable<ReadOutcome['traversal']>;
};

export interface BridgedTool {
  /** Runs the tool through the wrapper; `run` is the framework's own execution of it. */
  call(session: Session, args: unknown, callId: string | undefined, run: () => Promise<unknown>): Promise<unknown>;
}

export function bridgeTool(tt: Tooltrail, name: string, declared: FrameworkToolPolicy): BridgedTool {
  // The framework's execution of the current call, keyed by call id: the wrapper only hands `fn` the arguments.
  const pending = new Map<string, () => Promise<unknown>>();
  let anonymous = 0;
  const take = (callId: string) => {
    const run = pending.get(callId);
    if (!run) throw new Error(`tooltrail: no pending execution for ${name} call ${callId}`);
    return run();
  };
  if (declared.effect === 'read') {
    const read = tt.readTool<unknown>(
      {
        name,
        ...(declared.policy ? { policy: declared.policy } : {}),
        ...(declared.adapter ? { adapter: declared.adapter } : {}),
      },
      (_args, ctx) => take(ctx.callId),
    );
    return {
      async call(session, args, callId, run) {
        const id = callId ?? `${name}-${++anonymous}`;
        pending.set(id, run);
        try {
          return readForModel(await read(session, args, { toolCallId: id }));
        } finally {
          pending.delete(id);
        }
      },
    };
  }
  const mutate = tt.mutationTool<unknown>({ name, policy: declared.policy }, (_args, ctx) => take(ctx.callId));
  return {
    async call(session, args, callId, run) {
      const id = callId ?? `${name}-${++anonymous}`;
      pending.set(id, run);
      try {
        const out = await mutate(session, args, undefined, { toolCallId: id });
        return 'review' in out ? guardRefusal(name, out) : out.value;
      } finally {
        pending.delete(id);
      }
    },
  };
}

export function readForModel(out: ReadOutcome): ReadForModel {
  return { ...out.result, next_step: out.nextStep, ...(out.traversal ? { traversal: out.traversal } : {}) };
}

export function guardRefusal(tool: string, out: Extract<MutationOutcome, { review: unknown }>): GuardRefusal {
  const verb = out.decision === 'refused' ? 'refused' : 'sent for human review';
  return {
    tooltrail_guard: out.decision,
    tool,
    message: `${tool} did not run: the tooltrail guard ${verb} it (${out.findings.map((f) => f.code).join(', ')}). Do not retry it as is; recover first (see options).`,
    findings: out.findings.map((f) => ({ code: f.code, message: f.message })),
    incomplete_reasons: out.review.incompleteReasons.map((r) => ({
      code: r.code,
      ...(r.message ? { message: r.message } : {}),
    })),
    options: out.review.options,
  };
}
