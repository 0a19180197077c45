/**
 * No SQL file names a converted column after the column itself and then sorts, filters or groups by that name:
 * ClickHouse resolves the name to the alias, so `toString(seq) AS seq … ORDER BY seq` sorts text (9 after 36).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../../..');
const SKIP = new Set(['node_modules', '.git', '.tooltrail', 'build', 'test-artifacts']);

function sqlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return sqlFiles(path);
    return e.name.endsWith('.sql') ? [path] : [];
  });
}

/** The names that a conversion shadows and that a later clause (ORDER/GROUP/LIMIT BY, WHERE, HAVING) uses. */
function shadowedConversions(sql: string): string[] {
  const text = sql.replace(/--[^\n]*/g, '');
  const found: string[] = [];
  for (const m of text.matchAll(/\b(to[A-Za-z0-9]+|CAST)\(\s*(\w+)\s*(?:AS\s+\w+\s*)?\)\s+AS\s+(\w+)/gi)) {
    const name = m[3] as string;
    if (m[2] !== name) continue;
    const rest = text.slice((m.index ?? 0) + m[0].length);
    const clause = new RegExp(`\\b(BY|WHERE|HAVING|AND|OR)\\b[^;]*?(?<![\\w.])${name}(?![\\w(])`, 'i');
    if (clause.test(rest)) found.push(name);
  }
  return found;
}

describe('SQL files: no conversion aliased over the column it converts and then sorted on', () => {
  it('catches the shape that made a restarted writer read the chain head 9 instead of 36', () => {
    const old = 'SELECT toString(seq) AS seq, digest_hash FROM t WHERE tenant = {t:String} ORDER BY seq DESC LIMIT 1';
    assert.deepEqual(shadowedConversions(old), ['seq']);
    assert.deepEqual(shadowedConversions(old.replace('AS seq,', 'AS seq_text,')), []);
  });

  it('no SQL file of the repository has it', () => {
    const files = sqlFiles(root);
    assert.ok(files.length > 20, `found only ${files.length} SQL files`);
    const offenders = files.flatMap((f) =>
      shadowedConversions(readFileSync(f, 'utf8')).map((n) => `${relative(root, f)}: ${n}`),
    );
    assert.deepEqual(offenders, []);
  });
});
