/** The benches' own SQL (bench/sql/), loaded as every stage loads its own, and the counts they all ask for. */
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { sqlFiles } from '../../platform/sql-files.ts';
import { sleep } from '../../testkit/wait.ts';

export const benchSql = sqlFiles(new URL('../sql/', import.meta.url));
/** The detector evaluation's generator and the detectors of before it times (bench/detector-evaluation/). */
export const evaluationSql = sqlFiles(new URL('../detector-evaluation/', import.meta.url));
/** The reference detectors of the test kit (testkit/reference/). */
export const referenceSql = sqlFiles(new URL('../../testkit/reference/', import.meta.url));

/** The `n` of a one-row count query of bench/sql/. */
export async function countOf(ch: ClickHouseClient, name: string, params: Record<string, unknown>): Promise<number> {
  const rs = await ch.query({ query: benchSql(name), query_params: params, format: 'JSONEachRow' });
  return Number((await rs.json<{ n: string | number }>())[0]?.n ?? 0);
}

/** Rows of `db.table`. */
export function rowCount(ch: ClickHouseClient, db: string, table: string): Promise<number> {
  return countOf(ch, 'row_count', { db, table });
}

/**
 * Waits (at most `limitMs`) until no merge runs in `db` ('' = anywhere on the server) at two polls a second apart
 * (one merge ending may let the next one start); returns how long that took.
 */
export async function settleMerges(ch: ClickHouseClient, db: string, limitMs: number): Promise<number> {
  const t0 = performance.now();
  let quiet = 0;
  while (performance.now() - t0 < limitMs) {
    quiet = (await countOf(ch, 'running_merges', { db })) === 0 ? quiet + 1 : 0;
    if (quiet === 2) break;
    await sleep(1000);
  }
  return performance.now() - t0;
}
