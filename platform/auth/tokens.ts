/**
 * Read-side credentials: `TOOLTRAIL_API_TOKENS="token1=tenantA,token2=tenantB"`, the collector's format
 * (TOOLTRAIL_COLLECTOR_TOKENS), so one secret store entry shape serves both. A token maps to exactly one tenant;
 * the tenant of every read comes from here, never from a query parameter or a flag. Tokens are held as SHA-256
 * digests and looked up by digest, so no comparison leaks a token's prefix through timing.
 */
import { createHash } from 'node:crypto';

export const API_TOKENS_ENV = 'TOOLTRAIL_API_TOKENS';
/** The one token a CLI user presents (like `--token`). */
export const API_TOKEN_ENV = 'TOOLTRAIL_API_TOKEN';
export const MIN_TOKEN_LENGTH = 16;
/** The collector's tenant charset: what a token may name is what the collector may stamp. */
const TENANT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface TokenEntry {
  token: string;
  tenant: string;
}

export class TokenConfigError extends Error {
  override name = 'TokenConfigError';
}

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/** Parses `token1=tenantA,token2=tenantB`, reporting every bad entry at once (never echoing a whole token). */
export function parseTokenList(value: string, source = API_TOKENS_ENV): TokenEntry[] {
  const problems: string[] = [];
  const entries: TokenEntry[] = [];
  const seen = new Set<string>();
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .forEach((pair, i) => {
      const at = pair.lastIndexOf('=');
      if (at <= 0 || at === pair.length - 1) {
        problems.push(`${source}.${i}: "${pair.slice(0, 4)}…" is not token=tenant`);
        return;
      }
      const token = pair.slice(0, at);
      const tenant = pair.slice(at + 1);
      if (token.length < MIN_TOKEN_LENGTH)
        problems.push(`${source}.${i}: the token must be at least ${MIN_TOKEN_LENGTH} characters`);
      if (!TENANT.test(tenant))
        problems.push(`${source}.${i}: tenant must be 1-64 letters, digits, dots, dashes or underscores`);
      if (seen.has(token)) problems.push(`${source}.${i}: the same token is listed twice`);
      seen.add(token);
      entries.push({ token, tenant });
    });
  if (problems.length) throw new TokenConfigError(`invalid tokens: ${problems.join('; ')}`);
  return entries;
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

export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1' || host === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
