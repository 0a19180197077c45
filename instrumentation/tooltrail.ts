/** The entry object: sessions, and wrappers that turn tool functions into instrumented, guarded tools. */
import type { TracerProvider } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import type { TooltrailConfig, TooltrailConfigInput } from './config.ts';
import { FieldPoliciesSchema, parseConfig } from './config.ts';
import type { MutationPlan } from './guard.ts';
import type { FieldPolicies } from './redaction.ts';
import { createRedactor } from './redaction.ts';
import { interpretToolResult } from './results.ts';
import type { SessionInfo } from './session.ts';
import { Session } from './session.ts';
import type { CallOptions, MutationCallOptions, MutationOutcome, ReadOutcome, ToolCallContext } from './tool-call.ts';
import { ToolCallRunner } from './tool-call.ts';
import { INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION } from './version.ts';

export interface TooltrailOptions extends TooltrailConfigInput {
  /** Where spans go; defaults to the globally registered provider. The application chooses the SDK. */
  tracerProvider?: TracerProvider;
}

export interface ToolDefinition<T = unknown> {
  /** `gen_ai.tool.name`. */
  name: string;
  /** `gen_ai.tool.type` (`function`, `extension`, `datastore`), recorded when given. */
  type?: string;
  /** Opt-in recording of this tool's argument and result fields (added to the global lists). */
  record?: { arguments?: FieldPolicies; result?: FieldPolicies };
  /** Id of a returned item, so the guard can compare mutation targets with what reads returned. Default: `item.id`. */
  itemId?: (item: T) => string | number | undefined;
}

export type ReadTool<A, T, V> = (session: Session, args: A, call?: CallOptions) => Promise<ReadOutcome<T, V>>;
export type MutationTool<A, T, V> = (
  session: Session,
  args: A,
  plan: MutationPlan,
  call?: MutationCallOptions,
) => Promise<MutationOutcome<T, V>>;

export interface Tooltrail {
  readonly config: TooltrailConfig;
  /** Internal runner shared with the MCP wrapper. */
  readonly runner: ToolCallRunner;
  session(info: SessionInfo): Session;
  /** A read tool: its result's completeness goes on the span and into the session's evidence. */
  readTool<A, T = unknown, V = unknown>(
    definition: string | ToolDefinition<T>,
    fn: (args: A, ctx: ToolCallContext) => Promise<V> | V,
  ): ReadTool<A, T, V>;
  /**
   * A mutation tool: runs only if the guard allows the plan; the decision goes on the span either way. With the
   * guard `off` (config or per call) it runs unjudged and its span carries the plan but no decision.
   */
  mutationTool<A, T = unknown, V = unknown>(
    definition: string | ToolDefinition<T>,
    fn: (args: A, ctx: ToolCallContext) => Promise<V> | V,
  ): MutationTool<A, T, V>;
}

export function createTooltrail(options: TooltrailOptions = {}): Tooltrail {
  const { tracerProvider, ...configInput } = options;
  const config = parseConfig(configInput);
  const tracer = (tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  const redactor = createRedactor({
    maxChars: config.maxRecordedChars,
    ...(config.hashKey !== undefined ? { hashKey: config.hashKey } : {}),
  });
  const runner = new ToolCallRunner(tracer, config, redactor);

  const bind = <T, V>(definition: string | ToolDefinition<T>) => {
    const def = toDefinition(definition);
    return runner.bind<V, T>({
      toolName: def.name,
      toolType: def.type,
      recordArguments: def.record?.arguments,
      recordResult: def.record?.result,
      interpret: (value: V) => interpretToolResult<T>(value),
      itemId: def.itemId,
    });
  };

  return {
    config,
    runner,
    session: (info) => new Session(info, config.evidenceLedgerSize),
    readTool<A, T, V>(definition: string | ToolDefinition<T>, fn: (args: A, ctx: ToolCallContext) => Promise<V> | V) {
      const tool = bind<T, V>(definition);
      return (session: Session, args: A, call?: CallOptions) => runner.read(tool, session, args, call, fn);
    },
    mutationTool<A, T, V>(
      definition: string | ToolDefinition<T>,
      fn: (args: A, ctx: ToolCallContext) => Promise<V> | V,
    ): MutationTool<A, T, V> {
      const tool = bind<T, V>(definition);
      return (session, args, plan, call) => runner.mutate(tool, session, args, call, plan, fn);
    },
  };
}

function toDefinition<T>(definition: string | ToolDefinition<T>): ToolDefinition<T> {
  const def = typeof definition === 'string' ? { name: definition } : definition;
  if (typeof def.name !== 'string' || def.name.length === 0) throw new Error('tooltrail: a tool needs a name');
  for (const part of ['arguments', 'result'] as const) {
    const parsed = FieldPoliciesSchema.safeParse(def.record?.[part] ?? {});
    if (!parsed.success) {
      throw new Error(
        `tooltrail: tool ${def.name}: record.${part}: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
      );
    }
  }
  return def;
}
