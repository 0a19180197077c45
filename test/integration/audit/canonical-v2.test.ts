/**
 * Canonical version 2 (audit/canonical.ts `rowBytes`) is the row as ClickHouse's own RowBinary writes it, maps
 * key-sorted and times in nanoseconds: held here to the server's `formatRow('RowBinary', ...)` of the rows it stores,
 * for rows flatten makes of random OTLP requests (every escape, non-ASCII, nulls, maps, events, links).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { canonicalValues, rowBinarySql, rowBytes, selectList, TABLE_SPECS } from '../../../audit/canonical.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { decodeExportTraceServiceRequest, encodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { stampTenant } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { plainRequest, prng, randomRequest } from '../../unit/ingest/otlp-payloads.ts';

describe('canonical version 2', () => {
  let db: TestDatabase;
  const tenant = uniqueName('t');
  before(async () => {
    // The random requests' spans are of 2023: kept past the default retention (not past 2106, DateTime's end).
    db = await freshDatabase('tt_canonical', { retentionDays: 10_000 });
    const writer = createClickHouseWriter(db.ch, { database: db.database });
    for (let seed = 1; seed <= 40; seed++) {
      const request = seed % 2 === 0 ? randomRequest(prng(seed)) : plainRequest(prng(seed));
      const wire = encodeExportTraceServiceRequest(stampTenant(request, tenant));
      await writer.writeRows(flatten(decodeExportTraceServiceRequest(wire)), { dedupToken: uniqueName('batch') });
    }
  });
  after(async () => {
    await db?.drop();
  });

  for (const spec of TABLE_SPECS) {
    it(`writes each ${spec.table} row as ClickHouse's RowBinary of its canonical columns`, async () => {
      const rs = await db.ch.query({
        query: `SELECT ${selectList(spec)}, hex(${rowBinarySql(spec)})
                FROM {db:Identifier}.{table:Identifier} WHERE \`${spec.tenant}\` = {tenant:String}`,
        query_params: { db: db.database, table: spec.table, tenant },
        format: 'JSONCompactEachRow',
      });
      const rows = await rs.json<unknown[]>();
      assert.ok(rows.length > 20, `${rows.length} ${spec.table} rows stored`);
      for (const row of rows) {
        const values = row.slice(0, -1);
        const mine = rowBytes(spec, canonicalValues(spec, values)).toString('hex').toUpperCase();
        assert.equal(mine, row.at(-1), JSON.stringify(values));
      }
    });
  }
});
