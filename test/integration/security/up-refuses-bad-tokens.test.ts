/**
 * `tooltrail up` checks its collector tokens and its tool policy file before it starts anything: a too-short token
 * or a bad policy key is one clear line and exit code 2, with no stack trace and no service started or database
 * migrated behind it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const BIN = resolve(import.meta.dirname, '../../../bin/tooltrail.js');

function up(args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, 'up', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, TOOLTRAIL_COLLECTOR_TOKENS: '' },
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe('tooltrail up: tokens are checked before anything starts', () => {
  it('refuses a too-short --tokens token with one line, exit 2, nothing started', () => {
    const r = up(['--tokens', 'short=acme', '--port', '0']);
    assert.equal(r.status, 2, r.err);
    assert.match(r.err, /--tokens\.0: the token must be at least 16 characters/);
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
    assert.doesNotMatch(r.err, /short/, 'the token is not echoed');
    assert.doesNotMatch(r.out, /clickhouse|schema|started/i, 'nothing was started or migrated');
  });

  it('reads tokens from --tokens-file (kept out of ps), checking them the same way', () => {
    const file = join(tmpdir(), `tt-tokens-${process.pid}.txt`);
    writeFileSync(file, 'a-long-enough-token-0001=acme\nshort=globex\n');
    const r = up(['--tokens-file', file, '--port', '0']);
    assert.equal(r.status, 2, r.err);
    assert.match(r.err, /--tokens-file\.1: the token must be at least 16 characters/);
  });

  it('refuses a tool policy file with a bad key the same way, naming the key', () => {
    const file = join(tmpdir(), `tt-policy-${process.pid}.yaml`);
    writeFileSync(file, 'tools:\n  delete_account:\n    effect: delete\n');
    const r = up(['--policy', file, '--port', '0']);
    assert.equal(r.status, 2, r.err);
    assert.match(r.err, /--policy: .*tools\.delete_account\.effect/);
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
    assert.doesNotMatch(r.out, /clickhouse|schema|started/i, 'nothing was started or migrated');
  });
});
