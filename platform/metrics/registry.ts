/**
 * The one Prometheus metrics registry of every component, on prom-client (the Node client Prometheus lists):
 * counters, gauges and histograms registered in a registry of their own per component instance, rendered in the
 * text exposition format that Prometheus and the OpenTelemetry Collector's prometheus receiver scrape.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type Labels = Record<string, string>;
export type { Counter, Gauge, Histogram };

/** Latency buckets shared by every request-like histogram, in seconds. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class MetricsRegistry {
  private readonly registry = new Registry();

  counter<L extends string = string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** A gauge set by the code, or read from `read` at every scrape. */
  gauge<L extends string = string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    read?: () => number,
  ): Gauge<L> {
    return new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      ...(read
        ? {
            collect(this: Gauge<L>) {
              this.set(read());
            },
          }
        : {}),
    });
  }

  histogram<L extends string = string>(
    name: string,
    help: string,
    buckets: readonly number[],
    labelNames: readonly L[] = [],
  ): Histogram<L> {
    return new Histogram({ name, help, buckets: [...buckets], labelNames, registers: [this.registry] });
  }

  /** The text exposition format. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** The sum of a counter's or gauge's series whose labels include `labels` (every series when none is given). */
export async function metricValue(metric: Counter<string> | Gauge<string>, labels: Labels = {}): Promise<number> {
  const { values } = await metric.get();
  let sum = 0;
  for (const v of values) {
    if (Object.entries(labels).every(([k, want]) => String(v.labels[k] ?? '') === want)) sum += v.value;
  }
  return sum;
}
