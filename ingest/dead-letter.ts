/**
 * Dead letters: what the ingest cannot store goes to the dead-letter topic with the reason, before the batch's
 * offsets are committed (at-least-once: a replayed batch dead-letters again; dedupe on the key).
 */
import type { BatchMessage, OutgoingMessage } from '../platform/kafka/index.ts';
import { type ExportTraceServiceRequest, encodeExportTraceServiceRequest } from '../platform/otlp/index.ts';
import { type RejectedSpan, selectSpans } from './flatten.ts';

export const DLQ_HEADERS = {
  REASON: 'tooltrail-dlq-reason',
  ERROR: 'tooltrail-dlq-error',
  SOURCE_TOPIC: 'tooltrail-source-topic',
  SOURCE_PARTITION: 'tooltrail-source-partition',
  SOURCE_OFFSET: 'tooltrail-source-offset',
} as const;

export type DeadLetterReason = 'decode_error' | 'rejected_spans';

function headers(m: BatchMessage, reason: DeadLetterReason, error: string): Record<string, string> {
  return {
    [DLQ_HEADERS.REASON]: reason,
    // Header values are small by convention; the full error is rarely longer, but never unbounded.
    [DLQ_HEADERS.ERROR]: error.slice(0, 1000),
    [DLQ_HEADERS.SOURCE_TOPIC]: m.topic,
    [DLQ_HEADERS.SOURCE_PARTITION]: String(m.partition),
    [DLQ_HEADERS.SOURCE_OFFSET]: m.offset,
  };
}

const keyOf = (m: BatchMessage) => `${m.topic}:${m.partition}:${m.offset}`;

/** The original bytes of a message that is not an ExportTraceServiceRequest. */
export function undecodableLetter(m: BatchMessage, error: string): OutgoingMessage {
  return { key: keyOf(m), value: m.value ?? Buffer.alloc(0), headers: headers(m, 'decode_error', error) };
}

/** A request of only the rejected spans of `request` (with their resource and scope), reasons in the header. */
export function rejectedSpansLetter(
  m: BatchMessage,
  request: ExportTraceServiceRequest,
  rejected: readonly RejectedSpan[],
): OutgoingMessage {
  const counts = new Map<string, number>();
  for (const r of rejected) counts.set(r.reason, (counts.get(r.reason) ?? 0) + 1);
  const error = [...counts].map(([reason, n]) => `${reason}: ${n}`).join(', ');
  return {
    key: keyOf(m),
    value: Buffer.from(encodeExportTraceServiceRequest(selectSpans(request, rejected))),
    headers: headers(m, 'rejected_spans', error),
  };
}
