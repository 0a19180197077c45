import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultTenantOf } from '../../../cli/stack/stack.ts';

const noAuth = { mode: 'none', noAuthTenant: 'default' };
const bearer = { mode: 'bearer', noAuthTenant: 'default' };

describe("tooltrail up: the ingest's default tenant", () => {
  it('is the collector’s no-auth tenant when the collector runs without tokens', () => {
    assert.deepEqual(defaultTenantOf({}, undefined, noAuth), {
      tenant: 'default',
      source: "the collector's no-auth tenant",
    });
  });

  it('is none with collector tokens: tenant-less spans are dead-lettered, never given a tenant', () => {
    assert.equal(defaultTenantOf({}, undefined, bearer).tenant, undefined);
  });

  it('is TOOLTRAIL_INGEST_DEFAULT_TENANT when set, and --default-tenant over both', () => {
    assert.deepEqual(defaultTenantOf({}, 'from-env', bearer), {
      tenant: 'from-env',
      source: 'TOOLTRAIL_INGEST_DEFAULT_TENANT',
    });
    assert.deepEqual(defaultTenantOf({}, 'from-env', noAuth).tenant, 'from-env');
    assert.deepEqual(defaultTenantOf({ defaultTenant: 'flag' }, 'from-env', noAuth), {
      tenant: 'flag',
      source: '--default-tenant',
    });
  });
});
