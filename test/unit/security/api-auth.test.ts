import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { type ApiAuthOptions, apiAuthPlugin } from '../../../platform/auth/api-auth.ts';
import { TokenDirectory } from '../../../platform/auth/tokens.ts';

const A = 'acme-reader-token-0123456789';

async function app(options: ApiAuthOptions) {
  const a = Fastify();
  await a.register(apiAuthPlugin, options);
  a.get('/data', async (req) => ({ tenant: req.callerTenant }));
  a.get('/open', { config: { public: true } }, async (req) => ({ tenant: req.callerTenant }));
  await a.ready();
  return a;
}
const bearer = () => app({ mode: 'bearer', tokens: new TokenDirectory([{ token: A, tenant: 'acme' }]) });

describe('api auth plugin', () => {
  it('a route is protected unless it says public: 401 without a credential', async () => {
    const a = await bearer();
    const res = await a.inject({ url: '/data' });
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json().error.code, 'UNAUTHENTICATED');
    assert.equal((await a.inject({ url: '/open' })).json().tenant, '');
    await a.close();
  });

  it("the caller's tenant is the token's, and a tenant parameter may only restate it", async () => {
    const a = await bearer();
    const headers = { authorization: `bearer  ${A}` };
    assert.deepEqual((await a.inject({ url: '/data', headers })).json(), { tenant: 'acme' });
    assert.equal((await a.inject({ url: '/data?tenant=acme', headers })).statusCode, 200);
    for (const q of ['tenant=globex', 'tenant=acme&tenant=globex', 'tenant=', 'tenant=Acme']) {
      const res = await a.inject({ url: `/data?${q}`, headers });
      assert.equal(res.statusCode, 403, q);
      assert.equal(res.json().error.code, 'FORBIDDEN');
    }
    await a.close();
  });

  it('refuses bad options at registration', async () => {
    await assert.rejects(app({ mode: 'bearer', tokens: new TokenDirectory([]) }), /needs tokens/);
    await assert.rejects(app({ mode: 'none', tenant: '' }), /needs a tenant/);
    await assert.rejects(app({ mode: 'open' } as unknown as ApiAuthOptions), /unknown mode/);
  });

  it('no-auth mode gives every request its one tenant and still refuses another', async () => {
    const a = await app({ mode: 'none', tenant: 'default' });
    assert.deepEqual((await a.inject({ url: '/data' })).json(), { tenant: 'default' });
    assert.equal((await a.inject({ url: '/data?tenant=acme' })).statusCode, 403);
    await a.close();
  });
});
