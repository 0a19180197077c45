/**
 * Direct mode (the embedded default): the collector hands each accepted request to this sink in the same process,
 * no Kafka in between, and answers 200 only once `write` resolved, i.e. once ClickHouse stored the rows.
 *
 * The dedup token is a digest of the tenant and the (trace id, span id) of every row, so an exporter that retries
 * the same request after a lost response does not store its spans twice.
 *
 * The sink has the collector's `SpanSink` shape (collector/sink.ts) without importing it: data flows one way, so
 * a later stage never imports an earlier stage's internals. ClickHouse failures are thrown as `StoreUnavailableError`,
 * which carries `retryAfterSeconds` like the collector's `SinkUnavailableError` (the wiring maps one to the other).
 */
import { createHash } from 'node:crypto';
import { diag } from '@opentelemetry/api';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { pingClickHouse } from '../platform/clickhouse.ts';
import type { ExportTraceServiceRequest } from '../platform/otlp/index.ts';
import type { Rows } from '../schema/rows.ts';
import type { BatchStoredHook } from './batch-stored.ts';
import type { EmitterOptions } from './emitters/normalize.ts';
import { flatten } from './flatten.ts';
import type { IngestMetrics } from './metrics.ts';
import { createClickHouseWriter, type RowWriter } from './writer.ts';

export const DEFAULT_DIRECT_RETRY_AFTER_S = 5;

/** What the collector tells its sink about a request (the fields of its `SinkContext` this sink uses). */
export interface DirectSinkContext {
  /** The authenticated tenant; overrides anything the payload says. */
  tenant: string;
}

/** ClickHouse did not acknowledge the write: the client should retry later (HTTP 503 with Retry-After). */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

/** A token naming exactly these rows: same tenant and span ids in the same order -> same token. */
export function rowsDigest(tenant: string, rows: Rows): string {
  const h = createHash('sha256').update(tenant).update('\0');
  for (const r of rows.toolCalls) h.update(r.trace_id).update(r.span_id);
  h.update('\0');
  for (const r of rows.spans) h.update(r.TraceId).update(r.SpanId);
  return `direct:${h.digest('hex').slice(0, 32)}`;
}

export interface DirectSinkOptions {
  ch: ClickHouseClient;
  /** ClickHouse URL for `ready()` (a `/ping`). */
  url: string;
  database: string;
  metrics?: IngestMetrics;
  /** Called once a batch is stored (the assembly wires the audit's digest recorder: audit/README.md). */
  batchStored?: BatchStoredHook;
  /** Replaces the ClickHouse writer (tests). */
  writer?: RowWriter;
  retryAfterSeconds?: number;
  /** Closes the ClickHouse client on `close()` (when the sink owns it). */
  ownsClient?: boolean;
  /** How tool spans of other emitters are judged (ingest/emitters/). */
  emitters?: EmitterOptions;
}

export class DirectSink {
  readonly name = 'clickhouse-direct';
  private readonly writer: RowWriter;
  constructor(private readonly options: DirectSinkOptions) {
    this.writer =
      options.writer ??
      createClickHouseWriter(options.ch, {
        database: options.database,
        ...(options.metrics ? { metrics: options.metrics } : {}),
        ...(options.batchStored ? { batchStored: options.batchStored } : {}),
      });
  }

  /**
   * Stores the request's spans under the context's tenant. Spans that cannot be stored (missing or all-zero ids:
   * the collector validates before, so this is a defect upstream) are counted and reported through `diag`, not
   * thrown: the valid ones are stored, and a retry would fail the same way forever.
   */
  async write(request: ExportTraceServiceRequest, context: DirectSinkContext): Promise<void> {
    const rows = flatten(request, {
      tenant: context.tenant,
      ...(this.options.emitters ? { emitters: this.options.emitters } : {}),
    });
    if (rows.rejected.length > 0) {
      for (const r of rows.rejected) this.options.metrics?.spansRejected.inc({ reason: r.reason });
      diag.warn(`tooltrail ingest: ${rows.rejected.length} span(s) not stored (${rows.rejected[0]?.reason})`);
    }
    if (rows.toolCalls.length + rows.spans.length === 0) return;
    try {
      await this.writer.writeRows(rows, { dedupToken: rowsDigest(context.tenant, rows) });
    } catch (err) {
      this.options.metrics?.insertFailures.inc();
      throw new StoreUnavailableError(
        `ClickHouse did not store the spans: ${(err as Error).message}`,
        this.options.retryAfterSeconds ?? DEFAULT_DIRECT_RETRY_AFTER_S,
        err,
      );
    }
  }

  ready(): Promise<boolean> {
    return pingClickHouse(this.options.url);
  }

  async close(): Promise<void> {
    if (this.options.ownsClient) await this.options.ch.close();
  }
}
