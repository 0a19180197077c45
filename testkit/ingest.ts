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
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { Attr, EXECUTE_TOOL, GenAi, OtelResource, toolSpanName, WarningEvent } from '../contract/index.ts';
import { type FlattenResult, flatten } from '../ingest/flatten.ts';
import { createClickHouseWriter } from '../ingest/writer.ts';
import {
  decodeExportTraceServiceRequest,
  type ExportTraceServiceRequest,
  encodeExportTraceServiceRequest,
  type Span,
} from '../platform/otlp/index.ts';
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

export interface SyntheticOptions {
  tenant: string;
  /** Tool spans in the request (plus one non-tool parent span). */
  toolSpans: number;
  /** Distinguishes requests: ids are derived from it, so (seed, index) pairs are unique. */
  seed: number;
  /** Unix ms of the first span (default: now). */
  startMs?: number;
  /** Add a `tooltrail.warning` event to every Nth tool span (0: none). */
  warningEvery?: number;
  /** Every Nth tool span (from the first) is an incomplete read (default 3; 0: every read complete, no finding). */
  incompleteEvery?: number;
}

/** Deterministic but random-looking ids (real ids are random: they must not compress better than in production). */
function idBytes(length: number, seed: number, index: number): Buffer {
  return createHash('sha256').update(`${seed}:${index}`).digest().subarray(0, length);
}

/**
 * One OTLP request of one trace: a parent span and `toolSpans` tool spans carrying the completeness contract, with
 * deterministic ids, as the instrumentation library would emit them (and the collector stamp them).
 */
export function syntheticRequest(o: SyntheticOptions): ExportTraceServiceRequest {
  const traceId = idBytes(16, o.seed, 0xffff);
  const parentId = idBytes(8, o.seed, 0xfffe);
  const startNs = BigInt(o.startMs ?? Date.now()) * 1_000_000n;
  const ns = (v: bigint) => v.toString();
  const spans: Span[] = [
    {
      traceId,
      spanId: parentId,
      name: 'agent turn',
      kind: 1,
      startTimeUnixNano: ns(startNs),
      endTimeUnixNano: ns(startNs + 5_000_000n),
      attributes: [{ key: GenAi.CONVERSATION_ID, value: { stringValue: `sess-${o.seed}` } }],
    },
  ];
  const every = o.incompleteEvery ?? 3;
  for (let i = 0; i < o.toolSpans; i++) {
    const mutation = i % 5 === 4;
    const incomplete = every > 0 && i % every === 0;
    const t0 = startNs + BigInt(i) * 1_000n;
    spans.push({
      traceId,
      spanId: idBytes(8, o.seed, i),
      parentSpanId: parentId,
      name: toolSpanName(mutation ? 'delete_accounts' : 'list_accounts'),
      kind: 1,
      startTimeUnixNano: ns(t0),
      endTimeUnixNano: ns(t0 + 750_000n),
      attributes: [
        { key: GenAi.OPERATION_NAME, value: { stringValue: EXECUTE_TOOL } },
        { key: GenAi.TOOL_NAME, value: { stringValue: mutation ? 'delete_accounts' : 'list_accounts' } },
        { key: GenAi.TOOL_CALL_ID, value: { stringValue: `call-${o.seed}-${i}` } },
        { key: GenAi.CONVERSATION_ID, value: { stringValue: `sess-${o.seed}` } },
        { key: GenAi.AGENT_NAME, value: { stringValue: 'cleaner' } },
        { key: Attr.EFFECT, value: { stringValue: mutation ? 'mutation' : 'read' } },
        { key: Attr.RESULT_STATUS, value: { stringValue: incomplete ? 'partial' : 'complete' } },
        { key: Attr.RESULT_COMPLETE, value: { boolValue: !incomplete } },
        {
          key: Attr.RESULT_REASONS,
          value: { arrayValue: { values: incomplete ? [{ stringValue: 'MORE_PAGES_AVAILABLE' }] : [] } },
        },
        { key: Attr.RESULT_ITEM_COUNT, value: { intValue: i % 7 } },
        { key: Attr.SCOPE_RESOURCE, value: { stringValue: 'service_accounts' } },
        { key: Attr.SCOPE_SNAPSHOT, value: { stringValue: `snap-${o.seed}` } },
        { key: Attr.SESSION_SEQUENCE, value: { intValue: i + 1 } },
      ],
      events:
        o.warningEvery && i % o.warningEvery === 0
          ? [
              {
                name: WarningEvent.NAME,
                timeUnixNano: ns(t0 + 1_000n),
                attributes: [
                  { key: WarningEvent.CODE, value: { stringValue: 'STALE_INDEX' } },
                  { key: WarningEvent.SOURCE, value: { stringValue: 'accounts-index' } },
                  { key: WarningEvent.MESSAGE, value: { stringValue: 'index is 3 days old' } },
                ],
              },
            ]
          : [],
      status: { code: 0 },
    });
  }
  return {
    resourceSpans: [
      {
        resource: {
          attributes: [
            { key: OtelResource.SERVICE_NAME, value: { stringValue: 'agent-svc' } },
            { key: Attr.TENANT, value: { stringValue: o.tenant } },
          ],
        },
        scopeSpans: [{ scope: { name: 'tooltrail', version: '0.1.0' }, spans }],
      },
    ],
  };
}

/** The bytes of `syntheticRequest`, as the collector writes them to Kafka. */
export function syntheticMessage(o: SyntheticOptions): Buffer {
  return Buffer.from(encodeExportTraceServiceRequest(syntheticRequest(o)));
}
