/**
 * What the collector does to a request body before its sink: decode (protobuf or OTLP/JSON), validate per span,
 * stamp the tenant; and, for sinks that take Kafka-ready messages, split it into one OTLP protobuf message per
 * trace. Pure and synchronous, so it runs the same on the main thread or on a decode thread (prepare-pool.ts).
 */
import { isUtf8 } from 'node:buffer';
import {
  decodeExportTraceServiceRequestChecked,
  type ExportTraceServiceRequest,
  exportTraceServiceRequestFromJson,
  type JsonSpanRejection,
  OtlpDecodeError,
  OtlpJsonError,
  type Span,
} from '../platform/otlp/index.ts';
import { refuse } from './errors.ts';
import { type FastPathDecline, prepareProtobufFast } from './fast/prepare.ts';
import { splitByTrace, type TraceMessage } from './split-by-trace.ts';
import {
  type FlagReason,
  type ReasonSample,
  type RejectReason,
  rejectionMessage,
  stampTenant,
  validateRequest,
} from './validate.ts';

export type BodyFormat = 'protobuf' | 'json';

/** The counts and messages a response and the metrics need. */
export interface PreparedSummary {
  accepted: number;
  rejected: number;
  byReason: [RejectReason, number][];
  /** Accepted spans kept with contract problems, and their reasons (a span may count under several). */
  flagged: number;
  flagsByReason: [FlagReason, number][];
  /** The first span of each reason, rejected or flagged (for the sender report). */
  samples: ReasonSample[];
  /** partial_success.error_message; empty when nothing was rejected or flagged. */
  errorMessage: string;
  /** Resources that claimed another tenant than the credential's. */
  tenantOverrides: number;
  /** Why the protobuf fast path left this body to the general path (absent: it took it, or the body is JSON). */
  fastPathDecline?: FastPathDecline;
}

export interface Prepared extends PreparedSummary {
  /** The accepted spans, tenant stamped (empty when none was accepted). */
  request: ExportTraceServiceRequest;
  /** Received bytes of unchanged spans (protobuf input only). */
  encodedSpan?: (span: Span) => Uint8Array | undefined;
}

export interface PreparedMessages extends PreparedSummary {
  /** One OTLP protobuf ExportTraceServiceRequest per trace, keyed by trace id hex. */
  messages: TraceMessage[];
}

/** Decodes, validates and stamps the tenant; throws CollectorHttpError refusals (400) for what is not OTLP. */
export function prepare(body: Buffer, format: BodyFormat, tenant: string): Prepared {
  let decoded: ExportTraceServiceRequest;
  let invalidUtf8: ((m: object) => number) | undefined;
  let received: ((span: Span) => Uint8Array | undefined) | undefined;
  let prior: JsonSpanRejection[] = [];
  if (format === 'protobuf') {
    try {
      const checked = decodeExportTraceServiceRequestChecked(body);
      decoded = checked.request;
      invalidUtf8 = checked.invalidUtf8;
      received = checked.encodedSpan;
    } catch (err) {
      if (err instanceof OtlpDecodeError) throw refuse.notOtlp(err.message);
      throw err;
    }
  } else {
    if (!isUtf8(body)) throw refuse.notOtlp('the JSON body is not valid UTF-8');
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw refuse.notOtlp(`the body is not JSON: ${(err as Error).message}`);
    }
    try {
      const converted = exportTraceServiceRequestFromJson(json);
      decoded = converted.request;
      prior = converted.rejections;
    } catch (err) {
      if (err instanceof OtlpJsonError)
        throw refuse.notOtlp(`not an OTLP/JSON ExportTraceServiceRequest: ${err.message}`);
      throw err;
    }
  }
  const result = validateRequest(decoded, { ...(invalidUtf8 ? { invalidUtf8 } : {}), prior });
  const prepared: Prepared = {
    request: result.request,
    accepted: result.accepted,
    rejected: result.rejected,
    byReason: [...result.byReason],
    flagged: result.flagged,
    flagsByReason: [...result.flagsByReason],
    samples: [...result.samples.values()],
    errorMessage: rejectionMessage(result),
    tenantOverrides: result.accepted > 0 ? stampTenant(result.request, tenant) : 0,
  };
  if (received) {
    const modified = result.modified;
    prepared.encodedSpan = (span) => (modified.has(span) ? undefined : received(span));
  }
  return prepared;
}

/**
 * `prepare`, then one Kafka-ready message per trace. A protobuf body whose spans are all valid takes the fast path
 * (collector/fast/: same result, no span decoded; a span to reject or flag takes the general path); any other body the general one.
 */
export function prepareMessages(body: Buffer, format: BodyFormat, tenant: string): PreparedMessages {
  const fast = format === 'protobuf' ? prepareProtobufFast(body, tenant) : undefined;
  if (typeof fast === 'object') return fast;
  const { request, encodedSpan, ...summary } = prepare(body, format, tenant);
  const messages = summary.accepted > 0 ? splitByTrace(request, encodedSpan) : [];
  return fast === undefined ? { ...summary, messages } : { ...summary, fastPathDecline: fast, messages };
}
