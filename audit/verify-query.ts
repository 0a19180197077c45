/** What the verifier's parts share: how they query, how they report an issue, and the shapes they read. */
import { z } from 'zod';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import type { VerifyIssue } from './report.ts';

export const decimal = z.string().regex(/^\d+$/);

export async function rows<T>(
  ch: ClickHouseClient,
  query: string,
  params: Record<string, unknown>,
  schema: z.ZodType<T>,
): Promise<T[]> {
  const rs = await ch.query({ query, query_params: params, format: 'JSONEachRow' });
  return (await rs.json<unknown>()).map((r) => schema.parse(r));
}

export const isoOf = (seconds: number) => new Date(seconds * 1000).toISOString();

/** Adds one issue; the fields a part does not know default to null. */
export type IssueSink = (i: Partial<VerifyIssue> & Pick<VerifyIssue, 'kind' | 'tenant' | 'statement'>) => void;

export function push<V>(m: Map<string, V[]>, k: string, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}
