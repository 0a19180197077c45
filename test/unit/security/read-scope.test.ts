import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readClickHouseSettings } from '../../../platform/auth/read-clickhouse.ts';
import { resolveReadScope, withinScope } from '../../../platform/auth/read-scope.ts';

const A = 'acme-reader-token-0123456789';
const env = { TOOLTRAIL_API_TOKENS: `${A}=acme` };

describe('read scope of findings and warnings', () => {
  it("a token's tenant is the scope, from --token or TOOLTRAIL_API_TOKEN", () => {
    assert.deepEqual(resolveReadScope({ token: A }, env), { kind: 'tenant', tenant: 'acme', via: 'token' });
    assert.deepEqual(resolveReadScope({}, { ...env, TOOLTRAIL_API_TOKEN: A }), {
      kind: 'tenant',
      tenant: 'acme',
      via: 'token',
    });
    assert.deepEqual(resolveReadScope({ token: A, tenant: 'acme' }, env).kind, 'tenant');
  });

  it('with a token, another tenant and every tenant are refused', () => {
    assert.throws(() => resolveReadScope({ token: A, tenant: 'globex' }, env), /does not give access/);
    assert.throws(() => resolveReadScope({ tenant: 'globex' }, { ...env, TOOLTRAIL_API_TOKEN: A }), /does not give/);
    assert.throws(() => resolveReadScope({ token: A, allTenants: true }, env), /--all-tenants is refused/);
  });

  it('an unknown token, or a token without a token map, is refused', () => {
    assert.throws(() => resolveReadScope({ token: `${A}x` }, env), /not valid/);
    assert.throws(() => resolveReadScope({ token: A }, {}), /TOOLTRAIL_API_TOKENS is not set/);
  });

  it('without a token the scope must be named: no implicit every-tenant output', () => {
    assert.throws(() => resolveReadScope({}, env), /whose data\?/);
    assert.deepEqual(resolveReadScope({ tenant: 'acme' }, env), { kind: 'tenant', tenant: 'acme', via: 'flag' });
    assert.deepEqual(resolveReadScope({ allTenants: true }, env), { kind: 'all' });
    assert.throws(() => resolveReadScope({ tenant: 'acme', allTenants: true }, env), /not both/);
  });

  it('withinScope drops rows of other tenants', () => {
    const rows = [{ tenant: 'acme' }, { tenant: 'globex' }];
    assert.deepEqual(withinScope({ kind: 'tenant', tenant: 'acme', via: 'token' }, rows), [{ tenant: 'acme' }]);
    assert.deepEqual(withinScope({ kind: 'all' }, rows), rows);
  });
});

describe('read-side ClickHouse account', () => {
  const target = { url: 'http://127.0.0.1:8123', user: 'writer', password: 'w' };
  const revealed = (s: ReturnType<typeof readClickHouseSettings>) => ({ ...s, password: s.password.reveal() });
  it('uses TOOLTRAIL_CLICKHOUSE_READ_USER when set (its profile enforces read-only)', () => {
    assert.deepEqual(
      revealed(
        readClickHouseSettings(target, {
          TOOLTRAIL_CLICKHOUSE_READ_USER: 'reader',
          TOOLTRAIL_CLICKHOUSE_READ_PASSWORD: 'r',
        }),
      ),
      { user: 'reader', password: 'r', settings: {} },
    );
  });
  it('otherwise uses the writer account with readonly = 2 on every query', () => {
    assert.deepEqual(revealed(readClickHouseSettings(target, {})), {
      user: 'writer',
      password: 'w',
      settings: { readonly: 2 },
    });
  });
});
