/**
 * Dead letters: what the ingest cannot store goes to the dead-letter topic with the reason, before the batch's
 * offsets are committed (at-least-once: a replayed batch dead-letters again; dedupe on the key). One letter per
 * message and reason, so that every letter has exactly one reason to list, count, fix and replay by.
 */
import type { BatchMessage, OutgoingMessage } from '../platform/kafka/index.ts';
import { type ExportTraceServiceRequest, encodeExportTraceServiceRequest } from '../platform/otlp/index.ts';
import { REJECT_REASONS, type RejectedSpan, type RejectReason, selectSpans } from './flatten.ts';

export const DLQ_HEADERS = {
  REASON: 'tooltrail-dlq-reason',
  ERROR: 'tooltrail-dlq-error',
  SOURCE_TOPIC: 'tooltrail-source-topic',
  SOURCE_PARTITION: 'tooltrail-source-partition',
  SOURCE_OFFSET: 'tooltrail-source-offset',
  /** On a letter of a replayed message: the letter its spans were first dead-lettered in (`topic:partition:offset`). */
  REPLAY_OF: 'tooltrail-dlq-replay-of',
} as const;

/** On a message `tooltrail dlq replay` re-published: the letter its spans were first dead-lettered in. */
export const REPLAY_HEADER = 'tooltrail-replay-of';

export const DEAD_LETTER_REASONS = ['decode_error', ...REJECT_REASONS] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

/** What each reason means and what fixes it, for the log line and `tooltrail dlq`. */
export const DEAD_LETTER_CAUSES: Record<DeadLetterReason, string> = {
  decode_error: 'not an OTLP protobuf ExportTraceServiceRequest (check the producer encoding: otlp_proto)',
  missing_tenant:
    'spans whose resource has no tooltrail.tenant and no default tenant is set (set --default-tenant or TOOLTRAIL_INGEST_DEFAULT_TENANT, then replay)',
  invalid_tenant:
    'a resource tooltrail.tenant outside the tenant rule (1-64 letters, digits, dots, dashes or underscores)',
  invalid_trace_id: 'spans with a missing or all-zero trace id',
  invalid_span_id: 'spans with a missing or all-zero span id',
};

export function isDeadLetterReason(value: string): value is DeadLetterReason {
  return (DEAD_LETTER_REASONS as readonly string[]).includes(value);
}

function headerText(v: Buffer | string | undefined): string | undefined {
  return v === undefined ? undefined : String(v);
}

function headers(m: BatchMessage, reason: DeadLetterReason, error: string): Record<string, string> {
  const replayOf = headerText(m.headers[REPLAY_HEADER]);
  return {
    [DLQ_HEADERS.REASON]: reason,
    // Header values are small by convention; the full error is rarely longer, but never unbounded.
    [DLQ_HEADERS.ERROR]: `${error}${replayOf ? ` (again, replayed from ${replayOf})` : ''}`.slice(0, 1000),
    [DLQ_HEADERS.SOURCE_TOPIC]: m.topic,
    [DLQ_HEADERS.SOURCE_PARTITION]: String(m.partition),
    [DLQ_HEADERS.SOURCE_OFFSET]: m.offset,
    ...(replayOf ? { [DLQ_HEADERS.REPLAY_OF]: replayOf.slice(0, 300) } : {}),
  };
}

const keyOf = (m: BatchMessage) => `${m.topic}:${m.partition}:${m.offset}`;

/** The original bytes of a message that is not an ExportTraceServiceRequest. */
export function undecodableLetter(m: BatchMessage, error: string): OutgoingMessage {
  return { key: keyOf(m), value: m.value ?? Buffer.alloc(0), headers: headers(m, 'decode_error', error) };
}

/**
 * For each reason among `rejected`, a request of only the spans rejected for it (with their resource and scope),
 * the reason in the header.
 */
export function rejectedSpansLetters(
  m: BatchMessage,
  request: ExportTraceServiceRequest,
  rejected: readonly RejectedSpan[],
): OutgoingMessage[] {
  const byReason = new Map<RejectReason, RejectedSpan[]>();
  for (const r of rejected) {
    const list = byReason.get(r.reason) ?? [];
    byReason.set(r.reason, list);
    list.push(r);
  }
  return [...byReason].map(([reason, spans]) => ({
    key: keyOf(m),
    value: Buffer.from(encodeExportTraceServiceRequest(selectSpans(request, spans))),
    headers: headers(m, reason, `${reason}: ${spans.length} span(s), ${DEAD_LETTER_CAUSES[reason]}`),
  }));
}

/** The reason header of an outgoing letter. */
export function reasonOf(letter: OutgoingMessage): string {
  const r = letter.headers?.[DLQ_HEADERS.REASON];
  return r === undefined ? 'unknown' : String(r);
}
