import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { queryRows, rowBuilder } from '../../../alerts/detectors/load.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';

describe('detector result rows', () => {
  it('maps each value to the column of the same position', () => {
    const build = rowBuilder(['kind', 'score', 'reasons']);
    assert.deepEqual(build(['m', 7, ['A', 'B']]), { kind: 'm', score: 7, reasons: ['A', 'B'] });
    assert.deepEqual(Object.keys(build(['x', 1, []])), ['kind', 'score', 'reasons']);
  });

  it('keeps a column name with quotes, backslashes or code in it as a plain key, never as code', () => {
    const names = ['a"b', 'c\\d', '}; globalThis.pwned = 1; ({', 'e\nf'];
    const row = rowBuilder(names)([1, 2, 3, 4]);
    assert.deepEqual(Object.keys(row), names);
    assert.equal((globalThis as Record<string, unknown>).pwned, undefined);
  });

  it('refuses a column named __proto__ rather than replace the row prototype', () => {
    assert.throws(() => rowBuilder(['ok', '__proto__']), /__proto__/);
  });

  it('returns one object per row of the JSONCompact document, and none for an empty result', async () => {
    const documents = [
      {
        meta: [{ name: 'tenant' }, { name: 'n' }],
        data: [
          ['acme', '3'],
          ['globex', '5'],
        ],
      },
      { meta: [{ name: 'tenant' }, { name: 'n' }], data: [] },
    ];
    const formats: string[] = [];
    const ch = {
      query: async (q: { format: string }) => {
        formats.push(q.format);
        const doc = documents.shift();
        return { json: async () => doc };
      },
    } as unknown as ClickHouseClient;
    assert.deepEqual(await queryRows(ch, 'SELECT 1', {}), [
      { tenant: 'acme', n: '3' },
      { tenant: 'globex', n: '5' },
    ]);
    assert.deepEqual(await queryRows(ch, 'SELECT 1', {}), []);
    assert.deepEqual(formats, ['JSONCompact', 'JSONCompact']);
  });

  it('fails loudly when the result carries no column names instead of returning nameless rows', async () => {
    const ch = { query: async () => ({ json: async () => ({ data: [['acme']] }) }) } as unknown as ClickHouseClient;
    await assert.rejects(queryRows(ch, 'SELECT 1', {}), /without its column names/);
  });
});
