import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ColumnRole, TABLES } from '../../../schema/tables.ts';
import { freshDatabase, type TestDatabase } from '../../../testkit/services.ts';

const ROLE_OF_DEFAULT_KIND: Record<string, ColumnRole> = { '': 'sent', ALIAS: 'derived', DEFAULT: 'server' };

describe('the table definition (schema/tables.ts)', () => {
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase('tt_tabledef');
  });
  after(async () => db?.drop());

  for (const table of TABLES) {
    it(`equals ${table.name} as the migrations leave it: every column's name, type, codec and role, in order`, async () => {
      const rs = await db.ch.query({
        query:
          'SELECT name, type, compression_codec, default_kind FROM system.columns ' +
          'WHERE database = {db:String} AND table = {table:String} ORDER BY position',
        query_params: { db: db.database, table: table.name },
        format: 'JSONCompactEachRow',
      });
      const migrated = (await rs.json<[string, string, string, string]>()).map(([name, type, codec, kind]) => [
        name,
        type,
        codec.replace(/^CODEC\((.*)\)$/, '$1'),
        ROLE_OF_DEFAULT_KIND[kind] ?? `unexpected default kind ${kind}`,
      ]);
      assert.deepEqual(migrated, table.columns);
    });
  }
});
