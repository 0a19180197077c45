/**
 * Loads the `.sql` files next to the code and runs them with bound parameters only. The database name is bound
 * too, as an `Identifier` parameter (`{db:Identifier}.tool_calls`), so no value is ever spliced into SQL text.
 */

import type { z } from 'zod';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { sqlFiles } from '../platform/sql-files.ts';

export const sqlFile = sqlFiles(new URL('./sql/', import.meta.url));

/** Runs `reconstruct/sql/<name>.sql` and checks every row against `row`. */
export async function selectRows<T>(
  ch: ClickHouseClient,
  name: string,
  params: Record<string, unknown>,
  row: z.ZodType<T>,
): Promise<T[]> {
  const rs = await ch.query({ query: sqlFile(name), query_params: params, format: 'JSONEachRow' });
  const raw = await rs.json<unknown>();
  return raw.map((r, i) => {
    const parsed = row.safeParse(r);
    if (!parsed.success) {
      throw new Error(
        `${name}.sql row ${i} has an unexpected shape: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`,
      );
    }
    return parsed.data;
  });
}
