/**
 * The incident scenario the reconstruction tests replay: an agent cleaning up "unowned" service accounts. Spans are
 * emitted with a plain OpenTelemetry SDK and the contract's attribute constants (what any runtime can do), collected
 * by an InMemorySpanExporter, and stored through the real pipeline by the caller (testkit/ingest.ts).
 *
 *   #1 read  list_service_accounts  incomplete: MORE_PAGES_AVAILABLE -> next_cursor, 50 items, STALE_INDEX warning
 *   #2 read  list_owners            completeness unknown (said nothing), 0 items, snapshot snap-owners-2
 *   #3 read  search_tickets         incomplete: SOURCE_UNAVAILABLE, VISIBILITY_RESTRICTED, 0 items
 *   #4 mutation delete_service_accounts (absence, 3 targets, allowed) relied on call-1, call-404 (never stored),
 *      snapshot snap-owners-2
 *   #5 mutation disable_accounts (absence, refused) relied on call-3
 */
import { type Context, context, type Span, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Attr, EXECUTE_TOOL, GenAi, OtelResource, toolSpanName, WarningEvent } from '../../../contract/index.ts';

export interface Scenario {
  spans: ReadableSpan[];
  session: string;
  traceId: string;
  rootSpanId: string;
  /** Span id of each tool call, by sequence number. */
  callSpan: Record<number, string>;
  /** Milliseconds since epoch of the first call. */
  startMs: number;
}

type Attrs = Record<string, string | number | boolean | string[]>;

export function runScenario(
  session: string,
  startMs = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000,
): Scenario {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [OtelResource.SERVICE_NAME]: 'ops-agent' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('tooltrail-scenario', '1.0.0');
  const at = (s: number) => startMs + s * 1000;

  const root = tracer.startSpan('invoke_agent ops-bot', {
    startTime: at(0),
    attributes: { [GenAi.CONVERSATION_ID]: session },
  });
  const ctx: Context = trace.setSpan(context.active(), root);
  const callSpan: Record<number, string> = {};

  const tool = (seq: number, name: string, attrs: Attrs, warn?: { code: string; source: string; message: string }) => {
    const span: Span = tracer.startSpan(
      toolSpanName(name),
      {
        startTime: at(seq),
        attributes: {
          [GenAi.OPERATION_NAME]: EXECUTE_TOOL,
          [GenAi.TOOL_NAME]: name,
          [GenAi.TOOL_CALL_ID]: `call-${seq}`,
          [GenAi.CONVERSATION_ID]: session,
          [GenAi.AGENT_NAME]: 'ops-bot',
          [GenAi.AGENT_ID]: 'agent-7',
          [Attr.SESSION_SEQUENCE]: seq,
          ...attrs,
        },
      },
      ctx,
    );
    if (warn) {
      span.addEvent(
        WarningEvent.NAME,
        { [WarningEvent.CODE]: warn.code, [WarningEvent.SOURCE]: warn.source, [WarningEvent.MESSAGE]: warn.message },
        at(seq) + 100,
      );
    }
    span.end(at(seq) + 400);
    callSpan[seq] = span.spanContext().spanId;
  };

  tool(
    1,
    'list_service_accounts',
    {
      [Attr.EFFECT]: 'read',
      [Attr.RESULT_STATUS]: 'partial',
      [Attr.RESULT_COMPLETE]: false,
      [Attr.RESULT_REASONS]: ['MORE_PAGES_AVAILABLE'],
      [Attr.RESULT_ITEM_COUNT]: 50,
      [Attr.RESULT_CONTINUATION]: 'next_cursor',
      [Attr.SCOPE_RESOURCE]: 'service_accounts',
      [Attr.SCOPE_VISIBILITY]: 'readable by this credential',
      [Attr.SCOPE_SNAPSHOT]: 'snap-accounts-1',
      [Attr.WARNINGS]: ['STALE_INDEX'],
    },
    { code: 'STALE_INDEX', source: 'idx-accounts', message: 'index 2h behind' },
  );
  tool(2, 'list_owners', {
    [Attr.EFFECT]: 'read',
    [Attr.RESULT_ITEM_COUNT]: 0,
    [Attr.SCOPE_RESOURCE]: 'owners',
    [Attr.SCOPE_SNAPSHOT]: 'snap-owners-2',
  });
  tool(3, 'search_tickets', {
    [Attr.EFFECT]: 'read',
    [Attr.RESULT_STATUS]: 'partial',
    [Attr.RESULT_COMPLETE]: false,
    [Attr.RESULT_REASONS]: ['SOURCE_UNAVAILABLE', 'VISIBILITY_RESTRICTED'],
    [Attr.RESULT_ITEM_COUNT]: 0,
    [Attr.RESULT_CONTINUATION]: 'retry_after',
    [Attr.SCOPE_RESOURCE]: 'tickets',
    [Attr.SCOPE_VISIBILITY]: 'team-visible tickets',
  });
  tool(4, 'delete_service_accounts', {
    [Attr.EFFECT]: 'mutation',
    [Attr.RESULT_STATUS]: 'complete',
    [Attr.RESULT_COMPLETE]: true,
    [Attr.MUTATION_BASIS]: 'absence',
    [Attr.MUTATION_TARGET_COUNT]: 3,
    [Attr.MUTATION_EVIDENCE_CALL_IDS]: ['call-1', 'call-404'],
    [Attr.MUTATION_EVIDENCE_SNAPSHOTS]: ['snap-owners-2'],
    [Attr.GUARD_DECISION]: 'allowed',
  });
  tool(5, 'disable_accounts', {
    [Attr.EFFECT]: 'mutation',
    [Attr.MUTATION_BASIS]: 'absence',
    [Attr.MUTATION_TARGET_COUNT]: 2,
    [Attr.MUTATION_EVIDENCE_CALL_IDS]: ['call-3'],
    [Attr.GUARD_DECISION]: 'refused',
  });
  root.end(at(6));
  const spans = exporter.getFinishedSpans();
  void provider.shutdown();
  return {
    spans,
    session,
    traceId: root.spanContext().traceId,
    rootSpanId: root.spanContext().spanId,
    callSpan,
    startMs,
  };
}

/** The spans without the tool call of sequence `seq` (or the root span when `seq` is 0), as a lost span. */
export function withoutSpan(s: Scenario, seq: number): ReadableSpan[] {
  const drop = seq === 0 ? s.rootSpanId : s.callSpan[seq];
  return s.spans.filter((sp) => sp.spanContext().spanId !== drop);
}
