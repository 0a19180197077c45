/**
 * `/metrics` in the Prometheus text format. With a metrics token it needs `Authorization: Bearer <token>` (looked
 * up by digest, like every credential); without one it serves only series without tenant names.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { bearerToken, TokenDirectory } from '../../platform/auth/tokens.ts';
import type { CollectorMetrics } from '../metrics.ts';

export interface MetricsOptions {
  metrics: CollectorMetrics;
  /** '' for none. */
  token: string;
}

const metricsPlugin: FastifyPluginAsync<MetricsOptions> = async (app, options) => {
  if (typeof options.metrics?.render !== 'function') throw new Error('metrics: a CollectorMetrics is required');
  if (options.metrics.tenantLabels && !options.token) throw new Error('metrics: tenant labels need a metrics token');
  const scraper = options.token ? new TokenDirectory([{ token: options.token, tenant: 'metrics' }]) : undefined;
  app.get(
    '/metrics',
    { schema: { response: { 200: { type: 'string' }, 401: { type: 'string' } } } },
    async (request, reply) => {
      if (scraper) {
        const token = bearerToken(request.headers.authorization);
        if (token === undefined || scraper.tenantOf(token) === undefined) {
          reply.header('www-authenticate', 'Bearer realm="tooltrail-collector-metrics"');
          return reply.code(401).type('text/plain').send('the metrics token is required\n');
        }
      }
      reply.header('content-type', options.metrics.contentType);
      return options.metrics.render();
    },
  );
};

export default fp(metricsPlugin, { name: 'tooltrail-collector-metrics', fastify: '5.x' });
