/**
 * Tenant isolation of `tooltrail serve-api`, against the real ClickHouse: two tenants hold the same session and
 * trace ids (and one session each of their own); every route is tried without a credential, with a wrong one,
 * and with acme's token asking for globex's data in every way a request can say a tenant.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApiServer, startApiServer } from '../../../cli/commands/reconstruct/api-server.ts';
import { TokenDirectory } from '../../../platform/auth/tokens.ts';
import { ReconstructionSchema } from '../../../reconstruct/timeline.ts';
import { storeDetectedFinding } from '../../../testkit/findings.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { runScenario, type Scenario } from '../reconstruct/scenario.ts';

const ACME_TOKEN = 'acme-reader-token-0123456789';
const GLOBEX_TOKEN = 'globex-reader-token-0123456789';
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const PUBLIC_ROUTES = new Set(['/healthz', '/v1/reconstruct/schema']);

describe('serve-api tenant isolation', () => {
  let db: TestDatabase;
  let app: FastifyInstance;
  /** Stored for both tenants: same session id, same trace id. */
  let shared: Scenario;
  /** Stored for globex only. */
  let globexOnly: Scenario;
  let globexFingerprint: string;
  const routes: string[] = [];

  before(async () => {
    db = await freshDatabase('tt_sec_api');
    shared = runScenario(uniqueName('shared'));
    globexOnly = runScenario(uniqueName('only'));
    await ingestSpans(db, shared.spans, 'acme');
    await ingestSpans(db, [...shared.spans, ...globexOnly.spans], 'globex');
    const finding = await storeDetectedFinding(db, {
      now: new Date(),
      since: new Date(globexOnly.startMs - 60_000),
      tenant: 'globex',
      pick: (f) => f.tenant === 'globex' && f.session === globexOnly.session,
    });
    globexFingerprint = finding.fingerprint;
    const tokens = new TokenDirectory([
      { token: ACME_TOKEN, tenant: 'acme' },
      { token: GLOBEX_TOKEN, tenant: 'globex' },
    ]);
    app = await buildApiServer({ ch: db.ch, schema: db.schema, auth: { mode: 'bearer', tokens } });
    // Every GET route the server has, so a route added later is covered without editing this test.
    for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
      const m = /([/][^\s(]*) \(([^)]*)\)/.exec(line);
      if (m?.[2]?.split(', ').includes('GET')) routes.push(m[1]!);
    }
  });
  after(async () => {
    await app?.close();
    await db?.drop();
  });

  /** A concrete URL for a route pattern: ids of the data globex holds, so a leak would be visible. */
  const concrete = (route: string) =>
    route
      .replace(':session', globexOnly.session)
      .replace(':trace', globexOnly.traceId)
      .replace(':fingerprint', globexFingerprint);
  const dataRoutes = () => routes.filter((r) => !PUBLIC_ROUTES.has(r));

  it('serves the routes this test knows about (reconstruction by session, trace, finding; verify)', () => {
    assert.deepEqual(dataRoutes().sort(), [
      '/v1/reconstruct/findings/:fingerprint',
      '/v1/reconstruct/sessions/:session',
      '/v1/reconstruct/traces/:trace',
      '/v1/verify',
    ]);
  });

  it('every data route refuses a request without a credential or with an unknown one (401)', async () => {
    for (const route of dataRoutes()) {
      for (const headers of [
        {},
        auth('not-a-known-token-at-all'),
        { authorization: GLOBEX_TOKEN },
        { authorization: `Basic ${GLOBEX_TOKEN}` },
        { authorization: `Bearer ${GLOBEX_TOKEN.slice(0, -1)}` },
        { authorization: `Bearer ${GLOBEX_TOKEN} extra` },
      ]) {
        const res = await app.inject({ method: 'GET', url: `${concrete(route)}?tenant=globex`, headers });
        assert.equal(res.statusCode, 401, `${route} ${JSON.stringify(headers)}: ${res.body}`);
        assert.equal(res.json().error.code, 'UNAUTHENTICATED');
        assert.match(String(res.headers['www-authenticate']), /^Bearer/);
        assert.doesNotMatch(res.body, new RegExp(globexOnly.session));
      }
    }
  });

  it("every data route refuses a tenant parameter other than the token's (403), however it is written", async () => {
    for (const route of dataRoutes()) {
      for (const query of [
        'tenant=globex',
        'tenant=acme&tenant=globex',
        'tenant=globex&tenant=acme',
        'tenant=GLOBEX',
      ]) {
        const res = await app.inject({ method: 'GET', url: `${concrete(route)}?${query}`, headers: auth(ACME_TOKEN) });
        assert.equal(res.statusCode, 403, `${route}?${query}: ${res.body}`);
        assert.equal(res.json().error.code, 'FORBIDDEN');
      }
    }
  });

  it("a session id stored in two tenants reconstructs only the caller's tenant", async () => {
    for (const [token, tenant] of [
      [ACME_TOKEN, 'acme'],
      [GLOBEX_TOKEN, 'globex'],
    ] as const) {
      for (const url of [`/v1/reconstruct/sessions/${shared.session}`, `/v1/reconstruct/traces/${shared.traceId}`]) {
        const res = await app.inject({ method: 'GET', url, headers: auth(token) });
        assert.equal(res.statusCode, 200, res.body);
        const r = ReconstructionSchema.parse(res.json());
        assert.ok(r.sessions.length > 0);
        assert.deepEqual(new Set(r.sessions.map((s) => s.tenant)), new Set([tenant]), url);
        assert.equal(r.subject.tenant, tenant);
        const html = await app.inject({ method: 'GET', url: `${url}?format=html`, headers: auth(token) });
        assert.equal(html.statusCode, 200);
        assert.doesNotMatch(html.body, new RegExp(tenant === 'acme' ? 'globex' : 'acme'));
      }
    }
  });

  it("another tenant's session, trace and finding are not found (404), exactly like ones that do not exist", async () => {
    for (const route of dataRoutes().filter((r) => r.includes(':'))) {
      const res = await app.inject({ method: 'GET', url: concrete(route), headers: auth(ACME_TOKEN) });
      assert.equal(res.statusCode, 404, `${route}: ${res.body}`);
      assert.equal(res.json().error.code, 'NOT_FOUND');
      assert.doesNotMatch(res.body, /globex/);
      // The owner reads the same URL.
      const own = await app.inject({ method: 'GET', url: concrete(route), headers: auth(GLOBEX_TOKEN) });
      assert.equal(own.statusCode, 200, `${route}: ${own.body}`);
    }
  });

  it("verify reports only the caller's tenant", async () => {
    const from = new Date(shared.startMs - 3_600_000).toISOString();
    const to = new Date(shared.startMs + 7_200_000).toISOString();
    for (const [token, tenant] of [
      [ACME_TOKEN, 'acme'],
      [GLOBEX_TOKEN, 'globex'],
    ] as const) {
      for (const query of [`from=${from}&to=${to}`, `tenant=${tenant}&from=${from}&to=${to}`]) {
        const res = await app.inject({ method: 'GET', url: `/v1/verify?${query}`, headers: auth(token) });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json() as { issues: { tenant: string }[] };
        // testkit/ingest.ts writes without digests: every stored row is an issue named with its tenant.
        assert.ok(body.issues.length > 0);
        assert.deepEqual(new Set(body.issues.map((i) => i.tenant)), new Set([tenant]));
      }
    }
  });

  it('only /healthz and the JSON Schema answer without a credential, and they hold no tenant data', async () => {
    assert.deepEqual(routes.filter((r) => PUBLIC_ROUTES.has(r)).sort(), [...PUBLIC_ROUTES].sort());
    for (const url of PUBLIC_ROUTES) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.doesNotMatch(res.body, /acme|globex/);
    }
  });

  it('no-auth mode reads its one tenant only, refuses to listen beyond loopback, and says so at start', async () => {
    const local = await buildApiServer({ ch: db.ch, schema: db.schema, auth: { mode: 'none', tenant: 'acme' } });
    try {
      const own = await local.inject({ method: 'GET', url: `/v1/reconstruct/sessions/${shared.session}` });
      assert.deepEqual(
        new Set(ReconstructionSchema.parse(own.json()).sessions.map((s) => s.tenant)),
        new Set(['acme']),
      );
      const other = await local.inject({ method: 'GET', url: `/v1/reconstruct/sessions/${globexOnly.session}` });
      assert.equal(other.statusCode, 404);
      const forged = await local.inject({ method: 'GET', url: `/v1/verify?tenant=globex` });
      assert.equal(forged.statusCode, 403);
    } finally {
      await local.close();
    }
    const notices: string[] = [];
    await assert.rejects(
      startApiServer({
        ch: db.ch,
        schema: db.schema,
        auth: { mode: 'none', tenant: 'acme' },
        host: '0.0.0.0',
        port: 0,
        notice: (l) => notices.push(l),
      }),
      /loopback only/,
    );
    const local2 = await startApiServer({
      ch: db.ch,
      schema: db.schema,
      auth: { mode: 'none', tenant: 'acme' },
      host: '127.0.0.1',
      port: 0,
      logger: false,
      notice: (l) => notices.push(l),
    });
    await local2.close();
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, /AUTHENTICATION DISABLED .* tenant "acme"; listening on loopback only/);
  });

  it('bearer mode refuses to start without tokens', async () => {
    await assert.rejects(
      buildApiServer({ ch: db.ch, schema: db.schema, auth: { mode: 'bearer', tokens: new TokenDirectory([]) } }),
      /needs tokens/,
    );
  });
});
