/**
 * Accepts and drops everything, after encoding exactly what the Kafka sink would produce: the benchmark's
 * baseline (everything the collector does except Kafka). Never use it in production.
 */
import type { ExportTraceServiceRequest } from '../../platform/otlp/index.ts';
import type { SinkContext, SpanSink } from '../sink.ts';
import { splitByTrace, type TraceMessage } from '../split-by-trace.ts';

export interface DiscardSinkStats {
  requests: number;
  messages: number;
  bytes: number;
}

export function createDiscardSink(): SpanSink & { stats: DiscardSinkStats } {
  const stats: DiscardSinkStats = { requests: 0, messages: 0, bytes: 0 };
  const writeEncoded = async (messages: TraceMessage[], _context: SinkContext) => {
    stats.requests++;
    for (const m of messages) {
      stats.messages++;
      stats.bytes += m.value.length;
    }
  };
  return {
    name: 'discard',
    stats,
    write: (request: ExportTraceServiceRequest, context: SinkContext) =>
      writeEncoded(splitByTrace(request, context.encodedSpan), context),
    writeEncoded,
    ready: async () => true,
    close: async () => {},
  };
}
