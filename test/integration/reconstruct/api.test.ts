import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Command } from 'commander';
import type { FastifyInstance } from 'fastify';
import { buildApiServer } from '../../../cli/commands/reconstruct/api-server.ts';
import { registerReconstructCommands } from '../../../cli/commands/reconstruct/command.ts';
import { TokenDirectory } from '../../../platform/auth/tokens.ts';
import { ReconstructionSchema } from '../../../reconstruct/timeline.ts';
import { storeDetectedFinding } from '../../../testkit/findings.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { runScenario, type Scenario } from './scenario.ts';

/** The scenario is stored for tenant acme; this token reads acme (test/integration/security covers the refusals). */
const TOKEN = 'acme-reader-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };

describe('reconstruction and verify over HTTP, and the CLI, against the real database', () => {
  let db: TestDatabase;
  let app: FastifyInstance;
  let s: Scenario;
  before(async () => {
    db = await freshDatabase('tt_recon_api');
    app = await buildApiServer({
      ch: db.ch,
      schema: db.schema,
      auth: { mode: 'bearer', tokens: new TokenDirectory([{ token: TOKEN, tenant: 'acme' }]) },
    });
    s = runScenario(uniqueName('sess'));
    await ingestSpans(db, s.spans, 'acme');
  });
  after(async () => {
    await app?.close();
    await db?.drop();
  });

  it('serves a session reconstruction that matches the JSON schema', async () => {
    const res = await app.inject({
      method: 'GET',
      headers: AUTH,
      url: `/v1/reconstruct/sessions/${s.session}?tenant=acme`,
    });
    assert.equal(res.statusCode, 200, res.body);
    const r = ReconstructionSchema.parse(res.json());
    assert.equal(r.sessions[0]!.summary.calls, 5);
  });

  it('serves a trace reconstruction, and the HTML report with ?format=html', async () => {
    const json = await app.inject({
      method: 'GET',
      headers: AUTH,
      url: `/v1/reconstruct/traces/${s.traceId.toUpperCase()}`,
    });
    assert.equal(json.statusCode, 200, json.body);
    assert.equal(json.json().sessions[0].session_id, s.session);
    const html = await app.inject({
      method: 'GET',
      headers: AUTH,
      url: `/v1/reconstruct/sessions/${s.session}?format=html`,
    });
    assert.equal(html.statusCode, 200);
    assert.match(String(html.headers['content-type']), /^text\/html/);
    assert.match(html.body, /delete_service_accounts/);
  });

  it('serves the HTML report with its Content-Security-Policy as a header, not only a <meta> tag', async () => {
    const html = await app.inject({
      method: 'GET',
      headers: AUTH,
      url: `/v1/reconstruct/sessions/${s.session}?format=html`,
    });
    assert.equal(html.statusCode, 200);
    assert.equal(html.headers['content-security-policy'], "default-src 'none'; style-src 'unsafe-inline'");
    assert.equal(html.headers['x-content-type-options'], 'nosniff');
  });

  it('answers 404 with a typed error for a session that has no stored calls', async () => {
    const res = await app.inject({ method: 'GET', headers: AUTH, url: '/v1/reconstruct/sessions/never-seen' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), {
      error: { code: 'NOT_FOUND', message: 'no tool calls stored for session never-seen in tenant acme' },
    });
  });

  it('rejects an injection attempt (400, or 403 when it is in the tenant) and leaves the data untouched', async () => {
    const before = await app.inject({ method: 'GET', headers: AUTH, url: `/v1/reconstruct/sessions/${s.session}` });
    for (const url of [
      `/v1/reconstruct/sessions/${encodeURIComponent(`${s.session}' OR '1'='1`)}`,
      `/v1/reconstruct/sessions/${encodeURIComponent("x'); DROP TABLE tool_calls; --")}`,
      '/v1/verify?from=yesterday',
    ]) {
      const res = await app.inject({ method: 'GET', headers: AUTH, url });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.equal(res.json().error.code, 'INVALID_REQUEST');
    }
    // A tenant other than the credential's is refused before validation: it never reaches a query either.
    for (const url of [
      `/v1/reconstruct/sessions/${s.session}?tenant=${encodeURIComponent("acme' OR 1=1 --")}`,
      `/v1/verify?tenant=${encodeURIComponent("' OR 1=1")}`,
    ]) {
      const res = await app.inject({ method: 'GET', headers: AUTH, url });
      assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
      assert.equal(res.json().error.code, 'FORBIDDEN');
    }
    const afterRes = await app.inject({ method: 'GET', headers: AUTH, url: `/v1/reconstruct/sessions/${s.session}` });
    assert.equal(afterRes.statusCode, 200);
    assert.deepEqual(afterRes.json().sessions, before.json().sessions);
  });

  it('answers 400, not 500, to a verify range digests cannot cover (before 1970 or after 2106)', async () => {
    for (const query of [
      'to=1970-01-01T00:00Z',
      'from=0001-01-01T00:00Z&to=0001-01-02T00:00Z',
      'from=1899-12-31T00:00Z&to=1900-01-01T00:00Z',
      'from=2106-02-08T00:00Z&to=2106-02-09T00:00Z',
    ]) {
      const res = await app.inject({ method: 'GET', headers: AUTH, url: `/v1/verify?${query}` });
      assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
      assert.equal(res.json().error.code, 'INVALID_REQUEST');
    }
  });

  it('serves the verify report for a tenant and range', async () => {
    const res = await app.inject({
      method: 'GET',
      headers: AUTH,
      url: `/v1/verify?tenant=acme&from=${new Date(s.startMs - 3_600_000).toISOString()}&to=${new Date(s.startMs + 7_200_000).toISOString()}`,
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    // testkit/ingest.ts writes without digests: every row is reported as not covered, by name.
    assert.equal(body.ok, false);
    assert.ok(body.issues.length > 0);
    assert.ok(body.issues.every((i: { kind: string }) => i.kind === 'row_added'));
  });

  it('reconstructs from an alert finding fingerprint, pointing at the mutation it is about', async () => {
    const finding = await storeDetectedFinding(db, {
      now: new Date(s.startMs + 60_000),
      since: new Date(s.startMs - 60_000),
      pick: (f) => f.kind === 'mutation_after_incomplete_read' && f.session === s.session,
    });
    const res = await app.inject({
      method: 'GET',
      headers: AUTH,
      url: `/v1/reconstruct/findings/${finding.fingerprint}`,
    });
    assert.equal(res.statusCode, 200, res.body);
    const r = ReconstructionSchema.parse(res.json());
    assert.equal(r.subject.kind, 'finding');
    assert.equal(r.finding?.mutation_span_id, finding.mutation_span_id);
    assert.ok(
      r.sessions[0]!.entries.some((e) => e.kind === 'call' && e.span_id === finding.mutation_span_id && e.mutation),
    );
    const missing = await app.inject({
      method: 'GET',
      headers: AUTH,
      url: '/v1/reconstruct/findings/00000000deadbeef',
    });
    assert.equal(missing.statusCode, 404);
  });

  it('runs `tooltrail reconstruct` (JSON and table) and refuses a malformed id with a one-line error', async () => {
    const out: string[] = [];
    const log = console.log;
    const env = process.env.TOOLTRAIL_CLICKHOUSE_DATABASE;
    console.log = (...a: unknown[]) => out.push(a.join(' '));
    process.env.TOOLTRAIL_CLICKHOUSE_DATABASE = db.database;
    try {
      const program = new Command('tooltrail').exitOverride();
      registerReconstructCommands(program);
      await program.parseAsync(['reconstruct', '--session', s.session, '--tenant', 'acme', '--json'], { from: 'user' });
      const r = ReconstructionSchema.parse(JSON.parse(out.join('\n')));
      assert.equal(r.sessions[0]!.session_id, s.session);
      out.length = 0;
      await program.parseAsync(['reconstruct', '--session', s.session], { from: 'user' });
      assert.match(out.join('\n'), /What it could not see:/);
      assert.equal(process.exitCode ?? 0, 0);
      out.length = 0;
      const bad = new Command('tooltrail').exitOverride();
      registerReconstructCommands(bad);
      const err = console.error;
      const errors: string[] = [];
      console.error = (...a: unknown[]) => errors.push(a.join(' '));
      try {
        await bad.parseAsync(['reconstruct', '--session', "x' OR 1=1"], { from: 'user' });
      } finally {
        console.error = err;
      }
      assert.equal(process.exitCode, 1);
      assert.match(errors.join('\n'), /--session "x' OR 1=1" must be/);
    } finally {
      console.log = log;
      process.exitCode = 0;
      if (env === undefined) delete process.env.TOOLTRAIL_CLICKHOUSE_DATABASE;
      else process.env.TOOLTRAIL_CLICKHOUSE_DATABASE = env;
    }
  });
});
