/** The evaluator's watermark in evaluator_state: every mutation before it has been judged at least once. */
import { z } from 'zod';
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { chTime, nextVersion, table } from '../identifiers.ts';

const WATERMARK = 'watermark';

export async function readWatermark(ch: ClickHouseClient, database: string, evaluator: string): Promise<Date | null> {
  const rs = await ch.query({
    query: `SELECT value FROM ${table(database, 'evaluator_state')} FINAL
            WHERE evaluator = {evaluator:String} AND key = {key:String}`,
    query_params: { evaluator, key: WATERMARK },
    format: 'JSONEachRow',
  });
  const rows = z.array(z.object({ value: z.string() })).parse(await rs.json<unknown>());
  const v = rows[0]?.value;
  if (v === undefined) return null;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new Error(`evaluator_state ${evaluator}/${WATERMARK} is not a time: "${v}"`);
  return new Date(t);
}

export async function writeWatermark(
  ch: ClickHouseClient,
  database: string,
  evaluator: string,
  watermark: Date,
  now: Date,
): Promise<void> {
  await ch.insert({
    table: table(database, 'evaluator_state'),
    format: 'JSONEachRow',
    values: [
      { evaluator, key: WATERMARK, value: watermark.toISOString(), updated_at: chTime(now), version: nextVersion() },
    ],
  });
}
