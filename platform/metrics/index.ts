export {
  type Counter,
  type Gauge,
  type Histogram,
  LATENCY_BUCKETS,
  type Labels,
  MetricsRegistry,
  metricValue,
} from './registry.ts';
