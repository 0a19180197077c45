/**
 * What a letter holds, for a person: its resources and spans by name, ids and contract fields, and the attribute
 * KEYS of each span, never their values (tool arguments and results stay out of the terminal and the JSON).
 */
import { createHash } from 'node:crypto';
import { Attr, GenAi, OtelResource } from '../../contract/index.ts';
import {
  bytesToHex,
  decodeExportTraceServiceRequest,
  type ExportTraceServiceRequest,
  int64ToString,
  type KeyValue,
} from '../../platform/otlp/index.ts';

/** Values shown are only identities and the contract's codes (tenant, service, tool name, effect, status). */
export interface SpanSummary {
  traceId: string;
  spanId: string;
  name: string;
  startTimeUnixNano: string;
  toolName?: string;
  effect?: string;
  resultStatus?: string;
  /** Attribute keys only. */
  attributeKeys: string[];
}

export interface LetterSummary {
  /** SHA-256 of the value, to compare letters without showing them. */
  sha256: string;
  decoded: boolean;
  /** Why it does not decode (decode_error letters). */
  decodeError?: string;
  resources: { serviceName?: string; tenant?: string; attributeKeys: string[]; spans: number }[];
  spans: number;
  /** The first `maxSpans` spans. */
  firstSpans: SpanSummary[];
}

function stringOf(attrs: KeyValue[] | undefined, key: string): string | undefined {
  const v = attrs?.find((a) => a.key === key)?.value;
  return typeof v?.stringValue === 'string' ? v.stringValue : undefined;
}

const keysOf = (attrs: KeyValue[] | undefined) => (attrs ?? []).map((a) => a.key ?? '').filter((k) => k !== '');

export function summarizeLetter(value: Buffer, maxSpans = 20): LetterSummary {
  const sha256 = createHash('sha256').update(value).digest('hex');
  let request: ExportTraceServiceRequest;
  try {
    request = decodeExportTraceServiceRequest(value);
  } catch (err) {
    return { sha256, decoded: false, decodeError: (err as Error).message, resources: [], spans: 0, firstSpans: [] };
  }
  const resources: LetterSummary['resources'] = [];
  const firstSpans: SpanSummary[] = [];
  let spans = 0;
  for (const rs of request.resourceSpans ?? []) {
    const attrs = rs.resource?.attributes;
    let n = 0;
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        n++;
        if (firstSpans.length >= maxSpans) continue;
        const toolName = stringOf(s.attributes, GenAi.TOOL_NAME);
        const effect = stringOf(s.attributes, Attr.EFFECT);
        const resultStatus = stringOf(s.attributes, Attr.RESULT_STATUS);
        firstSpans.push({
          traceId: bytesToHex(s.traceId),
          spanId: bytesToHex(s.spanId),
          name: s.name ?? '',
          startTimeUnixNano: int64ToString(s.startTimeUnixNano, true),
          ...(toolName !== undefined ? { toolName } : {}),
          ...(effect !== undefined ? { effect } : {}),
          ...(resultStatus !== undefined ? { resultStatus } : {}),
          attributeKeys: keysOf(s.attributes),
        });
      }
    }
    spans += n;
    const serviceName = stringOf(attrs, OtelResource.SERVICE_NAME);
    const tenant = stringOf(attrs, Attr.TENANT);
    resources.push({
      ...(serviceName !== undefined ? { serviceName } : {}),
      ...(tenant !== undefined ? { tenant } : {}),
      attributeKeys: keysOf(attrs),
      spans: n,
    });
  }
  return { sha256, decoded: true, resources, spans, firstSpans };
}
