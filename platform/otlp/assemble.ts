/**
 * Assembles OTLP protobuf ExportTraceServiceRequests from parts: spans are copied as the bytes they were received
 * in (when unchanged) instead of being re-encoded, and each resource and scope is encoded once however many
 * requests it appears in. Splitting a 512-span request into per-trace messages then costs copies, not encodes.
 * Field numbers from opentelemetry/proto/trace/v1/trace.proto and collector/trace/v1/trace_service.proto.
 */
import { encodeInstrumentationScope, encodeResource, encodeSpan } from './protobuf.ts';
import type { InstrumentationScope, Resource, Span } from './types.ts';
import { fieldSize, writeVarint } from './wire.ts';

/** Wire tags (field << 3 | length-delimited) of fields 1, 2 and 3. */
const TAG1 = 0x0a;
const TAG2 = 0x12;
const TAG3 = 0x1a;

export interface ScopeGroup {
  scope: InstrumentationScope | null | undefined;
  schemaUrl: string | null | undefined;
  spans: Span[];
}

export interface ResourceGroup {
  resource: Resource | null | undefined;
  schemaUrl: string | null | undefined;
  scopes: ScopeGroup[];
}

interface Sized {
  resource: Uint8Array | undefined;
  schemaUrl: Buffer | undefined;
  scopes: { scope: Uint8Array | undefined; schemaUrl: Buffer | undefined; spans: Uint8Array[]; size: number }[];
  size: number;
}

export class TraceRequestAssembler {
  private readonly resources = new Map<object, Uint8Array>();
  private readonly scopes = new Map<object, Uint8Array>();

  /** `encodedSpan` returns a span's bytes as received, or undefined when it must be encoded (e.g. it changed). */
  constructor(private readonly encodedSpan: (span: Span) => Uint8Array | undefined = () => undefined) {}

  private resourceBytes(r: Resource | null | undefined): Uint8Array | undefined {
    if (!r) return undefined;
    let b = this.resources.get(r);
    if (!b) {
      b = encodeResource(r);
      this.resources.set(r, b);
    }
    return b;
  }

  private scopeBytes(s: InstrumentationScope | null | undefined): Uint8Array | undefined {
    if (!s) return undefined;
    let b = this.scopes.get(s);
    if (!b) {
      b = encodeInstrumentationScope(s);
      this.scopes.set(s, b);
    }
    return b;
  }

  /** One ExportTraceServiceRequest holding these groups. */
  assemble(groups: ResourceGroup[]): Buffer {
    const sized: Sized[] = [];
    let total = 0;
    for (const g of groups) {
      const resource = this.resourceBytes(g.resource);
      const schemaUrl = g.schemaUrl ? Buffer.from(g.schemaUrl, 'utf8') : undefined;
      let size = (resource ? fieldSize(resource.length) : 0) + (schemaUrl ? fieldSize(schemaUrl.length) : 0);
      const scopes: Sized['scopes'] = [];
      for (const sg of g.scopes) {
        const scope = this.scopeBytes(sg.scope);
        const sUrl = sg.schemaUrl ? Buffer.from(sg.schemaUrl, 'utf8') : undefined;
        let ssize = (scope ? fieldSize(scope.length) : 0) + (sUrl ? fieldSize(sUrl.length) : 0);
        const spans = sg.spans.map((s) => this.encodedSpan(s) ?? encodeSpan(s));
        for (const b of spans) ssize += fieldSize(b.length);
        scopes.push({ scope, schemaUrl: sUrl, spans, size: ssize });
        size += fieldSize(ssize);
      }
      sized.push({ resource, schemaUrl, scopes, size });
      total += fieldSize(size);
    }
    const out = Buffer.allocUnsafe(total);
    let at = 0;
    const put = (tag: number, bytes: Uint8Array) => {
      out[at++] = tag;
      at = writeVarint(out, at, bytes.length);
      out.set(bytes, at);
      at += bytes.length;
    };
    for (const g of sized) {
      out[at++] = TAG1;
      at = writeVarint(out, at, g.size);
      if (g.resource) put(TAG1, g.resource);
      for (const s of g.scopes) {
        out[at++] = TAG2;
        at = writeVarint(out, at, s.size);
        if (s.scope) put(TAG1, s.scope);
        for (const b of s.spans) put(TAG2, b);
        if (s.schemaUrl) put(TAG3, s.schemaUrl);
      }
      if (g.schemaUrl) put(TAG3, g.schemaUrl);
    }
    return out;
  }
}
