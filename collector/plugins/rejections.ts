/**
 * `GET /v1/rejections?since=<seconds>`: what this collector rejected over the last hour at most (rejection-window.ts),
 * for `tooltrail status`. A tenant's token reads its own tenant; the metrics token (the operator's, as for
 * /metrics) reads every tenant; without auth (local development) the one no-auth tenant.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { bearerToken, TokenDirectory } from '../../platform/auth/tokens.ts';
import { REJECTION_WINDOW_MS, type RejectionWindow } from '../rejection-window.ts';
import type { AuthOptions } from './auth.ts';

export const REJECTIONS_PATH = '/v1/rejections';

export interface RejectionsOptions {
  window: RejectionWindow;
  auth: AuthOptions;
  /** The metrics token ('' for none): every tenant. */
  operatorToken: string;
  now?: () => number;
}

const rejectionSchema = {
  type: 'object',
  properties: {
    tenant: { type: 'string' },
    reason: { type: 'string' },
    spans: { type: 'integer' },
    example_span_id: { type: 'string' },
    message: { type: 'string' },
    last_seen: { type: 'string' },
  },
};
const errorSchema = { type: 'object', properties: { error: { type: 'string' } } };

const rejections: FastifyPluginAsync<RejectionsOptions> = async (app, options) => {
  if (typeof options.window?.report !== 'function') throw new Error('rejections: a RejectionWindow is required');
  const now = options.now ?? Date.now;
  const tenants = options.auth.mode === 'bearer' ? new TokenDirectory(options.auth.tokens) : undefined;
  const operator = options.operatorToken
    ? new TokenDirectory([{ token: options.operatorToken, tenant: '*' }])
    : undefined;
  const maxSeconds = REJECTION_WINDOW_MS / 1_000;
  app.get<{ Querystring: { since?: string } }>(
    REJECTIONS_PATH,
    {
      schema: {
        querystring: { type: 'object', properties: { since: { type: 'string' } } },
        response: {
          200: {
            type: 'object',
            properties: {
              since: { type: 'string' },
              window_seconds: { type: 'integer' },
              tenants: { type: 'string' },
              rejections: { type: 'array', items: rejectionSchema },
            },
          },
          400: errorSchema,
          401: errorSchema,
        },
      },
    },
    async (request, reply) => {
      const token = bearerToken(request.headers.authorization);
      let scope: string | undefined;
      if (token !== undefined && operator?.tenantOf(token) !== undefined) scope = undefined;
      else if (options.auth.mode === 'none') scope = options.auth.noAuthTenant;
      else {
        scope = token === undefined ? undefined : tenants?.tenantOf(token);
        if (scope === undefined) {
          reply.header('www-authenticate', 'Bearer realm="tooltrail-collector"');
          return reply.code(401).send({
            error: token === undefined ? 'an Authorization: Bearer token is required' : 'the bearer token is not valid',
          });
        }
      }
      const seconds = request.query.since === undefined ? maxSeconds : Number(request.query.since);
      if (!Number.isInteger(seconds) || seconds <= 0 || seconds > maxSeconds) {
        return reply.code(400).send({
          error: `since must be a whole number of seconds from 1 to ${maxSeconds} (the collector keeps one hour)`,
        });
      }
      const sinceMs = now() - seconds * 1_000;
      return {
        since: new Date(sinceMs).toISOString(),
        window_seconds: maxSeconds,
        tenants: scope === undefined ? 'all' : scope,
        rejections: options.window.report(scope, sinceMs),
      };
    },
  );
};

export default fp(rejections, { name: 'tooltrail-collector-rejections', fastify: '5.x' });
