/**
 * Every series the collector exports, in the platform's one registry; one instance per collector. Tenant names are
 * labels only when `tenantLabels` is on: they say which customers send how much, so they are served only behind
 * the metrics token (collector/README.md, "Health and metrics").
 */
import { LATENCY_BUCKETS, type Labels, MetricsRegistry } from '../platform/metrics/index.ts';

export interface CollectorMetricsOptions {
  /** Label per-tenant series with the tenant (default false: one series for all tenants). */
  tenantLabels?: boolean;
}

export class CollectorMetrics {
  private readonly registry = new MetricsRegistry();
  readonly tenantLabels: boolean;
  private sinkUp = 1;
  private inFlight = { requests: 0, bytes: 0 };

  readonly requests;
  readonly spansAccepted;
  readonly spansRejected;
  readonly spansFlagged;
  readonly spansThrottled;
  readonly requestsThrottled;
  readonly connectionErrors;
  readonly tenantOverrides;
  readonly requestDuration;
  readonly kafkaSendDuration;
  readonly kafkaMessages;
  readonly fastPathDeclines;

  constructor(options: CollectorMetricsOptions = {}) {
    this.tenantLabels = options.tenantLabels ?? false;
    const r = this.registry;
    const t = this.tenantLabels ? (['tenant'] as const) : ([] as const);
    this.requests = r.counter('tooltrail_collector_requests_total', 'OTLP export requests by HTTP status', ['status']);
    this.spansAccepted = r.counter('tooltrail_collector_spans_accepted_total', 'Spans acknowledged by the sink', [
      ...t,
    ]);
    this.spansRejected = r.counter(
      'tooltrail_collector_spans_rejected_total',
      'Invalid spans rejected (partial_success), by reason',
      [...t, 'reason'],
    );
    this.spansFlagged = r.counter(
      'tooltrail_collector_spans_flagged_total',
      'Spans accepted with contract problems (stored flagged, said in partial_success), by reason',
      [...t, 'reason'],
    );
    this.spansThrottled = r.counter(
      'tooltrail_collector_spans_throttled_total',
      'Decoded spans refused with 429/503, by status',
      [...t, 'status'],
    );
    this.requestsThrottled = r.counter(
      'tooltrail_collector_requests_throttled_total',
      'Requests refused with 429/503, by status and reason',
      ['status', 'reason'],
    );
    this.connectionErrors = r.counter(
      'tooltrail_collector_connection_errors_total',
      'Connections answered before any request was read (malformed bytes, timeouts), by reason',
      ['reason'],
    );
    this.tenantOverrides = r.counter(
      'tooltrail_collector_tenant_overrides_total',
      'Resources that claimed another tenant than their token',
      [...t],
    );
    this.requestDuration = r.histogram(
      'tooltrail_collector_request_duration_seconds',
      'OTLP export request latency',
      LATENCY_BUCKETS,
    );
    this.kafkaSendDuration = r.histogram(
      'tooltrail_collector_kafka_send_duration_seconds',
      'Kafka produce latency until acks=all',
      LATENCY_BUCKETS,
      ['outcome'],
    );
    this.kafkaMessages = r.counter(
      'tooltrail_collector_kafka_messages_total',
      'Kafka messages sent, by outcome (ok, failed)',
      ['outcome'],
    );
    this.fastPathDeclines = r.counter(
      'tooltrail_collector_fast_path_declines_total',
      'Protobuf requests the fast path left to the general path (same answer, more CPU), by reason',
      ['reason'],
    );
    r.gauge('tooltrail_collector_sink_up', 'Whether the sink accepts writes (0: breaker open)', [], () => this.sinkUp);
    r.gauge(
      'tooltrail_collector_in_flight_requests',
      'Export requests being handled',
      [],
      () => this.inFlight.requests,
    );
    r.gauge(
      'tooltrail_collector_in_flight_bytes',
      'Request bytes reserved for requests being handled',
      [],
      () => this.inFlight.bytes,
    );
  }

  /** `labels` plus the tenant when tenant labels are on. */
  of(tenant: string, labels: Labels = {}): Labels {
    return this.tenantLabels ? { ...labels, tenant } : labels;
  }

  setSinkUp(up: boolean): void {
    this.sinkUp = up ? 1 : 0;
  }

  trackInFlight(read: { requests: number; bytes: number }): void {
    this.inFlight = read;
  }

  render(): Promise<string> {
    return this.registry.render();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
