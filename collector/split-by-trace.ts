/**
 * One Kafka message per trace: the request's spans grouped by trace id into per-trace ExportTraceServiceRequests
 * (each keeps its spans' resource and scope), keyed by the trace id in hex so one trace stays in one partition.
 */
import {
  bytesToHex,
  type ExportTraceServiceRequest,
  encodeExportTraceServiceRequest,
  type ResourceSpans,
  type ScopeSpans,
  type Span,
} from '../platform/otlp/index.ts';

export interface TraceMessage {
  /** Trace id, lowercase hex. */
  key: string;
  /** OTLP protobuf ExportTraceServiceRequest holding only this trace's spans. */
  value: Buffer;
  spanCount: number;
}

type Groups = Map<ResourceSpans, Map<ScopeSpans, Span[]>>;

function toBuffer(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

export function splitByTrace(request: ExportTraceServiceRequest): TraceMessage[] {
  const traces = new Map<string, { groups: Groups; spans: number }>();
  for (const rs of request.resourceSpans) {
    for (const ss of rs.scopeSpans) {
      for (const span of ss.spans) {
        const key = bytesToHex(span.traceId);
        let t = traces.get(key);
        if (!t) {
          t = { groups: new Map(), spans: 0 };
          traces.set(key, t);
        }
        t.spans++;
        let scopes = t.groups.get(rs);
        if (!scopes) {
          scopes = new Map();
          t.groups.set(rs, scopes);
        }
        const list = scopes.get(ss);
        if (list) list.push(span);
        else scopes.set(ss, [span]);
      }
    }
  }
  const only = traces.size === 1 ? [...traces][0] : undefined;
  if (only) {
    // The whole request is one trace: encode it as it is.
    const [key, t] = only;
    return [{ key, value: toBuffer(encodeExportTraceServiceRequest(request)), spanCount: t.spans }];
  }
  const out: TraceMessage[] = [];
  for (const [key, t] of traces) {
    const resourceSpans: ResourceSpans[] = [];
    for (const [rs, scopes] of t.groups) {
      const scopeSpans: ScopeSpans[] = [];
      for (const [ss, spans] of scopes)
        scopeSpans.push({ scope: ss.scope ?? null, schemaUrl: ss.schemaUrl ?? null, spans });
      resourceSpans.push({ resource: rs.resource ?? null, schemaUrl: rs.schemaUrl ?? null, scopeSpans });
    }
    out.push({ key, value: toBuffer(encodeExportTraceServiceRequest({ resourceSpans })), spanCount: t.spans });
  }
  return out;
}
