/**
 * The evaluator's watermarks in evaluator_state:
 *   - `watermark` (the evaluator's clock): every mutation that started before it has been judged at least once;
 *   - `arrival_watermark` (ClickHouse's clock): every read and mutation stored before it has been judged. An
 *     incremental run judges what arrived from there on; without it, a run judges the whole active horizon.
 * Both are written together, in one insert, after the run's findings are stored: a run that dies before that is
 * done again by the next one (findings are idempotent: same fingerprint, same first_seen).
 */
import { z } from 'zod';
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { sqlFiles } from '../../platform/sql-files.ts';
import { chTimeToIso } from '../detectors/rows.ts';
import { chTime, nextVersion, table } from '../identifiers.ts';

const sql = sqlFiles(new URL('./sql/', import.meta.url));

const WATERMARK = 'watermark';
const ARRIVAL_WATERMARK = 'arrival_watermark';

export interface Watermarks {
  watermark: Date | null;
  arrival: Date | null;
}

async function readKey(ch: ClickHouseClient, database: string, evaluator: string, key: string): Promise<Date | null> {
  const rs = await ch.query({
    query: sql('evaluator_state_value'),
    query_params: { db: database, evaluator, key },
    format: 'JSONEachRow',
  });
  const rows = z.array(z.object({ value: z.string() })).parse(await rs.json<unknown>());
  const v = rows[0]?.value;
  if (v === undefined) return null;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new Error(`evaluator_state ${evaluator}/${key} is not a time: "${v}"`);
  return new Date(t);
}

export function readWatermark(ch: ClickHouseClient, database: string, evaluator: string): Promise<Date | null> {
  return readKey(ch, database, evaluator, WATERMARK);
}

export async function readWatermarks(ch: ClickHouseClient, database: string, evaluator: string): Promise<Watermarks> {
  const [watermark, arrival] = await Promise.all([
    readKey(ch, database, evaluator, WATERMARK),
    readKey(ch, database, evaluator, ARRIVAL_WATERMARK),
  ]);
  return { watermark, arrival };
}

export async function writeWatermarks(
  ch: ClickHouseClient,
  database: string,
  evaluator: string,
  marks: { watermark: Date; arrival: Date },
  now: Date,
): Promise<void> {
  const row = (key: string, value: Date) => ({
    evaluator,
    key,
    value: value.toISOString(),
    updated_at: chTime(now),
    version: nextVersion(),
  });
  await ch.insert({
    table: table(database, 'evaluator_state'),
    format: 'JSONEachRow',
    values: [row(WATERMARK, marks.watermark), row(ARRIVAL_WATERMARK, marks.arrival)],
  });
}

/** ClickHouse's own time: the axis of ingested_at, whatever the evaluator's clock says. */
export async function clickhouseNow(ch: ClickHouseClient): Promise<Date> {
  const rs = await ch.query({ query: sql('clickhouse_now'), format: 'JSONEachRow' });
  const rows = z.array(z.object({ now: z.string() })).parse(await rs.json<unknown>());
  const v = rows[0]?.now;
  if (v === undefined) throw new Error('ClickHouse did not say what time it is');
  return new Date(chTimeToIso(v));
}
