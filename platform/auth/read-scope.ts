/**
 * Whose data a read-side command (`tooltrail findings`, `tooltrail warnings`) prints. The commands read ClickHouse
 * directly, so their real credential is the ClickHouse account they connect as (read-only: read-clickhouse.ts),
 * which can read every tenant; the scope decides what one output may hold:
 *
 * - a token (`--token` or TOOLTRAIL_API_TOKEN), resolved through TOOLTRAIL_API_TOKENS as by `serve-api`: its tenant
 *   only; `--tenant` may restate it, any other tenant or `--all-tenants` is refused;
 * - no token: the operator names the scope, `--tenant <t>` (one tenant) or `--all-tenants` (every tenant, said on
 *   stderr). There is no implicit default, so one output never mixes tenants by accident.
 */
import { API_TOKEN_ENV, API_TOKENS_ENV, COLLECTOR_TOKENS_ENV, TokenDirectory } from './tokens.ts';

export type ReadScope = { kind: 'tenant'; tenant: string; via: 'token' | 'flag' } | { kind: 'all' };

export interface ReadScopeFlags {
  token?: string | undefined;
  tenant?: string | undefined;
  allTenants?: boolean | undefined;
}

export class ReadScopeError extends Error {
  override name = 'ReadScopeError';
}

/**
 * `reconstruct` and `verify`: the same rule, except that where no token list is configured at all (local
 * no-auth mode) a read naming no scope reads every tenant, as a laptop user expects. As soon as tokens exist
 * (TOOLTRAIL_API_TOKENS or the collector's TOOLTRAIL_COLLECTOR_TOKENS), the read must name its scope.
 */
export function resolveSubjectReadScope(flags: ReadScopeFlags, env: NodeJS.ProcessEnv): ReadScope {
  if (flags.token ?? env[API_TOKEN_ENV]) return resolveReadScope(flags, env);
  if (flags.tenant !== undefined || flags.allTenants) return resolveReadScope(flags, env);
  const configured = [API_TOKENS_ENV, COLLECTOR_TOKENS_ENV].filter((k) => (env[k] ?? '').trim() !== '');
  if (configured.length > 0)
    throw new ReadScopeError(
      `tokens are configured (${configured.join(', ')}), so a read names its scope: give --token (or ${API_TOKEN_ENV}), --tenant <tenant>, or --all-tenants (operator: every tenant)`,
    );
  return { kind: 'all' };
}

export function resolveReadScope(flags: ReadScopeFlags, env: NodeJS.ProcessEnv): ReadScope {
  const token = flags.token ?? env[API_TOKEN_ENV];
  if (token) {
    const tokens = TokenDirectory.fromEnv(env);
    if (tokens.size === 0) throw new ReadScopeError(`a token was given but ${API_TOKENS_ENV} is not set`);
    const tenant = tokens.tenantOf(token);
    if (tenant === undefined) throw new ReadScopeError('the token is not valid');
    if (flags.allTenants) throw new ReadScopeError('a token reads its own tenant only: --all-tenants is refused');
    if (flags.tenant !== undefined && flags.tenant !== tenant)
      throw new ReadScopeError(`the token does not give access to tenant "${flags.tenant}"`);
    return { kind: 'tenant', tenant, via: 'token' };
  }
  if (flags.allTenants && flags.tenant !== undefined)
    throw new ReadScopeError('give --tenant or --all-tenants, not both');
  if (flags.allTenants) return { kind: 'all' };
  if (flags.tenant) return { kind: 'tenant', tenant: flags.tenant, via: 'flag' };
  throw new ReadScopeError(
    `whose data? give --token (or ${API_TOKEN_ENV}), --tenant <tenant>, or --all-tenants (operator: every tenant)`,
  );
}

/** Keeps only the scope's rows (the queries are already scoped; this is the last wall before output). */
export function withinScope<T extends { tenant: string }>(scope: ReadScope, rows: readonly T[]): T[] {
  return scope.kind === 'all' ? [...rows] : rows.filter((r) => r.tenant === scope.tenant);
}
