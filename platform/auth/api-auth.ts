/**
 * The read API's use of the bearer-auth plugin (`tooltrail serve-api`). Secure by default: every route needs
 * `Authorization: Bearer <token>` unless it sets `config: { public: true }` (health, JSON Schemas: no tenant data).
 * The caller's tenant is the token's; a `tenant` query parameter naming any other tenant is refused with 403,
 * never honoured.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { errorBodySchema } from '../http/error-body.ts';
import { type BearerAuthMode, bearerAuthPlugin } from './bearer-auth.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route serves no tenant data and needs no credential. */
    public?: boolean;
  }
}

/** `bearer`: tokens map to tenants. `none`: local development, every request is `tenant`. */
export type ApiAuthOptions = BearerAuthMode;

export const AUTH_ERROR_CODES = ['UNAUTHENTICATED', 'FORBIDDEN'] as const;

/** The body of a 401/403, for route response schemas. */
export const AuthErrorBody = errorBodySchema(AUTH_ERROR_CODES);

function refuse(reply: FastifyReply, status: 401 | 403, message: string): FastifyReply {
  return reply.code(status).send({ error: { code: status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN', message } });
}

/** Every `tenant` value of the query string (a repeated key arrives as an array). */
function queryTenants(query: unknown): string[] {
  const t = (query as Record<string, unknown> | null)?.tenant;
  if (t === undefined) return [];
  return (Array.isArray(t) ? t : [t]).map(String);
}

const apiAuth: FastifyPluginAsync<ApiAuthOptions> = async (app, options) => {
  await app.register(bearerAuthPlugin, {
    ...options,
    realm: 'tooltrail-api',
    protects: (config) => !config.public,
    refuse,
    authorize: (request, tenant) =>
      queryTenants(request.query).some((t) => t !== tenant)
        ? "the credential does not give access to that tenant's data"
        : undefined,
  });
};

export const apiAuthPlugin = fp(apiAuth, { name: 'tooltrail-api-auth', fastify: '5.x' });
export default apiAuthPlugin;
