/**
 * `tooltrail reconstruct` and `tooltrail verify` follow the read-scope rule of `findings` and `warnings`: with a
 * token (--token or TOOLTRAIL_API_TOKEN) they read the token's tenant only. Real ClickHouse, a real finding of
 * another tenant: its fingerprint reads as no finding at all. Once tokens are configured a read without a token
 * names its scope (--tenant or --all-tenants); with no tokens at all (local no-auth mode) it reads every tenant.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerReconstructCommands } from '../../../cli/commands/reconstruct/command.ts';
import { type CliResult, runCliInProcess } from '../../../testkit/cli-in-process.ts';
import { storeDetectedFinding } from '../../../testkit/findings.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { runScenario, type Scenario } from '../reconstruct/scenario.ts';

const ACME_TOKEN = 'acme-reader-token-0123456789';
const GLOBEX_TOKEN = 'globex-reader-token-0123456789';

/** Runs one reconstruct command in-process with `env` set; what it printed and its exit code. */
const cli = (args: string[], env: Record<string, string>): Promise<CliResult> =>
  runCliInProcess([registerReconstructCommands], args, env);

describe('reconstruct and verify: one tenant per credential', () => {
  let db: TestDatabase;
  let s: Scenario;
  let fingerprint: string;
  let env: Record<string, string>;
  before(async () => {
    db = await freshDatabase('tt_sec_recon');
    s = runScenario(uniqueName('sess'));
    await ingestSpans(db, s.spans, 'globex');
    const finding = await storeDetectedFinding(db, {
      now: new Date(s.startMs + 60_000),
      since: new Date(s.startMs - 60_000),
      pick: (f) => f.kind === 'mutation_after_incomplete_read' && f.session === s.session,
    });
    fingerprint = finding.fingerprint;
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

  it('with tokens configured, reconstruct and verify without a token, --tenant or --all-tenants are refused', async () => {
    const configured = [env, { ...env, TOOLTRAIL_API_TOKENS: '', TOOLTRAIL_COLLECTOR_TOKENS: `${ACME_TOKEN}=acme` }];
    for (const e of configured) {
      for (const args of [
        ['reconstruct', '--session', s.session, '--json'],
        ['reconstruct', '--finding', fingerprint, '--json'],
        ['verify', '--json'],
      ]) {
        const r = await cli(args, { ...e, TOOLTRAIL_API_TOKEN: '' });
        assert.equal(r.out, '', `${args.join(' ')} printed nothing`);
        assert.equal(r.code, 1, args.join(' '));
        assert.match(r.err, /tokens are configured \(TOOLTRAIL_(API|COLLECTOR)_TOKENS\), so a read names its scope/);
        assert.match(r.err, /--token.*--tenant <tenant>.*--all-tenants/);
      }
    }
  });

  it('with tokens configured, --tenant and --all-tenants name the scope of an operator read', async () => {
    const named = await cli(['reconstruct', '--session', s.session, '--json', '--tenant', 'globex'], env);
    assert.equal(named.code, 0, named.err);
    assert.equal(JSON.parse(named.out).subject.tenant, 'globex');
    const all = await cli(['reconstruct', '--finding', fingerprint, '--json', '--all-tenants'], env);
    assert.equal(all.code, 0, all.err);
    assert.equal(JSON.parse(all.out).subject.tenant, 'globex');
    assert.match(all.err, /every tenant \(--all-tenants, operator mode\)/);
    const refused = await cli(['verify', '--all-tenants', '--token', ACME_TOKEN], env);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /a token reads its own tenant only: --all-tenants is refused/);
  });

  it('without any tokens configured (local no-auth mode), reconstruct reads every tenant as before', async () => {
    const local = {
      TOOLTRAIL_CLICKHOUSE_DATABASE: db.database,
      TOOLTRAIL_API_TOKENS: '',
      TOOLTRAIL_COLLECTOR_TOKENS: '',
      TOOLTRAIL_API_TOKEN: '',
    };
    const r = await cli(['reconstruct', '--finding', fingerprint, '--json'], local);
    assert.equal(r.code, 0, r.err);
    assert.equal(JSON.parse(r.out).subject.tenant, 'globex');
    const v = await cli(['verify', '--json'], local);
    assert.doesNotMatch(v.err, /names its scope/);
  });
});
