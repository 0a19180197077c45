import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultCollectorConfig, validateCollectorConfig } from '../../../collector/config.ts';
import { TenantSchema } from '../../../contract/index.ts';
import { defaultIngestConfig, validateIngestConfig } from '../../../ingest/config.ts';
import { parseTokenList } from '../../../platform/auth/tokens.ts';

const TOKEN = 'x'.repeat(16);
const ACCEPTED = ['acme', 'a', 'team-1.prod_eu', 'a'.repeat(64)];
// A colon and names past 64 were accepted by the read side only: no credential could ever name them.
const REFUSED = ['a:b', 'a'.repeat(65), '-acme', '', 'acme corp', 'a/b'];

const byTokens = (tenant: string) => {
  try {
    parseTokenList(`${TOKEN}=${tenant}`);
    return true;
  } catch {
    return false;
  }
};
const byCollector = (tenant: string) => {
  const c = defaultCollectorConfig({});
  return validateCollectorConfig({ ...c, auth: { mode: 'none', tokens: [], noAuthTenant: tenant } }).length === 0;
};
const byReaders = (tenant: string) => TenantSchema.safeParse(tenant).success;
const byIngest = (tenant: string) => {
  try {
    validateIngestConfig({ ...defaultIngestConfig({}), defaultTenant: tenant });
    return true;
  } catch {
    return false;
  }
};

describe('the one tenant rule (contract/ids.ts)', () => {
  it('tokens, the collector, the readers and the ingest accept the same tenants', () => {
    for (const t of ACCEPTED) {
      assert.deepEqual([byTokens(t), byCollector(t), byReaders(t), byIngest(t)], [true, true, true, true], t);
    }
  });

  it('and refuse the same ones (a colon, more than 64 characters, a leading dash, blanks)', () => {
    for (const t of REFUSED) {
      assert.deepEqual([byTokens(t), byCollector(t), byReaders(t), byIngest(t)], [false, false, false, false], t);
    }
  });
});
