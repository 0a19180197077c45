/** `/healthz` (the process serves) and `/readyz` (the sink would accept a write now: Kafka reachable). */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { SpanSink } from '../sink.ts';

export interface HealthOptions {
  sink: SpanSink;
}

const statusSchema = {
  type: 'object',
  properties: { status: { type: 'string' }, sink: { type: 'string' } },
  required: ['status'],
};

const health: FastifyPluginAsync<HealthOptions> = async (app, options) => {
  const { sink } = options;
  if (typeof sink?.ready !== 'function') throw new Error('health: a sink with ready() is required');
  app.get('/healthz', { schema: { response: { 200: statusSchema } } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { response: { 200: statusSchema, 503: statusSchema } } }, async (_request, reply) => {
    let ready = false;
    try {
      ready = await sink.ready();
    } catch {
      ready = false;
    }
    reply.code(ready ? 200 : 503);
    return { status: ready ? 'ready' : 'not ready', sink: sink.name ?? 'sink' };
  });
};

export default fp(health, { name: 'tooltrail-collector-health', fastify: '5.x' });
