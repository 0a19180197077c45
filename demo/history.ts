/**
 * Months of warning history for the demo, emitted as plain OpenTelemetry spans with past timestamps — what any
 * runtime in any language would send with the `tooltrail.*` attributes. Three warnings tell the lifecycle story:
 * one seen every day with no owner (escalate), one owned but never fixed (remind the owner), one that stopped
 * weeks ago (propose retirement).
 */
import type { Tracer } from '@opentelemetry/api';
import { SpanKind } from '@opentelemetry/api';
import type { WarningCode } from '../contract/index.ts';
import { Attr, EXECUTE_TOOL, GenAi, toolSpanName, WarningEvent } from '../contract/index.ts';

const DAY_MS = 86_400_000;

export interface HistoricalWarning {
  code: WarningCode;
  source: string;
  message: string;
  tool: string;
  /** Days ago the warning first and last appeared (inclusive). */
  fromDaysAgo: number;
  toDaysAgo: number;
}

/** Kept under ClickHouse's 100-partitions-per-insert default: one daily partition per day of history. */
export const HISTORY_DAYS = 75;

export const DEMO_WARNING_HISTORY: readonly HistoricalWarning[] = [
  {
    code: 'STALE_INDEX',
    source: 'inventory-search-index',
    message: 'search index lags the inventory',
    tool: 'search_service_accounts',
    fromDaysAgo: HISTORY_DAYS,
    toDaysAgo: 1,
  },
  {
    code: 'PARTIAL_FIELD_SET',
    source: 'inventory-api.v1.owner_email',
    message: 'owner_email omitted for accounts created before 2024',
    tool: 'list_service_accounts',
    fromDaysAgo: HISTORY_DAYS,
    toDaysAgo: 1,
  },
  {
    code: 'DEPRECATED_FIELD',
    source: 'inventory-api.v1.legacy_tags',
    message: 'legacy_tags is deprecated; use labels',
    tool: 'list_service_accounts',
    fromDaysAgo: HISTORY_DAYS,
    toDaysAgo: 40,
  },
];

/** One read span per warning per day in its range, each carrying the warning code and its event. */
export function emitWarningHistory(tracer: Tracer, now: Date, agentName: string): number {
  let spans = 0;
  for (const w of DEMO_WARNING_HISTORY) {
    for (let d = w.fromDaysAgo; d >= w.toDaysAgo; d--) {
      const start = new Date(now.getTime() - d * DAY_MS);
      const span = tracer.startSpan(toolSpanName(w.tool), {
        kind: SpanKind.INTERNAL,
        startTime: start,
        attributes: {
          [GenAi.OPERATION_NAME]: EXECUTE_TOOL,
          [GenAi.TOOL_NAME]: w.tool,
          [GenAi.TOOL_CALL_ID]: `history-${w.code}-${d}`,
          [GenAi.CONVERSATION_ID]: `history-${w.code.toLowerCase()}-day-${d}`,
          [GenAi.AGENT_NAME]: agentName,
          [Attr.EFFECT]: 'read',
          [Attr.RESULT_STATUS]: 'complete',
          [Attr.RESULT_COMPLETE]: true,
          [Attr.RESULT_ITEM_COUNT]: 12,
          [Attr.RESULT_CONTINUATION]: 'none',
          [Attr.SCOPE_RESOURCE]: 'service_accounts',
          [Attr.WARNINGS]: [w.code],
          [Attr.SESSION_SEQUENCE]: 1,
        },
      });
      span.addEvent(
        WarningEvent.NAME,
        { [WarningEvent.CODE]: w.code, [WarningEvent.MESSAGE]: w.message, [WarningEvent.SOURCE]: w.source },
        start,
      );
      span.end(new Date(start.getTime() + 40));
      spans++;
    }
  }
  return spans;
}
