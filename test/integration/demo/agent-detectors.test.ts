/**
 * The demo's premise, against the real pipeline pieces: the agent's spans go through the real ingest path (OTLP
 * protobuf -> decode -> flatten -> ClickHouse) and the real detector SQL judges them. The unguarded naive run is
 * caught (every mutation), the guarded one is still reported (refused mutations after incomplete reads), the
 * careful run is not (the detectors are not noisy).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { defaultAlertsConfig } from '../../../alerts/config.ts';
import { detect } from '../../../alerts/findings/detect.ts';
import type { Finding } from '../../../alerts/findings/finding.ts';
import { GenAi } from '../../../contract/index.ts';
import type { AgentRunSummary } from '../../../demo/agent/index.ts';
import { runCarefulCleanupAgent, runCleanupAgent } from '../../../demo/agent/index.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { memoryTracing } from '../../unit/demo/fixtures/tracing.ts';

const tracing = memoryTracing();
const tenant = uniqueName('demo');
const runs: Record<'naiveOff' | 'naiveOn' | 'careful', AgentRunSummary | undefined> = {
  naiveOff: undefined,
  naiveOn: undefined,
  careful: undefined,
};
let db: TestDatabase;
let findings: Finding[];
/** gen_ai.tool.call.id -> span id: findings name the mutation's span. */
const spanIdOf = new Map<string, string>();

before(async () => {
  db = await freshDatabase('tt_demo_agent');
  const session = (name: string) => uniqueName(name);
  runs.naiveOff = await runCleanupAgent({ tooltrail: tracing.tooltrail(), guard: 'off', sessionId: session('off') });
  runs.naiveOn = await runCleanupAgent({ tooltrail: tracing.tooltrail(), guard: 'on', sessionId: session('on') });
  runs.careful = await runCarefulCleanupAgent({
    tooltrail: tracing.tooltrail(),
    guard: 'on',
    sessionId: session('ok'),
  });
  const spans = [];
  for (const run of Object.values(runs)) if (run) spans.push(...(await tracing.sessionSpans(run.sessionId)));
  for (const s of spans) spanIdOf.set(String(s.attributes[GenAi.TOOL_CALL_ID]), s.spanContext().spanId);
  await ingestSpans(db, spans, tenant);
  const now = new Date(Date.now() + 60_000);
  ({ findings } = await detect({
    ch: db.ch,
    database: db.database,
    config: { ...defaultAlertsConfig(), tenant },
    now,
    since: new Date(now.getTime() - 3_600_000),
  }));
});
after(async () => {
  await tracing.shutdown();
  await db?.drop();
});

/** The session's mutation findings, by the mutation's call id. */
function mutationFindings(run: AgentRunSummary | undefined): Map<string, Finding> {
  assert.ok(run);
  const byCall = new Map<string, Finding>();
  for (const c of run.calls) {
    const f = findings.find((x) => x.session === run.sessionId && x.mutation_span_id === spanIdOf.get(c.callId));
    if (f) byCall.set(c.callId, f);
  }
  return byCall;
}

test('the detectors catch every mutation of the unguarded naive run, the absence-based ones as critical', () => {
  const run = runs.naiveOff;
  const found = mutationFindings(run);
  for (const c of run?.calls.filter((x) => x.mutation) ?? []) {
    const f = found.get(c.callId);
    assert.ok(f, `${c.tool} was caught`);
    assert.equal(f.kind, 'mutation_after_incomplete_read');
    assert.equal(f.guard_decision, null, 'no guard ran');
    if (c.mutation?.basis === 'absence') assert.equal(f.severity, 'critical', c.tool);
  }
  const mark = run?.calls.find((c) => c.tool === 'mark_control_compliant');
  assert.ok(found.get(mark?.callId ?? '')?.reasons.includes('MORE_PAGES_AVAILABLE'));
});

test('the detectors still report the guarded run, the guard decision recorded', () => {
  const found = mutationFindings(runs.naiveOn);
  assert.equal(found.size, 3);
  for (const f of found.values()) assert.equal(f.guard_decision, 'refused');
});

test('the detectors find nothing in the careful run', () => {
  assert.equal(mutationFindings(runs.careful).size, 0);
});
