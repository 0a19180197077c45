/**
 * Read-side credentials: `TOOLTRAIL_API_TOKENS="token1=tenantA,token2=tenantB"`, the collector's format
 * (TOOLTRAIL_COLLECTOR_TOKENS), so one secret store entry shape serves both. A token maps to exactly one tenant;
 * the tenant of every read comes from here, never from a query parameter or a flag. Tokens are held as SHA-256
 * digests and looked up by digest, so no comparison leaks a token's prefix through timing.
 */
import { createHash } from 'node:crypto';
import { TENANT_REGEX, TENANT_RULE } from '../../contract/index.ts';
import { API_TOKEN_ENV, API_TOKENS_ENV, COLLECTOR_TOKENS_ENV } from './token-env.ts';

export { API_TOKEN_ENV, API_TOKENS_ENV, COLLECTOR_TOKENS_ENV };
export const MIN_TOKEN_LENGTH = 16;

export interface TokenEntry {
  token: string;
  tenant: string;
}

export class TokenConfigError extends Error {
  override name = 'TokenConfigError';
}

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Splits `token1=tenantA,token2=tenantB` (blanks around entries and empty entries ignored; the last `=` separates,
 * so a token may contain `=`). Problems name the entry by index and never echo a whole token.
 */
export function splitTokenList(
  value: string,
  source: string,
): { entries: (TokenEntry & { index: number })[]; problems: string[] } {
  const problems: string[] = [];
  const entries: (TokenEntry & { index: number })[] = [];
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .forEach((pair, i) => {
      const at = pair.lastIndexOf('=');
      if (at <= 0 || at === pair.length - 1)
        problems.push(`${source}.${i}: "${pair.slice(0, 4)}…" is not token=tenant`);
      else entries.push({ index: i, token: pair.slice(0, at), tenant: pair.slice(at + 1) });
    });
  return { entries, problems };
}

/** Parses and checks a token list, reporting every bad entry at once. */
export function parseTokenList(value: string, source = API_TOKENS_ENV): TokenEntry[] {
  const { entries, problems } = splitTokenList(value, source);
  const seen = new Set<string>();
  for (const { index: i, token, tenant } of entries) {
    if (token.length < MIN_TOKEN_LENGTH)
      problems.push(`${source}.${i}: the token must be at least ${MIN_TOKEN_LENGTH} characters`);
    if (!TENANT_REGEX.test(tenant)) problems.push(`${source}.${i}: tenant must be ${TENANT_RULE}`);
    if (seen.has(token)) problems.push(`${source}.${i}: the same token is listed twice`);
    seen.add(token);
  }
  if (problems.length) throw new TokenConfigError(`invalid tokens: ${problems.join('; ')}`);
  return entries.map(({ token, tenant }) => ({ token, tenant }));
}

/** Token -> tenant, by digest. */
export class TokenDirectory {
  private readonly byDigest: Map<string, string>;
  constructor(entries: readonly TokenEntry[]) {
    this.byDigest = new Map(entries.map((e) => [digest(e.token), e.tenant]));
  }
  get size(): number {
    return this.byDigest.size;
  }
  /** The token's tenant, or undefined for an unknown token. */
  tenantOf(token: string): string | undefined {
    return this.byDigest.get(digest(token));
  }
  static fromEnv(env: NodeJS.ProcessEnv): TokenDirectory {
    const value = env[API_TOKENS_ENV];
    return new TokenDirectory(value ? parseTokenList(value) : []);
  }
}

const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i;

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header ? BEARER.exec(header) : null;
  return match?.[1] || undefined;
}
