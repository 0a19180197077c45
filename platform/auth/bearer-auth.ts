/**
 * The one bearer-token authentication plugin, shared by the collector and the read API: a token maps to its tenant
 * (looked up by digest, platform/auth/tokens.ts), set on `request.callerTenant` for every route it protects; the
 * tenant of a request always comes from here, never from the payload or the query. `mode: 'none'` is local
 * development only (loopback, one tenant). How a refusal is written stays the host's (OTLP Status, API error body).
 */
import type { FastifyContextConfig, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { bearerToken, type TokenDirectory } from './tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of the request's credential (or the no-auth tenant); '' on routes it does not protect. */
    callerTenant: string;
  }
}

export type BearerAuthMode = { mode: 'bearer'; tokens: TokenDirectory } | { mode: 'none'; tenant: string };

export type BearerAuthOptions = BearerAuthMode & {
  /** `WWW-Authenticate: Bearer realm="…"` of a 401. */
  realm: string;
  /** Whether a route needs a credential. */
  protects(config: FastifyContextConfig): boolean;
  /** Writes (or throws) a refusal: 401 for a missing or unknown token, 403 from `authorize`. */
  refuse(reply: FastifyReply, status: 401 | 403, message: string): FastifyReply;
  /** A further rule once the tenant is known: the 403 message, or undefined to let the request through. */
  authorize?(request: FastifyRequest, tenant: string): string | undefined;
};

const bearerAuth: FastifyPluginAsync<BearerAuthOptions> = async (app, options) => {
  const mode = (options as { mode?: unknown })?.mode;
  if (mode !== 'none' && mode !== 'bearer') throw new Error(`bearer auth: unknown mode ${String(mode)}`);
  if (options.mode === 'bearer' && !(options.tokens?.size > 0))
    throw new Error('bearer auth: bearer mode needs tokens');
  if (options.mode === 'none' && !options.tenant) throw new Error('bearer auth: mode none needs a tenant');
  if (typeof options.protects !== 'function' || typeof options.refuse !== 'function')
    throw new Error('bearer auth: protects and refuse are required');
  app.decorateRequest('callerTenant', '');
  app.addHook('onRequest', async (request, reply) => {
    if (!options.protects(request.routeOptions.config)) return;
    let tenant: string | undefined;
    if (options.mode === 'none') tenant = options.tenant;
    else {
      const header = request.headers.authorization;
      const token = bearerToken(header);
      tenant = token === undefined ? undefined : options.tokens.tenantOf(token);
      if (tenant === undefined) {
        reply.header('www-authenticate', `Bearer realm="${options.realm}"`);
        return options.refuse(
          reply,
          401,
          header ? 'the bearer token is not valid' : 'an Authorization: Bearer token is required',
        );
      }
    }
    const forbidden = options.authorize?.(request, tenant);
    if (forbidden !== undefined) return options.refuse(reply, 403, forbidden);
    request.callerTenant = tenant;
  });
};

export const bearerAuthPlugin = fp(bearerAuth, { name: 'tooltrail-bearer-auth', fastify: '5.x' });
