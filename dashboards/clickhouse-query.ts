/**
 * A grafana-clickhouse-datasource (v4) SQL query as a Foundation SDK dataquery: the SDK has no ClickHouse
 * variant, so this builder emits the plugin's own query model (src/types/sql.ts: editorType `sql`, queryType,
 * rawSql) with the numeric `format` its backend reads (0 time series, 1 table; src/data/utils.ts).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as cog from '@grafana/grafana-foundation-sdk/cog';
import { clickhouseRef } from './datasources.ts';

export const SQL_DIR = join(dirname(fileURLToPath(import.meta.url)), 'sql');

/** Plugin versions from 4.0.0 read this query model as is (older ones get migrated by the plugin). */
export const CLICKHOUSE_QUERY_PLUGIN_VERSION = '4.0.0';

export type ClickHouseQueryType = 'timeseries' | 'table';

const FORMAT: Record<ClickHouseQueryType, number> = { timeseries: 0, table: 1 };

export interface ClickHouseQuery extends cog.Dataquery {
  refId: string;
  datasource: { type?: string; uid?: string };
  editorType: 'sql';
  queryType: ClickHouseQueryType;
  format: number;
  rawSql: string;
  pluginVersion: string;
}

/** A panel SQL file (`sql/<dashboard>/<name>.sql`) without its leading comment lines, which Grafana would show. */
export function panelSql(relativePath: string): string {
  const text = readFileSync(join(SQL_DIR, relativePath), 'utf8');
  const lines = text.split('\n');
  let first = 0;
  while (first < lines.length && (lines[first]!.startsWith('--') || lines[first]!.trim() === '')) first++;
  return lines.slice(first).join('\n').trim();
}

export class ClickHouseQueryBuilder implements cog.Builder<cog.Dataquery> {
  constructor(
    private readonly rawSql: string,
    private readonly queryType: ClickHouseQueryType,
    private readonly refId = 'A',
  ) {}

  build(): ClickHouseQuery {
    return {
      refId: this.refId,
      datasource: clickhouseRef(),
      editorType: 'sql',
      queryType: this.queryType,
      format: FORMAT[this.queryType],
      rawSql: this.rawSql,
      pluginVersion: CLICKHOUSE_QUERY_PLUGIN_VERSION,
      // cog's variant marker: a method, so it never reaches the JSON.
      _implementsDataqueryVariant() {},
    };
  }
}
