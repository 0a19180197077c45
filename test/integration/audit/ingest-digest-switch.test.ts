/**
 * `tooltrail ingest` (the command's own code, as a child process) records audit digests by default and none when
 * switched off, saying so on stderr: rows stored without digests must be a visible choice, never a silent one.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { createHarness, type Harness } from '../ingest/harness.ts';

const CHILD = fileURLToPath(new URL('../ingest/ingest-child.ts', import.meta.url));

let h: Harness;
before(async () => {
  h = await createHarness('digest_switch');
});
after(async () => {
  await h?.close();
});

/** Runs the ingest until `toolCalls` rows are stored, then stops it (SIGTERM); returns its stderr. */
async function ingestUntil(extra: Record<string, string>, toolCalls: number): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: h.env(extra),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  try {
    const n = await h.waitForCount(`SELECT count() AS n FROM ${h.db.database}.tool_calls`, toolCalls, 60_000);
    assert.equal(n, toolCalls, `rows stored; child said: ${err}`);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  return err;
}

describe('tooltrail ingest audit digests switch', () => {
  it('records nothing with TOOLTRAIL_INGEST_AUDIT_DIGESTS=false or TOOLTRAIL_AUDIT_LOG=false and warns, then logs by default', async () => {
    const digests = `SELECT count() AS n FROM ${h.db.database}.audit_log_tiles`;
    await h.produce(Array.from({ length: 5 }, (_, i) => syntheticMessage({ tenant: 'acme', toolSpans: 4, seed: i })));
    const off = await ingestUntil({ TOOLTRAIL_INGEST_AUDIT_DIGESTS: 'false' }, 20);
    assert.match(off, /audit digests are OFF/);
    assert.equal(await h.count(digests), 0, 'no digest recorded while switched off');

    // The log is the whole record: switching it off switches the audit trail off, and says so the same way.
    await h.produce(
      Array.from({ length: 5 }, (_, i) => syntheticMessage({ tenant: 'acme', toolSpans: 4, seed: 50 + i })),
    );
    const logOff = await ingestUntil({ TOOLTRAIL_AUDIT_LOG: 'false' }, 40);
    assert.match(logOff, /audit digests are OFF/);
    assert.equal(await h.count(digests), 0, 'nothing logged with the log switched off');

    await h.produce(
      Array.from({ length: 5 }, (_, i) => syntheticMessage({ tenant: 'acme', toolSpans: 4, seed: 100 + i })),
    );
    const on = await ingestUntil({}, 60);
    assert.doesNotMatch(on, /audit digests are OFF/);
    const covered = `SELECT sum(width) AS n FROM ${h.db.database}.audit_log_tiles WHERE kind = 'entries' AND row_table = 'tool_calls'`;
    assert.equal(await h.waitForCount(covered, 20, 30_000), 20, 'the default run logs the rows it stored');
  });
});
