/**
 * The ingest's own metrics: consumer lag, rows written (and rows/s), batch sizes, insert latency, dead letters,
 * rejected spans. Exposed as Prometheus text by `tooltrail ingest --metrics-port` and read directly by tests.
 * Deliberately tiny (no client library): counters, gauges and fixed-bucket histograms.
 */

type Labels = Record<string, string>;

function labelKey(labels: Labels): string {
  const keys = Object.keys(labels).sort();
  return keys
    .map((k) => `${k}="${labels[k]!.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');
}

export class Counter {
  readonly values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  inc(labels: Labels = {}, by = 1): void {
    const k = labelKey(labels);
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }
  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels)) ?? 0;
  }
  total(): number {
    let t = 0;
    for (const v of this.values.values()) t += v;
    return t;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [k, v] of this.values) lines.push(`${this.name}${k ? `{${k}}` : ''} ${v}`);
    return lines.join('\n');
  }
}

export class Gauge {
  readonly values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  set(labels: Labels, v: number): void {
    this.values.set(labelKey(labels), v);
  }
  get(labels: Labels = {}): number | undefined {
    return this.values.get(labelKey(labels));
  }
  sum(): number {
    let t = 0;
    for (const v of this.values.values()) t += v;
    return t;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`];
    for (const [k, v] of this.values) lines.push(`${this.name}${k ? `{${k}}` : ''} ${v}`);
    return lines.join('\n');
  }
}

export class Histogram {
  readonly counts: number[];
  count = 0;
  sum = 0;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {
    this.counts = buckets.map(() => 0);
  }
  observe(v: number): void {
    this.count++;
    this.sum += v;
    for (let i = 0; i < this.buckets.length; i++) if (v <= this.buckets[i]!) this.counts[i]!++;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    this.buckets.forEach((b, i) => {
      lines.push(`${this.name}_bucket{le="${b}"} ${this.counts[i]}`);
    });
    lines.push(
      `${this.name}_bucket{le="+Inf"} ${this.count}`,
      `${this.name}_sum ${this.sum}`,
      `${this.name}_count ${this.count}`,
    );
    return lines.join('\n');
  }
}

export class IngestMetrics {
  readonly rowsWritten = new Counter('tooltrail_ingest_rows_written_total', 'Rows stored in ClickHouse, by table.');
  readonly spansRejected = new Counter(
    'tooltrail_ingest_spans_rejected_total',
    'Spans that could not be stored faithfully (dead-lettered), by reason.',
  );
  readonly deadLetters = new Counter(
    'tooltrail_ingest_dead_letters_total',
    'Messages sent to the dead-letter topic, by reason (decode_error, rejected_spans).',
  );
  readonly resentMessages = new Counter(
    'tooltrail_ingest_resent_messages_total',
    'Messages left out as re-sends of a message already in the partition (a client retry after an ambiguous answer).',
  );
  readonly resentSpans = new Counter('tooltrail_ingest_resent_spans_total', 'Spans of the re-sent messages left out.');
  readonly batches = new Counter('tooltrail_ingest_batches_total', 'Batches stored and committed.');
  readonly insertFailures = new Counter('tooltrail_ingest_insert_failures_total', 'Failed batch inserts (retried).');
  readonly consumerLag = new Gauge(
    'tooltrail_ingest_consumer_lag',
    'Messages between the committed offset and the high watermark, per partition.',
  );
  readonly batchRows = new Histogram(
    'tooltrail_ingest_batch_rows',
    'Rows per stored batch.',
    [10, 100, 1_000, 5_000, 10_000, 50_000, 100_000, 500_000],
  );
  readonly insertSeconds = new Histogram(
    'tooltrail_ingest_insert_seconds',
    'Time to store one batch in ClickHouse (all tables, acknowledged).',
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  private readonly startedAt: number;
  constructor(private readonly now: () => number = Date.now) {
    this.startedAt = now();
  }

  /** Average rows/s since start (dashboards take `rate()` of the counter instead). */
  rowsPerSecond(): number {
    const s = (this.now() - this.startedAt) / 1000;
    return s > 0 ? this.rowsWritten.total() / s : 0;
  }

  toPrometheus(): string {
    return `${[
      this.rowsWritten,
      this.spansRejected,
      this.deadLetters,
      this.resentMessages,
      this.resentSpans,
      this.batches,
      this.insertFailures,
      this.consumerLag,
      this.batchRows,
      this.insertSeconds,
    ]
      .map((m) => m.render())
      .join('\n')}\n`;
  }
}
