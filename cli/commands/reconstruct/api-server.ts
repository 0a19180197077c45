/**
 * The read API of `tooltrail serve-api`, assembled here (the reconstruction and the audit are stages that never
 * import each other): authentication (platform/auth/api-auth.ts) first, then the
 * reconstruction and verification plugins on one fastify instance. Ids may be up to 200 characters, so the
 * router's parameter length limit is raised above that: a longer id then reaches the route schema and gets the
 * same typed 400 as any other malformed id. `/healthz` is the only route open without a credential (with the
 * reconstruction's JSON Schema, which holds no data).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { verifyApiPlugin } from '../../../audit/api.ts';
import { type ApiAuthOptions, apiAuthPlugin } from '../../../platform/auth/api-auth.ts';
import { isLoopback } from '../../../platform/auth/loopback.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';
import { reconstructApiPlugin } from '../../../reconstruct/api.ts';
import type { SchemaConfig } from '../../../schema/config.ts';

export const MAX_PARAM_LENGTH = 1024;
export const DEFAULT_NO_AUTH_TENANT = 'default';

/** `bearer`: tokens (TOOLTRAIL_API_TOKENS) map to tenants. `none`: local development, loopback only, one tenant. */
export type ApiAuth = ApiAuthOptions;

export interface ApiServerOptions {
  ch: ClickHouseClient;
  schema: SchemaConfig;
  auth: ApiAuth;
  logger?: boolean;
  /** The digest signing key verify checks (TOOLTRAIL_DIGEST_KEY). */
  key?: string;
  now?: () => Date;
}

export async function buildApiServer(options: ApiServerOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false, routerOptions: { maxParamLength: MAX_PARAM_LENGTH } });
  const now = options.now ? { now: options.now } : {};
  await app.register(apiAuthPlugin, options.auth);
  app.get('/healthz', { config: { public: true } }, async () => ({ status: 'ok' }));
  await app.register(reconstructApiPlugin, { ch: options.ch, schema: options.schema, ...now });
  await app.register(verifyApiPlugin, {
    ch: options.ch,
    schema: options.schema,
    ...now,
    ...(options.key ? { key: options.key } : {}),
  });
  await app.ready();
  return app;
}

export async function startApiServer(
  options: ApiServerOptions & { host: string; port: number; notice?: (line: string) => void },
): Promise<{ url: string; close: () => Promise<void> }> {
  if (options.auth.mode === 'none') {
    if (!isLoopback(options.host)) throw new Error(`--no-auth binds to loopback only, not ${options.host}`);
    (options.notice ?? console.error)(
      `tooltrail API: AUTHENTICATION DISABLED (--no-auth, local development): every request reads tenant "${options.auth.tenant}"; listening on loopback only`,
    );
  }
  const app = await buildApiServer({ ...options, logger: options.logger ?? true });
  const url = await app.listen({ host: options.host, port: options.port });
  return { url, close: () => app.close() };
}
