/** `/metrics` in the Prometheus text format. */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { CollectorMetrics } from '../metrics.ts';

export interface MetricsOptions {
  metrics: CollectorMetrics;
}

const metricsPlugin: FastifyPluginAsync<MetricsOptions> = async (app, options) => {
  if (typeof options.metrics?.render !== 'function') throw new Error('metrics: a CollectorMetrics is required');
  app.get('/metrics', { schema: { response: { 200: { type: 'string' } } } }, async (_request, reply) => {
    reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8');
    return options.metrics.render();
  });
};

export default fp(metricsPlugin, { name: 'tooltrail-collector-metrics', fastify: '5.x' });
