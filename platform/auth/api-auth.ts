/**
 * Bearer authentication and tenant binding for the read API (`tooltrail serve-api`). Secure by default: every route
 * needs `Authorization: Bearer <token>` unless it sets `config: { public: true }` (health, JSON Schemas: no tenant
 * data). The caller's tenant is the token's; a `tenant` query parameter naming any other tenant is refused with
 * 403, never honoured. `mode: 'none'` is local development only: loopback, one tenant, announced at start.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { errorBodySchema } from '../http/error-body.ts';
import type { TokenDirectory } from './tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of the request's credential (or the no-auth tenant); '' on public routes. */
    callerTenant: string;
  }
  interface FastifyContextConfig {
    /** The route serves no tenant data and needs no credential. */
    public?: boolean;
  }
}

/** `bearer`: tokens map to tenants. `none`: local development, every request is `tenant`. */
export type ApiAuthOptions = { mode: 'bearer'; tokens: TokenDirectory } | { mode: 'none'; tenant: string };

export const AUTH_ERROR_CODES = ['UNAUTHENTICATED', 'FORBIDDEN'] as const;

/** The body of a 401/403, for route response schemas. */
export const AuthErrorBody = errorBodySchema(AUTH_ERROR_CODES);

const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i;

function refuse(reply: FastifyReply, status: 401 | 403, message: string): FastifyReply {
  if (status === 401) reply.header('www-authenticate', 'Bearer realm="tooltrail-api"');
  return reply.code(status).send({ error: { code: status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN', message } });
}

/** Every `tenant` value of the query string (a repeated key arrives as an array). */
function queryTenants(query: unknown): string[] {
  const t = (query as Record<string, unknown> | null)?.tenant;
  if (t === undefined) return [];
  return (Array.isArray(t) ? t : [t]).map(String);
}

const apiAuth: FastifyPluginAsync<ApiAuthOptions> = async (app, options) => {
  const mode = (options as { mode?: unknown })?.mode;
  if (mode !== 'none' && mode !== 'bearer') throw new Error(`api auth: unknown mode ${String(mode)}`);
  if (options.mode === 'bearer' && !(options.tokens?.size > 0)) throw new Error('api auth: bearer mode needs tokens');
  if (options.mode === 'none' && !options.tenant) throw new Error('api auth: mode none needs a tenant');
  app.decorateRequest('callerTenant', '');
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.public) return;
    let tenant: string | undefined;
    if (options.mode === 'none') tenant = options.tenant;
    else {
      const header = request.headers.authorization;
      const match = header ? BEARER.exec(header) : null;
      tenant = match?.[1] ? options.tokens.tenantOf(match[1]) : undefined;
      if (tenant === undefined) {
        return refuse(
          reply,
          401,
          header ? 'the bearer token is not valid' : 'an Authorization: Bearer token is required',
        );
      }
    }
    const asked = queryTenants(request.query).filter((t) => t !== tenant);
    if (asked.length > 0) return refuse(reply, 403, "the credential does not give access to that tenant's data");
    request.callerTenant = tenant;
  });
};

export const apiAuthPlugin = fp(apiAuth, { name: 'tooltrail-api-auth', fastify: '5.x' });
export default apiAuthPlugin;
