/** One naming style for SQL files: snake_case, as ClickHouse's own docs and our migrations name them. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { it } from 'node:test';

const root = resolve(import.meta.dirname, '../../..');

it('names every SQL file in snake_case', () => {
  const files = execFileSync('git', ['ls-files', '*.sql'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  assert.ok(files.length > 100, `found ${files.length} SQL files`);
  const off = files.filter((f) => !/^[a-z0-9_]+(\.up|\.down)?\.sql$/.test(f.split('/').at(-1) ?? ''));
  assert.deepEqual(off, []);
});
