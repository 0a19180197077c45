/**
 * Accepts and drops everything, after encoding exactly what the Kafka sink would produce: the benchmark's
 * baseline (everything the collector does except Kafka). Never use it in production.
 */
import type { ExportTraceServiceRequest } from '../../platform/otlp/index.ts';
import type { SinkContext, SpanSink } from '../sink.ts';
import { splitByTrace } from '../split-by-trace.ts';

export interface DiscardSinkStats {
  requests: number;
  messages: number;
  bytes: number;
}

export function createDiscardSink(): SpanSink & { stats: DiscardSinkStats } {
  const stats: DiscardSinkStats = { requests: 0, messages: 0, bytes: 0 };
  return {
    name: 'discard',
    stats,
    async write(request: ExportTraceServiceRequest, context: SinkContext) {
      stats.requests++;
      for (const m of splitByTrace(request, context.encodedSpan)) {
        stats.messages++;
        stats.bytes += m.value.length;
      }
    },
    ready: async () => true,
    close: async () => {},
  };
}
