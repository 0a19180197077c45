/**
 * The ingest's own metrics, in the platform's one registry: consumer lag, rows written, batch sizes, insert
 * latency, dead letters, rejected spans. Served as Prometheus text by `tooltrail ingest --metrics-port`.
 */
import { MetricsRegistry } from '../platform/metrics/index.ts';
import { DECLINE_REASONS } from './columns/decline.ts';
import { DEAD_LETTER_REASONS } from './dead-letter.ts';

export class IngestMetrics {
  private readonly registry = new MetricsRegistry();
  readonly rowsWritten = this.registry.counter(
    'tooltrail_ingest_rows_written_total',
    'Rows stored in ClickHouse, by table.',
    ['table'],
  );
  readonly spansRejected = this.registry.counter(
    'tooltrail_ingest_spans_rejected_total',
    'Spans that could not be stored faithfully (dead-lettered), by reason.',
    ['reason'],
  );
  readonly deadLetters = this.registry.counter(
    'tooltrail_ingest_dead_letters_total',
    'Messages sent to the dead-letter topic, by reason (decode_error, missing_tenant, invalid_tenant, invalid_trace_id, invalid_span_id).',
    ['reason'],
  );
  readonly resentMessages = this.registry.counter(
    'tooltrail_ingest_resent_messages_total',
    'Messages left out as re-sends of a message already in the partition (a client retry after an ambiguous answer).',
  );
  readonly resentSpans = this.registry.counter(
    'tooltrail_ingest_resent_spans_total',
    'Spans of the re-sent messages left out.',
  );
  readonly columnPathDeclines = this.registry.counter(
    'tooltrail_ingest_column_path_declines_total',
    'Messages the column path left to the general path (flatten), by reason (ingest/columns/decline.ts).',
    ['reason'],
  );
  readonly batches = this.registry.counter('tooltrail_ingest_batches_total', 'Batches stored and committed.');
  readonly fencedBatches = this.registry.counter(
    'tooltrail_ingest_fenced_batches_total',
    'Batches held back because the group coordinator did not confirm this member holds their partition (a rebalance it had not seen yet, or the coordinator unreachable); retried after the backoff.',
  );
  readonly insertFailures = this.registry.counter(
    'tooltrail_ingest_insert_failures_total',
    'Failed batch inserts (retried).',
  );
  readonly consumerLag = this.registry.gauge(
    'tooltrail_ingest_consumer_lag',
    'Messages between the committed offset and the high watermark, per partition.',
    ['partition'],
  );
  readonly batchRows = this.registry.histogram(
    'tooltrail_ingest_batch_rows',
    'Rows per stored batch.',
    [10, 100, 1_000, 5_000, 10_000, 50_000, 100_000, 500_000],
  );
  readonly insertSeconds = this.registry.histogram(
    'tooltrail_ingest_insert_seconds',
    'Time to store one batch in ClickHouse (all tables, acknowledged).',
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );

  constructor() {
    // Every reason's series exists from the start at 0, so `increase()` and alerts see the first letter.
    for (const reason of DEAD_LETTER_REASONS) this.deadLetters.inc({ reason }, 0);
    for (const reason of DECLINE_REASONS) this.columnPathDeclines.inc({ reason }, 0);
  }

  render(): Promise<string> {
    return this.registry.render();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
