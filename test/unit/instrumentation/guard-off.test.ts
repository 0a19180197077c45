import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { Attr, GenAi, GuardUnenforcedEvent } from '../../../contract/index.ts';
import type { GuardMode } from '../../../instrumentation/index.ts';
import { completeResult, createTooltrail, partialResult } from '../../../instrumentation/index.ts';
import { memoryTracing } from './fixtures/otel.ts';

const tracing = memoryTracing();
after(() => tracing.shutdown());

const SCOPE = { resource: 'cloud_resources', visibility: 'readable by this credential', snapshot: 'inv-7' };

function setup(guard?: GuardMode) {
  const tt = createTooltrail({ tracerProvider: tracing.provider, ...(guard ? { guard } : {}) });
  const session = tt.session({ conversationId: `conv-guard-off-${guard ?? 'default'}-${Math.random()}` });
  const runs: string[][] = [];
  const archive = tt.mutationTool('archive_resources', (args: { ids: string[] }) => {
    runs.push(args.ids);
    return completeResult({ items: args.ids.map((id) => ({ id })), scope: { resource: 'cloud_resources' } });
  });
  const partialRead = tt.readTool('inventory', () =>
    partialResult({ items: [{ id: 'a' }], reasons: ['TIME_BUDGET_EXCEEDED'], scope: SCOPE }),
  );
  return { tt, session, archive, partialRead, runs };
}

async function spanOf(callId: string): Promise<ReadableSpan> {
  const span = (await tracing.spans()).find((s) => s.attributes[GenAi.TOOL_CALL_ID] === callId);
  assert.ok(span, `a span for ${callId}`);
  return span;
}

test('the guard is enforced unless switched off', () => {
  assert.equal(createTooltrail({ tracerProvider: tracing.provider }).config.guard, 'enforce');
});

test('a disabled guard lets the mutation run and records no decision', async () => {
  const { session, archive, partialRead, runs } = setup('off');
  const read = await partialRead(session, {});
  const out = await archive(
    session,
    { ids: ['a'] },
    { basis: 'absence', targets: ['a'], evidence: [read], resource: 'cloud_resources' },
  );
  assert.deepEqual(runs, [['a']], 'the mutation ran');
  assert.equal(out.decision, 'not_checked');
  assert.ok(out.decision === 'not_checked');
  assert.equal(out.complete, true);
  assert.deepEqual(out.findings, []);

  const span = await spanOf(out.callId);
  assert.equal(span.attributes[Attr.EFFECT], 'mutation');
  assert.equal(span.attributes[Attr.MUTATION_BASIS], 'absence');
  assert.equal(span.attributes[Attr.MUTATION_TARGET_COUNT], 1);
  assert.deepEqual(span.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS], [read.callId]);
  assert.deepEqual(span.attributes[Attr.MUTATION_EVIDENCE_SNAPSHOTS], ['inv-7']);
  assert.equal(span.attributes[Attr.SCOPE_RESOURCE], 'cloud_resources');
  assert.equal(span.attributes[Attr.RESULT_COMPLETE], true, "the mutation's own result is recorded");
  assert.equal(Attr.GUARD_DECISION in span.attributes, false, 'no guard acted, so no decision is claimed');
  assert.equal(session.decisions().allowed, 0, 'an unjudged mutation is not counted as allowed');
});

test('a disabled guard still says what it would have decided, as an event and in the outcome', async () => {
  const { session, archive, partialRead } = setup('off');
  const read = await partialRead(session, {});
  const out = await archive(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [read] });
  assert.ok(out.decision === 'not_checked');
  assert.equal(out.unenforced.decision, 'refused');
  assert.deepEqual(
    out.unenforced.findings.map((f) => [f.code, f.callId]),
    [['EVIDENCE_INCOMPLETE', read.callId]],
  );
  const events = (await spanOf(out.callId)).events.filter((e) => e.name === GuardUnenforcedEvent.NAME);
  assert.equal(events.length, 1);
  assert.deepEqual(events[0]?.attributes, {
    [GuardUnenforcedEvent.DECISION]: 'refused',
    [GuardUnenforcedEvent.FINDINGS]: ['EVIDENCE_INCOMPLETE'],
  });

  const full = setup('off');
  const complete = full.tt.readTool('inventory', () => completeResult({ items: [{ id: 'a' }], scope: SCOPE }));
  const ok = await full.archive(
    full.session,
    { ids: ['a'] },
    { basis: 'presence', targets: ['a'], evidence: [await complete(full.session, {})] },
  );
  assert.ok(ok.decision === 'not_checked');
  assert.equal(ok.unenforced.decision, 'allowed');
  const okEvent = (await spanOf(ok.callId)).events.find((e) => e.name === GuardUnenforcedEvent.NAME);
  assert.deepEqual(okEvent?.attributes?.[GuardUnenforcedEvent.FINDINGS], []);
});

