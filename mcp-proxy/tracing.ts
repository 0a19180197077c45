/** The proxy's tracer: spans batched and exported as OTLP/HTTP protobuf to the collector (or nowhere: `none`). */
import type { TracerProvider } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider as SdkTracerProvider } from '@opentelemetry/sdk-trace';
import type { McpProxyConfig } from './config.ts';

export interface ProxyTracing {
  provider: TracerProvider;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

export function createProxyTracing(config: McpProxyConfig): ProxyTracing {
  const resource = resourceFromAttributes({ 'service.name': config.serviceName });
  if (config.otlp.endpoint === 'none') {
    const provider = new SdkTracerProvider({ resource });
    return { provider, shutdown: () => provider.shutdown() };
  }
  const exporter = new OTLPTraceExporter({ url: config.otlp.endpoint, headers: config.otlp.headers });
  // The batch queue is bounded (2048 spans by default): a collector that is down costs memory once, not per call.
  const provider = new SdkTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1000 })],
  });
  return { provider, shutdown: () => provider.shutdown() };
}
