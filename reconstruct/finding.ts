/**
 * `--finding FINGERPRINT`: an alert finding names the session (or trace) and the mutation it is about; the
 * reconstruction is that session's, with the finding attached so renderers can point at the mutation.
 * Findings are written by alerts/ (table `findings`); this module only reads that table.
 */
import { z } from 'zod';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import type { SchemaConfig } from '../schema/config.ts';
import { NotFoundError, type ReconstructOptions, reconstructSession, reconstructTrace } from './reconstruct.ts';
import { selectRows } from './sql.ts';
import type { Reconstruction } from './timeline.ts';

export const FindingRefSchema = z.object({
  fingerprint: z.string(),
  kind: z.string(),
  tenant: z.string(),
  session_id: z.string(),
  trace_id: z.string(),
  mutation_span_id: z.string(),
  summary: z.string(),
});
export type FindingRef = z.infer<typeof FindingRefSchema>;

/** Fingerprint -> the finding, or null when there is none. */
export type FindingResolver = (fingerprint: string) => Promise<FindingRef | null>;

/** Reads the alerts' `findings` table; a clear error when alerts' migrations were never applied. */
export function findingResolverFor(ch: ClickHouseClient, schema: SchemaConfig): FindingResolver {
  return async (fingerprint) => {
    try {
      const rows = await selectRows(
        ch,
        'finding_by_fingerprint',
        { db: schema.database, fingerprint },
        FindingRefSchema,
      );
      return rows[0] ?? null;
    } catch (err) {
      if (/UNKNOWN_TABLE|Unknown table|doesn't exist/i.test(String(err))) {
        throw new NotFoundError(`no findings table in database ${schema.database}: run \`tooltrail migrate\``);
      }
      throw err;
    }
  };
}

export async function reconstructFinding(
  ch: ClickHouseClient,
  schema: SchemaConfig,
  resolve: FindingResolver,
  fingerprint: string,
  options: ReconstructOptions = {},
): Promise<Reconstruction> {
  const f = await resolve(fingerprint);
  if (!f) throw new NotFoundError(`no finding with fingerprint ${fingerprint}`);
  let r: Reconstruction;
  if (f.session_id) r = await reconstructSession(ch, schema, { tenant: f.tenant, session: f.session_id }, options);
  else if (f.trace_id) r = await reconstructTrace(ch, schema, { tenant: f.tenant, trace: f.trace_id }, options);
  else {
    throw new NotFoundError(
      `finding ${fingerprint} (${f.kind}) is not about an agent session: there is no timeline to reconstruct`,
    );
  }
  return {
    ...r,
    subject: { kind: 'finding', id: fingerprint, tenant: f.tenant },
    finding: {
      fingerprint: f.fingerprint,
      kind: f.kind,
      summary: f.summary,
      session_id: f.session_id || null,
      trace_id: f.trace_id || null,
      mutation_span_id: f.mutation_span_id || null,
    },
  };
}
