/** How a tool call's contract becomes span attributes and events. The attribute names are the pipeline's contract. */
import type { Attributes, Span } from '@opentelemetry/api';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ToolResult, Warning } from '../contract/index.ts';
import { Attr, OtelAttr, WarningEvent } from '../contract/index.ts';
import type { TraversalState } from './traversal.ts';

/** The result part of a tool span: status, completeness, reasons (codes), continuation, scope, warnings (codes). */
export function resultAttributes(result: ToolResult): Attributes {
  const attrs: Attributes = {
    [Attr.RESULT_STATUS]: result.status,
    [Attr.RESULT_COMPLETE]: result.completeness.complete,
    [Attr.RESULT_REASONS]: uniqueCodes(result.completeness.reasons),
    [Attr.RESULT_CONTINUATION]: result.completeness.continuation.kind,
    [Attr.WARNINGS]: uniqueCodes(result.warnings),
  };
  if (result.items) attrs[Attr.RESULT_ITEM_COUNT] = result.items.length;
  if (result.scope) {
    attrs[Attr.SCOPE_RESOURCE] = result.scope.resource;
    if (result.scope.visibility !== undefined) attrs[Attr.SCOPE_VISIBILITY] = result.scope.visibility;
    if (result.scope.snapshot !== undefined) attrs[Attr.SCOPE_SNAPSHOT] = result.scope.snapshot;
  }
  return attrs;
}

/** A page of a cursor traversal: which traversal (its first page's call id), its position, and a break seen here. */
export function recordTraversal(span: Span, traversal: TraversalState): void {
  span.setAttribute(Attr.TRAVERSAL_ID, traversal.id);
  if (traversal.page !== undefined) span.setAttribute(Attr.TRAVERSAL_PAGE, traversal.page);
  if (traversal.break !== undefined) span.setAttribute(Attr.TRAVERSAL_BREAK, traversal.break);
}

/** One `tooltrail.warning` event per warning, with its code, message and source. */
export function recordWarnings(span: Span, warnings: readonly Warning[]): void {
  for (const w of warnings) {
    span.addEvent(WarningEvent.NAME, {
      [WarningEvent.CODE]: w.code,
      [WarningEvent.MESSAGE]: w.message,
      [WarningEvent.SOURCE]: w.source,
    });
  }
}

/** A result of status `error` (the tool answered, with no usable data): span error, `error.type`, no exception. */
export function recordErrorResult(span: Span, type: string, message: string): void {
  span.setAttribute(OtelAttr.ERROR_TYPE, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** A thrown error, per OpenTelemetry's rules: exception event, error status, `error.type`. */
export function recordThrown(span: Span, err: unknown): { type: string; message: string } {
  const type = errorType(err);
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Error) span.recordException(err);
  else span.recordException({ name: type, message });
  recordErrorResult(span, type, message);
  return { type, message };
}

function errorType(err: unknown): string {
  if (err instanceof Error) {
    const ctor = err.constructor?.name;
    return ctor && ctor !== 'Object' ? ctor : err.name || 'Error';
  }
  return '_OTHER';
}

function uniqueCodes(list: readonly { code: string }[]): string[] {
  const out: string[] = [];
  for (const x of list) if (!out.includes(x.code)) out.push(x.code);
  return out;
}
