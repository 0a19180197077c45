/**
 * The collector's metrics in the Prometheus text exposition format (0.0.4), which Prometheus and the OpenTelemetry
 * Collector's prometheus receiver both scrape. Hand-written: a dozen series do not justify a dependency.
 */

type Labels = Record<string, string>;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labelKey(labels: Labels): string {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escapeLabel(labels[k] ?? '')}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

interface Metric {
  render(): string;
}

export class Counter implements Metric {
  private readonly values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  inc(labels: Labels = {}, by = 1): void {
    if (by === 0) return;
    const k = labelKey(labels);
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }
  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels)) ?? 0;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [k, v] of this.values) lines.push(`${this.name}${k} ${v}`);
    return lines.join('\n');
  }
}

export class Gauge implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => number,
  ) {}
  render(): string {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`, `${this.name} ${this.read()}`].join('\n');
  }
}

export class Histogram implements Metric {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {}
  observe(value: number, labels: Labels = {}): void {
    const k = labelKey(labels);
    let s = this.series.get(k);
    if (!s) {
      s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(k, s);
    }
    for (let i = 0; i < this.buckets.length; i++)
      if (value <= (this.buckets[i] as number)) s.counts[i] = (s.counts[i] ?? 0) + 1;
    s.sum += value;
    s.count++;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.series.values()) {
      this.buckets.forEach((b, i) => {
        lines.push(`${this.name}_bucket${labelKey({ ...s.labels, le: String(b) })} ${s.counts[i]}`);
      });
      lines.push(`${this.name}_bucket${labelKey({ ...s.labels, le: '+Inf' })} ${s.count}`);
      lines.push(`${this.name}_sum${labelKey(s.labels)} ${s.sum}`);
      lines.push(`${this.name}_count${labelKey(s.labels)} ${s.count}`);
    }
    return lines.join('\n');
  }
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Every series the collector exports; one instance per collector. */
export class CollectorMetrics {
  private readonly all: Metric[] = [];
  readonly requests = this.add(
    new Counter('tooltrail_collector_requests_total', 'OTLP export requests by HTTP status'),
  );
  readonly spansAccepted = this.add(
    new Counter('tooltrail_collector_spans_accepted_total', 'Spans acknowledged by the sink, by tenant'),
  );
  readonly spansRejected = this.add(
    new Counter(
      'tooltrail_collector_spans_rejected_total',
      'Invalid spans rejected (partial_success), by tenant and reason',
    ),
  );
  readonly spansFlagged = this.add(
    new Counter(
      'tooltrail_collector_spans_flagged_total',
      'Spans accepted with contract problems (stored flagged, said in partial_success), by tenant and reason',
    ),
  );
  readonly spansThrottled = this.add(
    new Counter(
      'tooltrail_collector_spans_throttled_total',
      'Decoded spans refused with 429/503, by tenant and status',
    ),
  );
  readonly requestsThrottled = this.add(
    new Counter('tooltrail_collector_requests_throttled_total', 'Requests refused with 429/503, by status and reason'),
  );
  readonly tenantOverrides = this.add(
    new Counter('tooltrail_collector_tenant_overrides_total', 'Resources that claimed another tenant than their token'),
  );
  readonly requestDuration = this.add(
    new Histogram('tooltrail_collector_request_duration_seconds', 'OTLP export request latency', LATENCY_BUCKETS),
  );
  readonly kafkaSendDuration = this.add(
    new Histogram(
      'tooltrail_collector_kafka_send_duration_seconds',
      'Kafka produce latency until acks=all',
      LATENCY_BUCKETS,
    ),
  );
  readonly kafkaMessages = this.add(
    new Counter('tooltrail_collector_kafka_messages_total', 'Kafka messages sent, by outcome (ok, failed)'),
  );
  private sinkUp = 1;
  private inFlight = { requests: 0, bytes: 0 };

  constructor() {
    this.add(
      new Gauge('tooltrail_collector_sink_up', 'Whether the sink accepts writes (0: breaker open)', () => this.sinkUp),
    );
    this.add(
      new Gauge(
        'tooltrail_collector_in_flight_requests',
        'Export requests being handled',
        () => this.inFlight.requests,
      ),
    );
    this.add(
      new Gauge(
        'tooltrail_collector_in_flight_bytes',
        'Decompressed bytes of requests being handled',
        () => this.inFlight.bytes,
      ),
    );
  }

  private add<M extends Metric>(m: M): M {
    this.all.push(m);
    return m;
  }

  setSinkUp(up: boolean): void {
    this.sinkUp = up ? 1 : 0;
  }

  trackInFlight(read: { requests: number; bytes: number }): void {
    this.inFlight = read;
  }

  render(): string {
    return `${this.all.map((m) => m.render()).join('\n')}\n`;
  }
}
