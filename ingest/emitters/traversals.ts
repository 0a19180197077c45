/**
 * Pages of cursor traversals among the reads other emitters recorded in one export request: a read of the same tool
 * in the same session whose arguments carry the cursor the previous page's result returned is that traversal's next
 * page, linked as the library links its own (`tooltrail.traversal.id` = the first page's call id, `.page`), so the
 * detectors judge the pages as one read and a careful agent that pages to the end is not flagged. A first page is
 * linked only once a later page continues it. Pages exported in another request are judged one by one, as before.
 */
import { CURSOR_ARGUMENT_NAMES, cursorText, type PolicyFile, toolPolicyOf, valueAt } from '../../contract/index.ts';
import { bytesToHex, type ExportTraceServiceRequest, int64ToBigInt, type Span } from '../../platform/otlp/index.ts';
import { continuationCursor, dotted } from './judge.ts';
import { readParts } from './parts.ts';
import { readRecorded } from './payload.ts';
import { recognizeEmitter } from './recognize.ts';
import type { AncestorSessions } from './session.ts';
import { ownSession } from './session.ts';

export interface PageLink {
  /** The first page's call id (its span id without one: the detectors' traversal key). */
  id: string;
  page: number;
}

interface Read {
  spanId: string;
  key: string;
  start: bigint;
  given: string | undefined;
  next: string | undefined;
}

const CURSOR_NAMES = new Set(CURSOR_ARGUMENT_NAMES);

/** span id (hex) -> its page link, for the emitter reads of `request` that are pages of a traversal. */
export function linkPages(
  request: ExportTraceServiceRequest,
  sessions: AncestorSessions,
  policy: PolicyFile | undefined,
): Map<string, PageLink> {
  const reads: Read[] = [];
  const ids = new Map<string, string>();
  for (const rs of request.resourceSpans ?? []) {
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? []) {
        const read = readOf(span, sessions, policy, ids);
        if (read) reads.push(read);
      }
    }
  }
  const links = new Map<string, PageLink>();
  if (reads.length < 2) return links;
  reads.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  // Per session and tool: the cursor a next page would carry -> the page that returned it.
  let open = new Map<string, { first: Read; page: number }>();
  let key = '';
  for (const r of reads) {
    if (r.key !== key) {
      open = new Map();
      key = r.key;
    }
    const before = r.given === undefined ? undefined : open.get(r.given);
    if (before !== undefined) {
      const id = ids.get(before.first.spanId) ?? before.first.spanId;
      if (!links.has(before.first.spanId)) links.set(before.first.spanId, { id, page: 1 });
      links.set(r.spanId, { id, page: before.page + 1 });
      if (r.next !== undefined) open.set(r.next, { first: before.first, page: before.page + 1 });
    } else if (r.given === undefined && r.next !== undefined) {
      open.set(r.next, { first: r, page: 1 });
    }
  }
  return links;
}

function readOf(
  span: Span,
  sessions: AncestorSessions,
  policy: PolicyFile | undefined,
  ids: Map<string, string>,
): Read | undefined {
  const shape = recognizeEmitter(span.attributes);
  if (shape === undefined) return undefined;
  const parts = readParts(span, shape);
  const toolPolicy = toolPolicyOf(policy, parts.toolName);
  if (parts.toolName === undefined || toolPolicy?.effect === 'mutation') return undefined;
  const spanId = bytesToHex(span.spanId);
  if (parts.callId !== undefined) ids.set(spanId, parts.callId);
  const session =
    ownSession(span.attributes)?.value ?? sessions.find(bytesToHex(span.parentSpanId)) ?? bytesToHex(span.traceId);
  const args = readRecorded(parts.argsText).value;
  const selector = toolPolicy?.cursor;
  const given =
    args === undefined
      ? undefined
      : selector !== undefined
        ? cursorText(valueAt(args, dotted(selector)))
        : namedCursor(args);
  return {
    spanId,
    key: `${session}\u0000${parts.toolName}`,
    start: int64ToBigInt(span.startTimeUnixNano, true),
    given,
    next: continuationCursor(parts.resultText, toolPolicy),
  };
}

function namedCursor(args: Record<string, unknown>): string | undefined {
  for (const name in args) {
    if (!CURSOR_NAMES.has(name)) continue;
    const t = cursorText(args[name]);
    if (t !== undefined) return t;
  }
  return undefined;
}
