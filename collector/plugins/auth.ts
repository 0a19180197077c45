/**
 * Bearer-token authentication for the routes that set `config: { auth: true }`. A token maps to its tenant; the
 * tenant is decorated on the request and later stamped on the spans, whatever the payload claims. Tokens are held
 * as SHA-256 digests and looked up by digest, so no comparison leaks a token's prefix through timing.
 */
import { createHash } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { TokenEntry } from '../config.ts';
import { refuse } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of the request's credential (or the no-auth tenant). */
    tenant: string;
  }
  interface FastifyContextConfig {
    /** The route needs a credential. */
    auth?: boolean;
  }
}

export interface AuthOptions {
  mode: 'bearer' | 'none';
  tokens: TokenEntry[];
  noAuthTenant: string;
}

const digest = (token: string) => createHash('sha256').update(token).digest('hex');
const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i;

const auth: FastifyPluginAsync<AuthOptions> = async (app, options) => {
  if (options.mode !== 'none' && options.mode !== 'bearer')
    throw new Error(`auth: unknown mode ${String(options.mode)}`);
  if (options.mode === 'bearer' && options.tokens.length === 0) throw new Error('auth: bearer mode needs tokens');
  const tenants = new Map(options.tokens.map((t) => [digest(t.token), t.tenant]));
  app.decorateRequest('tenant', '');
  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.config.auth) return;
    if (options.mode === 'none') {
      request.tenant = options.noAuthTenant;
      return;
    }
    const header = request.headers.authorization;
    const match = header ? BEARER.exec(header) : null;
    const tenant = match?.[1] ? tenants.get(digest(match[1])) : undefined;
    if (tenant === undefined) {
      reply.header('www-authenticate', 'Bearer realm="tooltrail-collector"');
      throw refuse.unauthenticated(
        header ? 'the bearer token is not valid' : 'an Authorization: Bearer token is required',
      );
    }
    request.tenant = tenant;
  });
};

export default fp(auth, { name: 'tooltrail-collector-auth', fastify: '5.x' });
