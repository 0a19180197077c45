/**
 * The collector's use of the bearer-auth plugin: routes that set `config: { auth: true }` need a token; the
 * token's tenant is later stamped on the spans, whatever the payload claims. Refusals are OTLP google.rpc.Status
 * bodies (thrown to the route's error handler).
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { bearerAuthPlugin } from '../../platform/auth/bearer-auth.ts';
import { TokenDirectory } from '../../platform/auth/tokens.ts';
import type { TokenEntry } from '../config.ts';
import { refuse } from '../errors.ts';

declare module 'fastify' {
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

const auth: FastifyPluginAsync<AuthOptions> = async (app, options) => {
  if (options.mode !== 'none' && options.mode !== 'bearer')
    throw new Error(`auth: unknown mode ${String(options.mode)}`);
  if (options.mode === 'bearer' && options.tokens.length === 0) throw new Error('auth: bearer mode needs tokens');
  const mode =
    options.mode === 'none'
      ? { mode: 'none' as const, tenant: options.noAuthTenant }
      : { mode: 'bearer' as const, tokens: new TokenDirectory(options.tokens) };
  await app.register(bearerAuthPlugin, {
    ...mode,
    realm: 'tooltrail-collector',
    protects: (config) => config.auth === true,
    refuse: (_reply, _status, message) => {
      throw refuse.unauthenticated(message);
    },
  });
};

export default fp(auth, { name: 'tooltrail-collector-auth', fastify: '5.x' });
