/**
 * `tooltrail findings`, `tooltrail warnings` and `tooltrail warnings history` against the real ClickHouse, two
 * tenants holding the same corpus: a token reads its own tenant only, a forged --tenant or --all-tenants with a
 * token is refused, and nothing prints several tenants unless the operator asked for --all-tenants.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase } from '../../../testkit/services.ts';
import { buildSessionSpans } from '../../../testkit/session-spans.ts';
import { runAlertsCli } from '../alerts/cli-harness.ts';
import { dailyWarningSessions, scenarioSessions } from '../alerts/scenarios.ts';

const now = new Date();
const ACME_TOKEN = 'acme-reader-token-0123456789';
const GLOBEX_TOKEN = 'globex-reader-token-0123456789';
const TOKENS = `${ACME_TOKEN}=acme,${GLOBEX_TOKEN}=globex`;
let db: TestDatabase;
let env: Record<string, string>;

/** The commands, each with its output's tenants read from its --json output. */
const COMMANDS: { name: string; args: string[]; tenants: (out: string) => string[] }[] = [
  {
    name: 'findings',
    args: ['findings', '--json'],
    tenants: (out) => (JSON.parse(out) as { tenant: string }[]).map((f) => f.tenant),
  },
  {
    name: 'warnings',
    args: ['warnings', '--json'],
    tenants: (out) => (JSON.parse(out) as { tenant: string }[]).map((w) => w.tenant),
  },
  {
    name: 'warnings history',
    args: ['warnings', 'history', '--json'],
    tenants: (out) => (JSON.parse(out) as { tenant: string }[]).map((c) => c.tenant),
  },
  {
    name: 'warnings history <code> <source>',
    args: ['warnings', 'history', 'STALE_INDEX', 'accounts-index', '--json'],
    tenants: (out) => (JSON.parse(out) as { tenant: string }[]).map((c) => c.tenant),
  },
];

before(async () => {
  db = await freshDatabase('tt_sec_cli');
  // The same corpus (same session names, codes, sources) in both tenants, built once per tenant.
  for (const tenant of ['acme', 'globex']) {
    await ingestSpans(
      db,
      buildSessionSpans([...scenarioSessions(now), ...dailyWarningSessions(now, 10)]).spans,
      tenant,
    );
  }
  env = {
    TOOLTRAIL_CLICKHOUSE_DATABASE: db.database,
    TOOLTRAIL_API_TOKENS: TOKENS,
    TOOLTRAIL_API_TOKEN: '',
    TOOLTRAIL_ALERTS_TENANT: '',
  };
  // A change in each tenant's warning log, written by an operator (the writer account).
  for (const tenant of ['acme', 'globex']) {
    await runAlertsCli(
      [
        'warnings',
        'ack',
        'STALE_INDEX',
        'accounts-index',
        '--tenant',
        tenant,
        '--owner',
        'ops',
        '--by',
        'op',
        '--reason',
        'on it',
      ],
      env,
    );
  }
});
after(async () => {
  await db?.drop();
});

describe('findings and warnings: one tenant per credential', () => {
  for (const cmd of COMMANDS) {
    it(`${cmd.name}: a token prints its own tenant's rows only (--token or TOOLTRAIL_API_TOKEN)`, async () => {
      for (const [token, tenant] of [
        [ACME_TOKEN, 'acme'],
        [GLOBEX_TOKEN, 'globex'],
      ]) {
        const viaFlag = await runAlertsCli([...cmd.args, '--token', token!], env, () => now);
        const viaEnv = await runAlertsCli(cmd.args, { ...env, TOOLTRAIL_API_TOKEN: token! }, () => now);
        const restated = await runAlertsCli([...cmd.args, '--token', token!, '--tenant', tenant!], env, () => now);
        for (const r of [viaFlag, viaEnv, restated]) {
          const tenants = cmd.tenants(r.out);
          assert.ok(tenants.length > 0, `${cmd.name} printed rows`);
          assert.deepEqual(new Set(tenants), new Set([tenant]));
        }
      }
    });

    it(`${cmd.name}: a token cannot read another tenant (--tenant) or every tenant (--all-tenants)`, async () => {
      for (const extra of [['--tenant', 'globex'], ['--all-tenants']]) {
        await assert.rejects(
          runAlertsCli([...cmd.args, '--token', ACME_TOKEN, ...extra], env, () => now),
          /does not give access to tenant "globex"|--all-tenants is refused/,
        );
        await assert.rejects(
          runAlertsCli([...cmd.args, ...extra], { ...env, TOOLTRAIL_API_TOKEN: ACME_TOKEN }, () => now),
          /does not give access to tenant "globex"|--all-tenants is refused/,
        );
      }
    });

    it(`${cmd.name}: an unknown token, or a token with no token map, is refused`, async () => {
      await assert.rejects(
        runAlertsCli([...cmd.args, '--token', `${ACME_TOKEN}x`], env, () => now),
        /the token is not valid/,
      );
      await assert.rejects(
        runAlertsCli([...cmd.args, '--token', ACME_TOKEN], { ...env, TOOLTRAIL_API_TOKENS: '' }, () => now),
        /TOOLTRAIL_API_TOKENS is not set/,
      );
    });

    it(`${cmd.name}: without a token, nothing is printed until the operator names the scope`, async () => {
      await assert.rejects(
        runAlertsCli(cmd.args, env, () => now),
        /whose data\?/,
      );
      const one = await runAlertsCli([...cmd.args, '--tenant', 'globex'], env, () => now);
      assert.deepEqual(new Set(cmd.tenants(one.out)), new Set(['globex']));
      const all = await runAlertsCli([...cmd.args, '--all-tenants'], env, () => now);
      assert.deepEqual(new Set(cmd.tenants(all.out)), new Set(['acme', 'globex']));
      assert.match(all.err, /every tenant \(--all-tenants, operator mode\)/);
      await assert.rejects(
        runAlertsCli([...cmd.args, '--tenant', 'acme', '--all-tenants'], env, () => now),
        /not both/,
      );
    });
  }

  it('the text output of findings names only the token tenant', async () => {
    const { out } = await runAlertsCli(['findings', '--token', ACME_TOKEN], env, () => now);
    assert.match(out, /tenant=acme/);
    assert.doesNotMatch(out, /globex/);
  });
});
