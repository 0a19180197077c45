/**
 * Per-call cost of a wrapped read tool, against the same call with a hand-made OTel span and with no tracing.
 * Real SDK pipeline: TracerProvider + BatchSpanProcessor + an exporter that drops everything.
 * Variants run interleaved, round after round; each figure is the median over rounds of the mean per-call time
 * within a round, as wall time and as this process's CPU time (less disturbed by other processes on a shared
 * machine); ratios are per round, then the median. Run: node --import tsx bench/instrumentation-overhead.ts [rounds] [callsPerRound]
 */
import type { Tracer } from '@opentelemetry/api';
import { SpanKind } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Attr, EXECUTE_TOOL, GenAi, SEMCONV_VERSION, toolSpanName, WarningEvent } from '../contract/index.ts';
import { createTooltrail, partialResult, warning } from '../instrumentation/index.ts';
import { type BenchFigure, printBenchReport, spread } from './support/report.ts';

const ROUNDS = Number(process.argv[2] ?? 40);
const CALLS = Number(process.argv[3] ?? 2000);

class DropExporter implements SpanExporter {
  export(_spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    done({ code: ExportResultCode.SUCCESS });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const provider = new TracerProvider({
  spanProcessors: [
    new BatchSpanProcessor({
      exporter: new DropExporter(),
      maxQueueSize: 1_000_000,
      maxExportBatchSize: 512,
      scheduledDelayMillis: 50,
    }),
  ],
});
const tracer: Tracer = provider.getTracer('bench');

// A typical list tool answer: ten items, one reason, a cursor, a scope and a warning.
const RESULT = partialResult({
  items: Array.from({ length: 10 }, (_, i) => ({ id: `svc-${i}`, owner: null })),
  reasons: [{ code: 'MORE_PAGES_AVAILABLE' }],
  continuation: { kind: 'next_cursor', cursor: 'c-2' },
  scope: { resource: 'service_accounts', visibility: 'readable by this credential', snapshot: 'snap-1' },
  warnings: [warning('STALE_INDEX', 'accounts-index', 'lags by 5 minutes')],
});
const tool = async (_args: { team: string }) => RESULT;
const ARGS = { team: 'infra' };

const tt = createTooltrail({ tracerProvider: provider });
const session = tt.session({ conversationId: 'bench', agentName: 'bench-agent' });
const wrapped = tt.readTool('list_service_accounts', tool);

let seq = 0;
const variants: Record<string, () => Promise<unknown>> = {
  'no tracing': () => tool(ARGS),
  'bare span (name only)': () =>
    tracer.startActiveSpan(toolSpanName('list_service_accounts'), async (span) => {
      try {
        return await tool(ARGS);
      } finally {
        span.end();
      }
    }),
  'hand-made span, same attributes': () => {
    const callId = globalThis.crypto.randomUUID();
    return tracer.startActiveSpan(
      toolSpanName('list_service_accounts'),
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [GenAi.OPERATION_NAME]: EXECUTE_TOOL,
          [GenAi.TOOL_NAME]: 'list_service_accounts',
          [GenAi.TOOL_CALL_ID]: callId,
          [GenAi.CONVERSATION_ID]: 'bench',
          [GenAi.AGENT_NAME]: 'bench-agent',
          [Attr.EFFECT]: 'read',
          [Attr.SESSION_SEQUENCE]: ++seq,
          [Attr.SEMCONV_VERSION]: SEMCONV_VERSION,
        },
      },
      async (span) => {
        try {
          const r = await tool(ARGS);
          span.setAttributes({
            [Attr.RESULT_STATUS]: r.status,
            [Attr.RESULT_COMPLETE]: r.completeness.complete,
            [Attr.RESULT_REASONS]: r.completeness.reasons.map((x) => x.code),
            [Attr.RESULT_CONTINUATION]: r.completeness.continuation.kind,
            [Attr.RESULT_ITEM_COUNT]: r.items?.length ?? 0,
            [Attr.SCOPE_RESOURCE]: r.scope?.resource ?? '',
            [Attr.SCOPE_VISIBILITY]: r.scope?.visibility ?? '',
            [Attr.SCOPE_SNAPSHOT]: r.scope?.snapshot ?? '',
            [Attr.WARNINGS]: r.warnings.map((w) => w.code),
            // A first page that points to a next one is page 1 of a cursor traversal (semconv 1.5.0).
            [Attr.TRAVERSAL_ID]: callId,
            [Attr.TRAVERSAL_PAGE]: 1,
          });
          for (const w of r.warnings) {
            span.addEvent(WarningEvent.NAME, {
              [WarningEvent.CODE]: w.code,
              [WarningEvent.MESSAGE]: w.message,
              [WarningEvent.SOURCE]: w.source,
            });
          }
          return r;
        } finally {
          span.end();
        }
      },
    );
  },
  'tooltrail readTool': () => wrapped(session, ARGS),
};

