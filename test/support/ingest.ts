/**
 * Puts spans into ClickHouse THROUGH the real path, for any component's integration tests: OTel SDK spans are
 * serialized by the OpenTelemetry JS OTLP protobuf serializer (what the OTLP exporters send), decoded by
 * platform/otlp (what the collector and the ingest use), stamped with the tenant as the collector does, flattened
 * and written by the ingest's writer (deduplication token included).
 *
 *   const exporter = new InMemorySpanExporter(); ... run instrumented code ...
 *   await ingestSpans(db, exporter.getFinishedSpans(), 'acme');
 */
import { createHash } from 'node:crypto';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Attr } from '../../contract/index.ts';
import { type FlattenResult, flatten } from '../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../ingest/writer.ts';
import { decodeExportTraceServiceRequest, type ExportTraceServiceRequest } from '../../platform/otlp/index.ts';
import type { TestDatabase } from './services.ts';

/** OTel SDK spans -> OTLP protobuf bytes, exactly as `@opentelemetry/exporter-trace-otlp-proto` sends them. */
export function serializeSpans(spans: ReadableSpan[]): Uint8Array {
  const bytes = ProtobufTraceSerializer.serializeRequest(spans);
  if (!bytes) throw new Error('the OTLP protobuf serializer produced nothing');
  return bytes;
}

/** Sets `tooltrail.tenant` on every resource, replacing what the payload said (the collector's rule). */
export function stampTenant(request: ExportTraceServiceRequest, tenant: string): ExportTraceServiceRequest {
  return {
    resourceSpans: request.resourceSpans.map((rs) => ({
      ...rs,
      resource: {
        ...(rs.resource ?? {}),
        attributes: [
          ...(rs.resource?.attributes ?? []).filter((kv) => kv.key !== Attr.TENANT),
          { key: Attr.TENANT, value: { stringValue: tenant } },
        ],
      },
    })),
  };
}

export interface IngestedRows {
  toolCalls: number;
  warnings: number;
  spans: number;
  rejected: FlattenResult['rejected'];
}

/**
 * Flattens and writes one request whose resources already carry their tenant. Resolves once ClickHouse stored
 * the rows (immediately queryable). Throws when a span was rejected: a test fixture that loses spans is a bug.
 */
export async function ingestRequest(db: TestDatabase, request: ExportTraceServiceRequest): Promise<IngestedRows> {
  const rows = flatten(request);
  if (rows.rejected.length > 0) {
    throw new Error(
      `ingestRequest: ${rows.rejected.length} span(s) rejected: ${rows.rejected.map((r) => r.reason).join(', ')}`,
    );
  }
  const token = createHash('sha256')
    .update(rows.toolCalls.map((r) => r.span_id).join(','))
    .update(rows.spans.map((r) => r.SpanId).join(','))
    .digest('hex');
  await createClickHouseWriter(db.ch, { database: db.database }).writeRows(rows, { dedupToken: `test:${token}` });
  return {
    toolCalls: rows.toolCalls.length,
    warnings: rows.warnings.length,
    spans: rows.spans.length,
    rejected: rows.rejected,
  };
}

/** OTel SDK spans (e.g. `InMemorySpanExporter.getFinishedSpans()`) -> rows in `db`, stored under `tenant`. */
export async function ingestSpans(db: TestDatabase, spans: ReadableSpan[], tenant: string): Promise<IngestedRows> {
  const request = decodeExportTraceServiceRequest(serializeSpans(spans));
  return ingestRequest(db, stampTenant(request, tenant));
}
