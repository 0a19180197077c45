/**
 * The demo's entry point: run the cleanup agent in one tooltrail session against a fresh (or given) world, and
 * return what it did, call by call, with what really changed. Guard `on`: mutations go through the library's guard.
 * Guard `off`: they run unjudged, through the library's per-call `guard: 'off'`; the spans still carry the plan
 * and the contract (and no guard decision), so detectors catch the bad ones afterwards.
 */
import { z } from 'zod';
import type { Tooltrail } from '../../instrumentation/index.ts';
import type { Role, World, WorldCensus } from '../world/index.ts';
import { createWorld, DEFAULT_SEED, ROLES } from '../world/index.ts';
import { plural } from './agent-context.ts';
import { carefulCleanup } from './careful-cleanup.ts';
import { naiveCleanup } from './naive-cleanup.ts';
import { RunRecorder } from './recorder.ts';
import type { AgentRunSummary, Strategy } from './run-summary.ts';
import { createCleanupTools } from './toolset.ts';

export const DEFAULT_AGENT_NAME = 'cleanup-agent';
/** The role each strategy holds unless told otherwise: the naive one runs with the everyday bot role. */
export const DEFAULT_ROLES: Readonly<Record<Strategy, Role>> = { naive: 'cleanup-bot', careful: 'cleanup-admin' };

export interface RunCleanupAgentOptions {
  /** The instrumentation (its tracer provider decides where spans go; its config, what the guard does). */
  tooltrail: Tooltrail;
  /** `on`: the library's guard judges every mutation. `off`: mutations run unchecked, spans still say it all. */
  guard: 'on' | 'off';
  /** `gen_ai.conversation.id` of the session. */
  sessionId: string;
  /** `gen_ai.agent.name` (default `cleanup-agent`). */
  agentName?: string;
  /** Seed of the world (default 42); ignored when `world` is given. */
  seed?: number;
  /** `naive` (default): the article's agent. `careful`: reads everything with the all-pages collector first. */
  strategy?: Strategy;
  /** Default: `cleanup-bot` for naive (cannot read the security team's accounts), `cleanup-admin` for careful. */
  role?: Role;
  /** The world to act on; default a fresh one from `seed`. A shared world keeps the previous runs' changes. */
  world?: World;
}

const OptionsSchema = z.object({
  guard: z.enum(['on', 'off']),
  sessionId: z.string().min(1),
  agentName: z.string().min(1).default(DEFAULT_AGENT_NAME),
  seed: z.number().int().nonnegative().default(DEFAULT_SEED),
  strategy: z.enum(['naive', 'careful']).default('naive'),
  role: z.enum(ROLES).optional(),
});

export async function runCleanupAgent(options: RunCleanupAgentOptions): Promise<AgentRunSummary> {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`runCleanupAgent: ${problems.join('; ')}`);
  }
  const { guard, sessionId, agentName, strategy } = parsed.data;
  const role = parsed.data.role ?? DEFAULT_ROLES[strategy];
  const world = options.world ?? createWorld({ seed: parsed.data.seed });
  const { tooltrail } = options;

  const before = world.census();
  const session = tooltrail.session({ conversationId: sessionId, agentName, agentId: `${agentName}/${strategy}` });
  const rec = new RunRecorder();
  const ctx = {
    tools: createCleanupTools(tooltrail, world, role, guard),
    session,
    rec,
    ticketId: world.config.ticketId,
    controlId: world.config.controlId,
  };
  await (strategy === 'naive' ? naiveCleanup(ctx) : carefulCleanup(ctx));
  const after = world.census();

  return {
    sessionId,
    agentName,
    strategy,
    guard,
    onUnsafeEvidence: tooltrail.config.onUnsafeEvidence,
    role,
    seed: world.config.seed,
    task: before.ticket.body,
    calls: rec.calls,
    mutations: rec.mutations(),
    world: { before, after },
    outcome: describeOutcome(before, after, world, role),
  };
}

/** The careful agent: same options, strategy `careful`. */
export function runCarefulCleanupAgent(options: Omit<RunCleanupAgentOptions, 'strategy'>): Promise<AgentRunSummary> {
  return runCleanupAgent({ ...options, strategy: 'careful' });
}

/** What the run changed, judged against the ground truth the agent never saw. */
function describeOutcome(before: WorldCensus, after: WorldCensus, world: World, role: Role): string[] {
  const lines: string[] = [];
  const deleted = after.deleted.slice(before.deleted.length);
  const owned = deleted.filter((a) => a.owner !== null);
  lines.push(
    deleted.length === 0
      ? 'deleted no account'
      : `deleted ${plural(deleted.length, 'account')}: ${deleted.map((a) => a.id).join(', ')}` +
          (owned.length ? ` (${owned.length} of them had an owner!)` : ' (none had an owner)'),
  );
  const slow = new Set(
    world.config.shards.filter((s) => s.latencyMs > world.config.inventory.defaultDeadlineMs).map((s) => s.name),
  );
  const why = (a: WorldCensus['unowned'][number]) => {
    const notes: string[] = [];
    if (a.restricted && role === 'cleanup-bot') notes.push(`hidden from role ${role}`);
    if (slow.has(a.shard)) notes.push(`on slow shard ${a.shard}`);
    if (!a.indexed) notes.push('newer than the search index');
    return notes.length ? `${a.id} (${notes.join(', ')})` : a.id;
  };
  lines.push(
    after.unowned.length === 0
      ? 'no account without an owner remains'
      : `${plural(after.unowned.length, 'account')} without an owner remain: ${after.unowned.map(why).join('; ')}`,
  );
  const { control, ticket } = after;
  if (control.status !== before.control.status) {
    const wrong = control.status === 'compliant' && after.unowned.length > 0;
    lines.push(
      `control ${control.id} marked ${control.status}${wrong ? `, which is FALSE: ${plural(after.unowned.length, 'unowned account')} remain` : ''}`,
    );
  } else {
    lines.push(`control ${control.id} left ${control.status}`);
  }
  if (ticket.status !== before.ticket.status) {
    const wrong = after.unowned.length > 0;
    lines.push(`ticket ${ticket.id} ${ticket.status}${wrong ? ' while the work is not done' : ''}`);
  } else {
    lines.push(`ticket ${ticket.id} left ${ticket.status}`);
  }
  return lines;
}
