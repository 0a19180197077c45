/**
 * Pipeline health. Two sources, by where each fact lives: the collector's and the ingest's counters and gauges
 * are Prometheus metrics on their /metrics endpoints (scraped by the provisioned Prometheus); what reached
 * ClickHouse, how fast and how late, is read from the rows themselves (ingested_at vs the span's end).
 */
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { Grid, promStatPanel, promTimeSeriesPanel, statPanel, timeSeriesPanel } from '../panels.ts';
import { DASHBOARD_UIDS, tooltrailDashboard } from './common.ts';

export function pipelineDashboard(): Dashboard {
  const grid = new Grid();
  const d = tooltrailDashboard(
    DASHBOARD_UIDS.pipeline,
    'tooltrail / Pipeline health',
    'Spans accepted, rejected and throttled at the collector; Kafka consumer lag; rows stored per second; dead letters; end-to-end delay.',
    'now-6h',
  );

  d.withPanel(
    grid.place(
      promStatPanel({
        title: 'Collector sink up',
        description: '1 while the collector can hand batches to Kafka; 0 while its breaker is open (it answers 503).',
        expr: 'min(tooltrail_collector_sink_up)',
        redAt: 1,
        lowIsBad: true,
      }),
      6,
      4,
    ),
  );
  d.withPanel(
    grid.place(
      promStatPanel({
        title: 'Dead letters',
        description:
          'Kafka messages the ingest could not store faithfully and sent to the dead-letter topic, in the range.',
        expr: 'sum(increase(tooltrail_ingest_dead_letters_total[$__range]))',
        redAt: 1,
      }),
      6,
      4,
    ),
  );
  d.withPanel(
    grid.place(
      promStatPanel({
        title: 'Kafka consumer lag',
        description: 'Messages not yet stored, summed over partitions (latest).',
        expr: 'sum(tooltrail_ingest_consumer_lag)',
        redAt: 10_000,
      }),
      6,
      4,
    ),
  );
  d.withPanel(
    grid.place(
      statPanel({
        title: 'Spans stored',
        description: 'Tool spans and other spans stored in ClickHouse in the range.',
        sql: 'pipeline/stored_spans_total.sql',
      }),
      6,
      4,
    ),
  );
  grid.newLine();
  d.withPanel(
    grid.place(
      promTimeSeriesPanel({
        title: 'Spans at the collector',
        description:
          'Per second: spans accepted (acknowledged by Kafka), rejected as invalid (partial_success) and throttled (429/503).',
        unit: 'short',
        queries: [
          { expr: 'sum(rate(tooltrail_collector_spans_accepted_total[$__rate_interval]))', legend: 'accepted' },
          {
            expr: 'sum by (reason) (rate(tooltrail_collector_spans_rejected_total[$__rate_interval]))',
            legend: 'rejected: {{reason}}',
          },
          {
            expr: 'sum by (status) (rate(tooltrail_collector_spans_throttled_total[$__rate_interval]))',
            legend: 'throttled: {{status}}',
          },
        ],
      }),
      12,
      9,
    ),
  );
  d.withPanel(
    grid.place(
      promTimeSeriesPanel({
        title: 'Spans rejected or kept flagged, by tenant and reason, over the range',
        description:
          'What senders get wrong, over the dashboard range (set it to the last hour to see what is wrong now): spans rejected (partial_success) and spans kept but flagged for a contract mistake (a malformed tooltrail.* attribute, a tool call only by what it carries). Exporters often ignore partial_success: this is where it shows.',
        unit: 'short',
        queries: [
          {
            expr: 'sum by (tenant, reason) (increase(tooltrail_collector_spans_rejected_total[$__range]))',
            legend: 'rejected {{tenant}}: {{reason}}',
          },
          {
            expr: 'sum by (tenant, reason) (increase(tooltrail_collector_spans_flagged_total[$__range]))',
            legend: 'flagged {{tenant}}: {{reason}}',
          },
        ],
      }),
      12,
      9,
    ),
  );
  d.withPanel(
    grid.place(
      promTimeSeriesPanel({
        title: 'Kafka consumer lag by partition',
        description: 'Messages between the ingest consumer group committed offset and the high watermark.',
        queries: [{ expr: 'sum by (partition) (tooltrail_ingest_consumer_lag)', legend: 'partition {{partition}}' }],
      }),
      12,
      9,
    ),
  );
  d.withPanel(
    grid.place(
      promTimeSeriesPanel({
        title: 'Ingest rows/s (as the ingest reports it)',
        description: 'Rows the ingest stored per second, by table, from its own counter.',
        queries: [
          { expr: 'sum by (table) (rate(tooltrail_ingest_rows_written_total[$__rate_interval]))', legend: '{{table}}' },
        ],
      }),
      12,
      9,
    ),
  );
  d.withPanel(
    grid.place(
      timeSeriesPanel({
        title: 'Rows stored per second (in ClickHouse)',
        description: 'Rows per second by the time ClickHouse stored them, by table: what actually landed.',
        sql: 'pipeline/stored_rows_per_second.sql',
      }),
      12,
      9,
    ),
  );
  d.withPanel(
    grid.place(
      promTimeSeriesPanel({
        title: 'Dead letters and insert failures',
        description: 'Messages dead-lettered by reason, and batch inserts that failed and were retried.',
        bars: true,
        queries: [
          {
            expr: 'sum by (reason) (increase(tooltrail_ingest_dead_letters_total[$__rate_interval]))',
            legend: 'dead letter: {{reason}}',
          },
          {
            expr: 'sum(increase(tooltrail_ingest_insert_failures_total[$__rate_interval]))',
            legend: 'insert failures',
          },
        ],
      }),
      12,
      9,
    ),
  );
  d.withPanel(
    grid.place(
      timeSeriesPanel({
        title: 'End-to-end delay',
        description:
          'From the end of a tool span in the agent to its row stored in ClickHouse: median, 95th percentile, max.',
        sql: 'pipeline/end_to_end_delay.sql',
        unit: 's',
      }),
      12,
      9,
    ),
  );
  return d.build();
}
