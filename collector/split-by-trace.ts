/**
 * One Kafka message per trace: the request's spans grouped by trace id into per-trace ExportTraceServiceRequests
 * (each keeps its spans' resource and scope), keyed by the trace id in hex so one trace stays in one partition.
 * Spans received as protobuf are copied as received, not re-encoded (see platform/otlp/assemble.ts).
 */
import {
  bytesToHex,
  type ExportTraceServiceRequest,
  type ResourceGroup,
  type ResourceSpans,
  type ScopeSpans,
  type Span,
  TraceRequestAssembler,
} from '../platform/otlp/index.ts';

export interface TraceMessage {
  /** Trace id, lowercase hex. */
  key: string;
  /** OTLP protobuf ExportTraceServiceRequest holding only this trace's spans. */
  value: Buffer;
  spanCount: number;
}

type Groups = Map<ResourceSpans, Map<ScopeSpans, Span[]>>;

export function splitByTrace(
  request: ExportTraceServiceRequest,
  encodedSpan?: (span: Span) => Uint8Array | undefined,
): TraceMessage[] {
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
  const assembler = new TraceRequestAssembler(encodedSpan);
  const out: TraceMessage[] = [];
  for (const [key, t] of traces) {
    const groups: ResourceGroup[] = [];
    for (const [rs, scopes] of t.groups) {
      groups.push({
        resource: rs.resource,
        schemaUrl: rs.schemaUrl,
        scopes: [...scopes].map(([ss, spans]) => ({ scope: ss.scope, schemaUrl: ss.schemaUrl, spans })),
      });
    }
    out.push({ key, value: assembler.assemble(groups), spanCount: t.spans });
  }
  return out;
}
