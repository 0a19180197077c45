/**
 * Reconstruction entry points: a session, a trace, or an alert finding -> the typed `Reconstruction`. Loads what
 * ClickHouse holds (sql/*.sql, parameters bound) and hands it to the pure builder (build.ts).
 */
import { z } from 'zod';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import type { SchemaConfig } from '../schema/config.ts';
import { buildSessionTimeline } from './build.ts';
import { type CallRow, CallRowSchema, KnownSpanSchema, type SessionData, WarningDetailRowSchema } from './rows.ts';
import { selectRows } from './sql.ts';
import {
  RECONSTRUCTION_FORMAT,
  RECONSTRUCTION_VERSION,
  type Reconstruction,
  type SessionTimeline,
  type Subject,
} from './timeline.ts';

export const DEFAULT_MAX_CALLS = 5_000;

export interface ReconstructOptions {
  /** Most calls loaded per session; more makes the reconstruction say it is truncated (default 5,000). */
  maxCalls?: number;
  /** Clock for `generated_at` (tests inject one). */
  now?: () => Date;
}

/** The subject has no stored tool calls (CLI exit 2, HTTP 404). */
export class NotFoundError extends Error {
  override name = 'NotFoundError';
}

interface Target {
  tenant: string;
  session: string;
  /** Only for calls that named no session: the trace they ran in. */
  trace: string;
}

/** Loads one (tenant, session) and builds its timeline. */
export async function loadSessionTimeline(
  ch: ClickHouseClient,
  schema: SchemaConfig,
  target: { tenant: string; session: string; trace?: string },
  options: ReconstructOptions = {},
): Promise<SessionTimeline> {
  const db = schema.database;
  const t: Target = { tenant: target.tenant, session: target.session, trace: target.trace ?? '' };
  const max = options.maxCalls ?? DEFAULT_MAX_CALLS;
  const loaded = await selectRows(
    ch,
    'calls_of_session',
    { db, tenant: t.tenant, session: t.session, trace: t.trace, limit: max + 1 },
    CallRowSchema,
  );
  const truncated = loaded.length > max;
  const calls = loaded.slice(0, max);
  const traces = [...new Set(calls.map((c) => c.trace_id))];
  const spans = calls.map((c) => c.span_id);
  const bounds = timeBounds(calls);

  const callIds = new Set(calls.map((c) => c.tool_call_id).filter(Boolean));
  const wantedIds = [...new Set(calls.flatMap((c) => c.evidence_call_ids))].filter((id) => !callIds.has(id));
  // Snapshot tokens may be shared across sessions; always look them up so cross-session reads are linked too.
  const wantedSnapshots = [...new Set(calls.flatMap((c) => c.evidence_snapshots))];

  const [knownSpans, warnings, referencedReads] = await Promise.all([
    traces.length ? selectRows(ch, 'spans_of_traces', { db, tenant: t.tenant, traces }, KnownSpanSchema) : [],
    spans.length
      ? selectRows(ch, 'warnings_of_calls', { db, tenant: t.tenant, spans, ...bounds }, WarningDetailRowSchema)
      : [],
    wantedIds.length || wantedSnapshots.length
      ? selectRows(
          ch,
          'reads_referenced',
          { db, tenant: t.tenant, call_ids: wantedIds, snapshots: wantedSnapshots },
          CallRowSchema,
        )
      : [],
  ]);
  const data: SessionData = {
    tenant: t.tenant,
    sessionId: t.session,
    calls,
    truncated,
    knownSpans,
    warnings,
    referencedReads,
  };
  return buildSessionTimeline(data);
}

function timeBounds(calls: CallRow[]): { from_ns: string; to_ns: string } {
  let from: bigint | undefined;
  let to: bigint | undefined;
  for (const c of calls) {
    const s = BigInt(c.start_ns);
    const e = BigInt(c.end_ns) > s ? BigInt(c.end_ns) : s;
    if (from === undefined || s < from) from = s;
    if (to === undefined || e > to) to = e;
  }
  return { from_ns: String(from ?? 0n), to_ns: String(to ?? 0n) };
}

function envelope(subject: Subject, sessions: SessionTimeline[], options: ReconstructOptions): Reconstruction {
  return {
    format: RECONSTRUCTION_FORMAT,
    version: RECONSTRUCTION_VERSION,
    generated_at: (options.now?.() ?? new Date()).toISOString(),
    subject,
    finding: null,
    sessions,
  };
}

/**
 * A session (of one tenant, or of every tenant that holds that id when `tenant` is not given). Calls that carried no
 * `gen_ai.conversation.id` form a session named by their trace id, as the detectors and their findings name it.
 */
export async function reconstructSession(
  ch: ClickHouseClient,
  schema: SchemaConfig,
  query: { tenant?: string; session: string },
  options: ReconstructOptions = {},
): Promise<Reconstruction> {
  const tenants = await selectRows(
    ch,
    'tenants_of_session',
    { db: schema.database, session: query.session, tenant: query.tenant ?? '' },
    z.object({ tenant: z.string(), by_trace: z.union([z.boolean(), z.number()]).transform(Boolean) }),
  );
  if (tenants.length === 0) {
    throw new NotFoundError(
      `no tool calls stored for session ${query.session}${query.tenant ? ` in tenant ${query.tenant}` : ''}`,
    );
  }
  const sessions: SessionTimeline[] = [];
  for (const { tenant, by_trace } of tenants) {
    // A session named by its trace id (no gen_ai.conversation.id): the calls of that trace that named none.
    const target = by_trace ? { tenant, session: '', trace: query.session } : { tenant, session: query.session };
    sessions.push(await loadSessionTimeline(ch, schema, target, options));
  }
  return envelope({ kind: 'session', id: query.session, tenant: query.tenant ?? null }, sessions, options);
}

/**
 * A trace: every session whose tool calls ran in it, each reconstructed whole (sequence gaps are only visible
 * across the whole session); calls of the trace that named no session form a timeline of their own.
 */
export async function reconstructTrace(
  ch: ClickHouseClient,
  schema: SchemaConfig,
  query: { tenant?: string; trace: string },
  options: ReconstructOptions = {},
): Promise<Reconstruction> {
  const pairs = await selectRows(
    ch,
    'sessions_of_trace',
    { db: schema.database, trace: query.trace, tenant: query.tenant ?? '' },
    z.object({ tenant: z.string(), session_id: z.string() }),
  );
  if (pairs.length === 0) {
    throw new NotFoundError(
      `no tool calls stored for trace ${query.trace}${query.tenant ? ` in tenant ${query.tenant}` : ''}`,
    );
  }
  const sessions: SessionTimeline[] = [];
  for (const p of pairs) {
    const target = p.session_id
      ? { tenant: p.tenant, session: p.session_id }
      : { tenant: p.tenant, session: '', trace: query.trace };
    sessions.push(await loadSessionTimeline(ch, schema, target, options));
  }
  return envelope({ kind: 'trace', id: query.trace, tenant: query.tenant ?? null }, sessions, options);
}
