/**
 * `tooltrail reconstruct` and `tooltrail verify` follow the read-scope rule of `findings` and `warnings`: with a
 * token (--token or TOOLTRAIL_API_TOKEN) they read the token's tenant only. Real ClickHouse, a real finding of
 * another tenant: its fingerprint reads as no finding at all.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Command } from 'commander';
import { defaultAlertsConfig } from '../../../alerts/config.ts';
import { detect } from '../../../alerts/findings/detect.ts';
import { writeRecords } from '../../../alerts/findings/store.ts';
import { registerReconstructCommands } from '../../../cli/reconstruct.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, services, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { runScenario, type Scenario } from '../reconstruct/scenario.ts';

const ACME_TOKEN = 'acme-reader-token-0123456789';
const GLOBEX_TOKEN = 'globex-reader-token-0123456789';

/** Runs one reconstruct command in-process with `env` set; what it printed and its exit code. */
async function cli(args: string[], env: Record<string, string>): Promise<{ out: string; err: string; code: number }> {
  const out: string[] = [];
  const err: string[] = [];
  const saved = { log: console.log, error: console.error, env: { ...process.env } };
  console.log = (...a: unknown[]) => out.push(a.join(' '));
  console.error = (...a: unknown[]) => err.push(a.join(' '));
  Object.assign(process.env, env);
  try {
    const program = new Command('tooltrail').exitOverride();
    registerReconstructCommands(program);
    await program.parseAsync(args, { from: 'user' });
    return { out: out.join('\n'), err: err.join('\n'), code: Number(process.exitCode ?? 0) };
  } finally {
    console.log = saved.log;
    console.error = saved.error;
    for (const k of Object.keys(env)) {
      if (saved.env[k] === undefined) delete process.env[k];
      else process.env[k] = saved.env[k];
    }
    process.exitCode = 0;
  }
}

describe('reconstruct and verify: one tenant per credential', () => {
  let db: TestDatabase;
  let s: Scenario;
  let fingerprint: string;
  let env: Record<string, string>;
  before(async () => {
    db = await freshDatabase('tt_sec_recon');
    s = runScenario(uniqueName('sess'));
    await ingestSpans(db, s.spans, 'globex');
    const now = new Date(s.startMs + 60_000);
    const found = await detect({
      ch: db.ch,
      database: db.database,
      config: defaultAlertsConfig(services.alertmanager.url),
      now,
      since: new Date(s.startMs - 60_000),
    });
    const finding = found.findings.find((f) => f.kind === 'mutation_after_incomplete_read' && f.session === s.session);
    assert.ok(finding, 'the detectors found globex mutation');
    fingerprint = finding.fingerprint;
    await writeRecords(db.ch, db.database, [
      {
        finding,
        first_seen: now,
        last_seen: now,
        resolved_at: null,
        resolution: '',
        alert_status: 'not_sent',
        last_sent_at: null,
      },
    ]);
    env = {
      TOOLTRAIL_CLICKHOUSE_DATABASE: db.database,
      TOOLTRAIL_API_TOKENS: `${ACME_TOKEN}=acme,${GLOBEX_TOKEN}=globex`,
    };
  });
  after(async () => {
    await db?.drop();
  });

  it("reconstruct --finding with one tenant's token does not print another tenant's finding", async () => {
    for (const run of [
      () => cli(['reconstruct', '--finding', fingerprint, '--json', '--token', ACME_TOKEN], env),
      () => cli(['reconstruct', '--finding', fingerprint, '--json'], { ...env, TOOLTRAIL_API_TOKEN: ACME_TOKEN }),
    ]) {
      const r = await run();
      assert.equal(r.out, '', 'nothing of globex is printed');
      assert.notEqual(r.code, 0);
      assert.match(r.err, new RegExp(`no finding with fingerprint ${fingerprint}`));
    }
    const own = await cli(['reconstruct', '--finding', fingerprint, '--json', '--token', GLOBEX_TOKEN], env);
    assert.equal(own.code, 0, own.err);
    assert.equal(JSON.parse(own.out).subject.tenant, 'globex');
  });

  it('reconstruct --session and verify with a token refuse a --tenant the token does not give', async () => {
    for (const args of [
      ['reconstruct', '--session', s.session, '--tenant', 'globex', '--token', ACME_TOKEN],
      ['verify', '--tenant', 'globex', '--token', ACME_TOKEN],
    ]) {
      const r = await cli(args, env);
      assert.equal(r.out, '');
      assert.notEqual(r.code, 0);
      assert.match(r.err, /does not give access to tenant "globex"/);
    }
  });

  it("reconstruct --session with a token finds nothing in another tenant's session", async () => {
    const r = await cli(['reconstruct', '--session', s.session, '--json', '--token', ACME_TOKEN], env);
    assert.doesNotMatch(r.out, /globex/);
  });
});
