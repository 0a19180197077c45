/**
 * Agent sessions written AS SPANS: a script of reads and mutations becomes OTel SDK spans carrying the contract
 * attributes (one trace per session: an `invoke_agent` root and one `execute_tool` child per step), ready for
 * testkit/ingest.ts. Used by the alerts integration tests and bench/detector-evaluation.ts.
 */
import { context, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import {
  Attr,
  EXECUTE_TOOL,
  GenAi,
  type GuardDecision,
  type MutationBasis,
  OtelResource,
  type ReasonCode,
  type TraversalBreak,
  toolSpanName,
  type WarningCode,
  WarningEvent,
} from '../contract/index.ts';

export interface WarningDetail {
  code: WarningCode;
  source: string;
  message?: string;
}

export interface ReadStep {
  effect: 'read';
  /** Names the step so a test can find its span id. */
  label?: string;
  tool: string;
  resource?: string;
  /** undefined: the tool said nothing about completeness. */
  complete?: boolean;
  reasons?: ReasonCode[];
  items?: number;
  snapshot?: string;
  callId?: string;
  warnings?: WarningDetail[];
  /** A page of a cursor traversal (semconv 1.5.0): the first page's call id, its position, a break seen there. */
  traversal?: { id: string; page?: number; break?: TraversalBreak };
  /** Seconds after the session start. */
  at: number;
}

export interface MutationStep {
  effect: 'mutation';
  label?: string;
  tool: string;
  resource?: string;
  basis: MutationBasis;
  targets?: number;
  evidenceSnapshots?: string[];
  evidenceCallIds?: string[];
  /** undefined: no guard ran. */
  guard?: GuardDecision;
  callId?: string;
  at: number;
}

export type Step = ReadStep | MutationStep;

/**
 * A first page (incomplete), then the whole list (complete, snapshot `snap-2`), then a mutation that names the
 * complete read as its evidence: judged on the first page alone it is a finding; with the complete read, it is not.
 * Steps labelled `page1`, `all`, `disable`.
 */
export function pagedThenCompleteThenMutation(): Step[] {
  return [
    {
      effect: 'read',
      label: 'page1',
      tool: 'list_accounts',
      resource: 'accounts',
      complete: false,
      reasons: ['MORE_PAGES_AVAILABLE'],
      snapshot: 'snap-1',
      at: 0,
    },
    {
      effect: 'read',
      label: 'all',
      tool: 'list_accounts',
      resource: 'accounts',
      complete: true,
      snapshot: 'snap-2',
      at: 10,
    },
    {
      effect: 'mutation',
      label: 'disable',
      tool: 'disable_accounts',
      resource: 'accounts',
      basis: 'presence',
      evidenceSnapshots: ['snap-2'],
      at: 20,
    },
  ];
}

export interface SessionScript {
  session: string;
  agent: string;
  start: Date;
  steps: Step[];
}

export interface SpanIds {
  traceId: string;
  spanId: string;
}

export interface BuiltSessions {
  spans: ReadableSpan[];
  /** `${session}/${label}` -> the step's span. */
  ids: Map<string, SpanIds>;
}

export function buildSessionSpans(sessions: readonly SessionScript[], serviceName = 'agent-runtime'): BuiltSessions {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [OtelResource.SERVICE_NAME]: serviceName }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('tooltrail-alerts-corpus', '1.0.0');
  const ids = new Map<string, SpanIds>();

  for (const s of sessions) {
    const t0 = s.start.getTime();
    const last = Math.max(0, ...s.steps.map((st) => st.at));
    const root = tracer.startSpan(`invoke_agent ${s.agent}`, {
      startTime: new Date(t0),
      attributes: { [GenAi.CONVERSATION_ID]: s.session, [GenAi.AGENT_NAME]: s.agent },
    });
    const parent = trace.setSpan(context.active(), root);
    s.steps.forEach((step, i) => {
      const startTime = new Date(t0 + step.at * 1000);
      const attributes: Record<string, string | number | boolean | string[]> = {
        [GenAi.OPERATION_NAME]: EXECUTE_TOOL,
        [GenAi.TOOL_NAME]: step.tool,
        [GenAi.TOOL_CALL_ID]: step.callId ?? `${s.session}-call-${i + 1}`,
        [GenAi.CONVERSATION_ID]: s.session,
        [GenAi.AGENT_NAME]: s.agent,
        [Attr.EFFECT]: step.effect,
        [Attr.SESSION_SEQUENCE]: i + 1,
      };
      if (step.resource !== undefined) attributes[Attr.SCOPE_RESOURCE] = step.resource;
      if (step.effect === 'read') {
        if (step.complete !== undefined) attributes[Attr.RESULT_COMPLETE] = step.complete;
        attributes[Attr.RESULT_STATUS] = step.complete === false ? 'partial' : 'complete';
        if (step.reasons?.length) attributes[Attr.RESULT_REASONS] = step.reasons;
        if (step.items !== undefined) attributes[Attr.RESULT_ITEM_COUNT] = step.items;
        if (step.snapshot !== undefined) attributes[Attr.SCOPE_SNAPSHOT] = step.snapshot;
        if (step.warnings?.length) attributes[Attr.WARNINGS] = step.warnings.map((w) => w.code);
        if (step.traversal) {
          attributes[Attr.TRAVERSAL_ID] = step.traversal.id;
          if (step.traversal.page !== undefined) attributes[Attr.TRAVERSAL_PAGE] = step.traversal.page;
          if (step.traversal.break !== undefined) attributes[Attr.TRAVERSAL_BREAK] = step.traversal.break;
        }
      } else {
        attributes[Attr.MUTATION_BASIS] = step.basis;
        if (step.targets !== undefined) attributes[Attr.MUTATION_TARGET_COUNT] = step.targets;
        if (step.evidenceSnapshots?.length) attributes[Attr.MUTATION_EVIDENCE_SNAPSHOTS] = step.evidenceSnapshots;
        if (step.evidenceCallIds?.length) attributes[Attr.MUTATION_EVIDENCE_CALL_IDS] = step.evidenceCallIds;
        if (step.guard !== undefined) attributes[Attr.GUARD_DECISION] = step.guard;
      }
      const span = tracer.startSpan(toolSpanName(step.tool), { startTime, attributes }, parent);
      if (step.effect === 'read') {
        for (const w of step.warnings ?? []) {
          span.addEvent(
            WarningEvent.NAME,
            {
              [WarningEvent.CODE]: w.code,
              [WarningEvent.SOURCE]: w.source,
              [WarningEvent.MESSAGE]: w.message ?? `${w.code} on ${w.source}`,
            },
            startTime,
          );
        }
      }
      span.end(new Date(startTime.getTime() + 200));
      if (step.label) ids.set(`${s.session}/${step.label}`, span.spanContext());
    });
    root.end(new Date(t0 + last * 1000 + 500));
  }
  return { spans: exporter.getFinishedSpans(), ids };
}

/** The span id recorded for a labelled step; throws when the label is unknown (a typo in a test). */
export function spanOf(built: BuiltSessions, session: string, label: string): SpanIds {
  const id = built.ids.get(`${session}/${label}`);
  if (!id) throw new Error(`no step labelled ${label} in session ${session}`);
  return id;
}