test('an enforced guard records no unenforced event', async () => {
  const { session, archive, partialRead } = setup();
  const read = await partialRead(session, {});
  const out = await archive(session, { ids: ['a'] }, { basis: 'presence', targets: ['a'], evidence: [read] });
  assert.equal(out.decision, 'refused');
  const span = await spanOf(out.callId);
  assert.equal(span.attributes[Attr.GUARD_DECISION], 'refused');
  assert.deepEqual(span.events, []);
});

test('switching the guard off for one call leaves the next call guarded', async () => {
  const { session, archive, partialRead, runs } = setup();
  const read = await partialRead(session, {});
  const plan = { basis: 'presence' as const, targets: ['a'], evidence: [read] };
  const unguarded = await archive(session, { ids: ['a'] }, plan, { guard: 'off' });
  assert.equal(unguarded.decision, 'not_checked');
  const guarded = await archive(session, { ids: ['a'] }, plan);
  assert.equal(guarded.decision, 'refused');
  assert.deepEqual(runs, [['a']]);
  assert.equal((await spanOf(guarded.callId)).attributes[Attr.GUARD_DECISION], 'refused');
  assert.equal(Attr.GUARD_DECISION in (await spanOf(unguarded.callId)).attributes, false);
});

test('a call can enforce the guard when the configuration switched it off', async () => {
  const { session, archive, partialRead, runs } = setup('off');
  const read = await partialRead(session, {});
  const out = await archive(
    session,
    { ids: ['a'] },
    { basis: 'presence', targets: ['a'], evidence: [read] },
    { guard: 'enforce' },
  );
  assert.equal(out.decision, 'refused');
  assert.deepEqual(runs, []);
});

test('a mutation that ran unguarded is never evidence for another mutation', async () => {
  const { tt, session, archive, runs } = setup('off');
  const complete = tt.readTool('inventory', () => completeResult({ items: [{ id: 'a' }], scope: SCOPE }));
  const first = await archive(
    session,
    { ids: ['a'] },
    { basis: 'presence', targets: ['a'], evidence: [await complete(session, {})] },
  );
  const chained = await archive(
    session,
    { ids: ['a'] },
    { basis: 'presence', targets: ['a'], evidence: [first] },
    { guard: 'enforce' },
  );
  assert.equal(chained.decision, 'refused');
  assert.deepEqual(
    chained.findings.map((f) => f.code),
    ['EVIDENCE_NOT_FOUND'],
  );
  assert.equal(runs.length, 1);
});

test('an unguarded mutation without any plan runs and invents no basis or target count', async () => {
  const { tt, session } = setup('off');
  const runner = tt.runner;
  const tool = runner.bind({
    toolName: 'drop_table',
    interpret: () => ({ result: completeResult({}), recognized: 'contract' }),
  });
  const out = await runner.mutate(tool, session, {}, undefined, undefined, () => 'done');
  assert.ok(out.decision === 'not_checked');
  assert.deepEqual(
    out.unenforced.findings.map((f) => f.code),
    ['NO_PLAN'],
  );
  const span = await spanOf(out.callId);
  assert.equal(Attr.MUTATION_BASIS in span.attributes, false);
  assert.equal(Attr.MUTATION_TARGET_COUNT in span.attributes, false);
  assert.equal(Attr.GUARD_DECISION in span.attributes, false);
});

test('a guard mode other than enforce or off fails at createTooltrail, naming the key', () => {
  assert.throws(
    () => createTooltrail({ tracerProvider: tracing.provider, guard: 'disabled' as GuardMode }),
    /tooltrail\.guard/,
  );
});