/** Mean per-call wall time and CPU time (this process, all its threads: GC helpers included) over one batch. */
async function sample(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i += 1) await fn();
  const wall = Number(process.hrtime.bigint() - start) / CALLS;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: ((cpu.user + cpu.system) * 1000) / CALLS };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

const names = Object.keys(variants);
const wall = new Map<string, number[]>(names.map((n) => [n, []]));
const cpu = new Map<string, number[]>(names.map((n) => [n, []]));
for (let round = -3; round < ROUNDS; round += 1) {
  // Rotate the order so that no variant always runs first (or right after a flush).
  const order = names.map((_, i) => names[(i + Math.max(round, 0)) % names.length] ?? '');
  for (const name of order) {
    const s = await sample(variants[name] ?? (async () => {}));
    if (round >= 0) {
      wall.get(name)?.push(s.wall);
      cpu.get(name)?.push(s.cpu);
    }
    await provider.forceFlush();
  }
}
await provider.shutdown();

// Ratios are taken round by round (both variants measured under the same machine load), then the median.
const ratio = (m: Map<string, number[]>, a: string, b: string) =>
  median((m.get(a) ?? []).map((x, i) => x / (m.get(b)?.[i] ?? Number.NaN)));
const TT = 'tooltrail readTool';
const HAND = 'hand-made span, same attributes';
const BARE = 'bare span (name only)';
console.log(`instrumentation overhead: ${ROUNDS} rounds x ${CALLS} calls, node ${process.version}`);
console.log(`  ${'variant'.padEnd(34)} ${'wall'.padStart(7)}    ${'cpu'.padStart(7)}  (ns/call, medians)`);
for (const n of names) {
  const w = median(wall.get(n) ?? []).toFixed(0);
  const c = median(cpu.get(n) ?? []).toFixed(0);
  console.log(`  ${n.padEnd(34)} ${w.padStart(7)}    ${c.padStart(7)}`);
}
console.log(
  `  ratio tooltrail / hand-made span with the same attributes: wall ${ratio(wall, TT, HAND).toFixed(2)}x, cpu ${ratio(cpu, TT, HAND).toFixed(2)}x (target <= 1.3x)`,
);
console.log(
  `  ratio tooltrail / bare span (name only):                   wall ${ratio(wall, TT, BARE).toFixed(2)}x, cpu ${ratio(cpu, TT, BARE).toFixed(2)}x`,
);
// On a shared machine the fastest round is the least disturbed one: printed as a cross-check, not as the result.
const fastest = (n: string) => Math.min(...(wall.get(n) ?? []));
console.log(
  `  fastest rounds (wall): hand-made ${fastest(HAND).toFixed(0)} ns, tooltrail ${fastest(TT).toFixed(0)} ns, ratio ${(fastest(TT) / fastest(HAND)).toFixed(2)}x`,
);

// The ratios are the per-round medians printed above (not median / median), so the table and these lines agree.
const figure = (name: string, m: Map<string, number[]>, base: string): BenchFigure => ({
  name,
  ...spread(m.get(TT) ?? []),
  unit: 'ns/call',
  baseline: { name: base, value: median(m.get(base) ?? []) },
  ratio: ratio(m, TT, base),
  ...(base === HAND ? { target: '≤ 1.3x hand-made span', met: ratio(m, TT, base) <= 1.3 } : {}),
});
printBenchReport({
  bench: 'instrumentation-overhead',
  figures: [
    figure('readTool wall', wall, HAND),
    figure('readTool CPU', cpu, HAND),
    figure('readTool wall vs bare span', wall, BARE),
  ],
});
