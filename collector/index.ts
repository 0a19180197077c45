/** The collector's entry point: build one from a configuration, or plug another sink into it. */
export {
  type CollectorConfig,
  CollectorConfigError,
  defaultCollectorConfig,
  loadCollectorConfig,
  METRICS_TOKEN_ENV,
  validateCollectorConfig,
} from './config.ts';
export { type Collector, type CreateCollectorOptions, createCollector } from './factory.ts';
export { CollectorMetrics } from './metrics.ts';
export { buildCollectorServer, type CollectorServerOptions } from './server.ts';
export { retryAfterOf, type SinkContext, SinkUnavailableError, type SpanSink } from './sink.ts';
export { createDiscardSink } from './sinks/discard-sink.ts';
export { createKafkaSink, TENANT_HEADER } from './sinks/kafka-sink.ts';
export { splitByTrace, type TraceMessage } from './split-by-trace.ts';
