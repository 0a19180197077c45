import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTokenList, TokenConfigError, TokenDirectory } from '../../../platform/auth/tokens.ts';

const A = 'acme-reader-token-0123456789';
const B = 'globex-reader-token-0123456789';

describe('read tokens (TOOLTRAIL_API_TOKENS)', () => {
  it('parses the collector format token=tenant,... and maps each token to its one tenant', () => {
    const d = new TokenDirectory(parseTokenList(` ${A}=acme , ${B}=globex,`));
    assert.equal(d.size, 2);
    assert.equal(d.tenantOf(A), 'acme');
    assert.equal(d.tenantOf(B), 'globex');
  });

  it('knows no prefix, suffix or case variant of a token', () => {
    const d = new TokenDirectory(parseTokenList(`${A}=acme`));
    for (const t of [A.slice(0, -1), `${A}x`, A.toUpperCase(), '', ` ${A}`]) assert.equal(d.tenantOf(t), undefined);
  });

  it('a token containing "=" keeps it (the tenant is after the last "=")', () => {
    assert.deepEqual(parseTokenList(`${A}==x=acme`), [{ token: `${A}==x`, tenant: 'acme' }]);
  });

  it('refuses short tokens, bad tenants, duplicates and pairs without "=", all at once, never echoing a token', () => {
    try {
      parseTokenList(`short=acme,${A}=bad tenant!,${B}=globex,${B}=globex,${A}`);
      assert.fail('accepted');
    } catch (err) {
      assert.ok(err instanceof TokenConfigError);
      const m = err.message;
      assert.match(m, /\.0: the token must be at least 16/);
      assert.match(m, /\.1: tenant must be/);
      assert.match(m, /\.3: the same token is listed twice/);
      assert.match(m, /\.4: "acme…" is not token=tenant/);
      assert.doesNotMatch(m, new RegExp(A));
      assert.doesNotMatch(m, new RegExp(B));
    }
  });

  it('an unset environment variable is an empty directory', () => {
    assert.equal(TokenDirectory.fromEnv({}).size, 0);
  });
});
