import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { reconstructSession, reconstructTrace } from '../../../reconstruct/reconstruct.ts';
import {
  type CallEntry,
  type Entry,
  type Reconstruction,
  ReconstructionSchema,
  reconstructionJsonSchema,
} from '../../../reconstruct/timeline.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { runScenario, withoutSpan } from './scenario.ts';

/** A compact view of a timeline: what the tests pin down exactly. */
function shape(entries: Entry[]) {
  return entries.map((e) =>
    e.kind === 'gap'
      ? { pos: e.position, gap: e.gap.type, ...(e.gap.type === 'missing_evidence' ? { ref: e.gap.ref } : {}) }
      : {
          pos: e.position,
          seq: e.sequence,
          tool: e.tool_name,
          effect: e.effect,
          completeness: e.completeness,
          reasons: e.reasons,
          guard: e.guard_decision,
          ...(e.mutation
            ? {
                evidence: e.mutation.evidence.map(
                  (l) => `${l.via}:${l.ref}->${l.found ? l.reads.map((r) => `#${r.position}`).join(',') : 'MISSING'}`,
                ),
                concerns: e.mutation.concerns.map((c) => c.code),
              }
            : {}),
        },
  );
}

const now = () => new Date('2026-03-01T12:00:00Z');

describe('reconstruction of a session stored through the real pipeline', () => {
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase('tt_recon');
  });
  after(async () => {
    await db?.drop();
  });

  it('reconstructs the scenario session to exactly the expected timeline and evidence links', async () => {
    const s = runScenario(uniqueName('sess'));
    await ingestSpans(db, s.spans, 'acme');
    const r = await reconstructSession(db.ch, db.schema, { session: s.session }, { now });
    assert.equal(r.sessions.length, 1);
    const t = r.sessions[0]!;
    assert.deepEqual(shape(t.entries), [
      {
        pos: 1,
        seq: 1,
        tool: 'list_service_accounts',
        effect: 'read',
        completeness: 'incomplete',
        reasons: ['MORE_PAGES_AVAILABLE'],
        guard: null,
      },
      { pos: 2, seq: 2, tool: 'list_owners', effect: 'read', completeness: 'unknown', reasons: [], guard: null },
      {
        pos: 3,
        seq: 3,
        tool: 'search_tickets',
        effect: 'read',
        completeness: 'incomplete',
        reasons: ['SOURCE_UNAVAILABLE', 'VISIBILITY_RESTRICTED'],
        guard: null,
      },
      { pos: 4, gap: 'missing_evidence', ref: 'call-404' },
      {
        pos: 5,
        seq: 4,
        tool: 'delete_service_accounts',
        effect: 'mutation',
        completeness: 'complete',
        reasons: [],
        guard: 'allowed',
        evidence: ['call_id:call-1->#1', 'call_id:call-404->MISSING', 'snapshot:snap-owners-2->#2'],
        concerns: ['EVIDENCE_NOT_STORED', 'EVIDENCE_INCOMPLETE', 'ACTED_ON_ABSENCE_WITH_INCOMPLETE_EVIDENCE'],
      },
      {
        pos: 6,
        seq: 5,
        tool: 'disable_accounts',
        effect: 'mutation',
        completeness: 'unknown',
        reasons: [],
        guard: 'refused',
        evidence: ['call_id:call-3->#3'],
        concerns: ['EVIDENCE_INCOMPLETE', 'ACTED_ON_ABSENCE_WITH_INCOMPLETE_EVIDENCE'],
      },
    ]);
    const first = t.entries[0] as CallEntry;
    assert.deepEqual(first.warnings, [{ code: 'STALE_INDEX', source: 'idx-accounts', message: 'index 2h behind' }]);
    assert.deepEqual(first.scope, {
      resource: 'service_accounts',
      visibility: 'readable by this credential',
      snapshot: 'snap-accounts-1',
    });
    assert.equal(first.continuation, 'next_cursor');
    assert.equal(first.item_count, 50);
    assert.equal(first.parent_name, 'invoke_agent ops-bot');
    assert.equal(first.time, new Date(s.startMs + 1000).toISOString().replace('.000Z', '.000000000Z'));
    assert.deepEqual(
      t.could_not_see.map((l) => l.split(':')[0]),
      [
        '#1 list_service_accounts (read)',
        '#2 list_owners (read)',
        '#3 search_tickets (read)',
        '#3 search_tickets (read)',
        '#4 gap',
      ],
    );
    assert.deepEqual(t.summary, {
      calls: 5,
      reads: 3,
      mutations: 2,
      incomplete_reads: 2,
      unknown_reads: 1,
      gaps: 1,
      mutations_with_concerns: 2,
      traversals: 0,
    });
    assert.deepEqual(t.trace_ids, [s.traceId]);
    assert.deepEqual(t.agents, [{ name: 'ops-bot', id: 'agent-7' }]);
  });

  it('emits JSON that validates against the published JSON Schema', async () => {
    const s = runScenario(uniqueName('sess'));
    await ingestSpans(db, s.spans, 'acme');
    const r = await reconstructSession(db.ch, db.schema, { session: s.session, tenant: 'acme' }, { now });
    const json: unknown = JSON.parse(JSON.stringify(r));
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(reconstructionJsonSchema());
    assert.equal(validate(json), true, JSON.stringify(validate.errors));
    ReconstructionSchema.parse(json);
    // The schema is not vacuous: a timeline entry without its kind is refused.
    const broken = JSON.parse(JSON.stringify(r)) as Reconstruction;
    delete (broken.sessions[0]!.entries[0] as Partial<CallEntry>).kind;
    assert.equal(validate(broken), false);
  });

  it('shows a dropped tool span as a sequence gap and as missing evidence of the mutation that relied on it', async () => {
    const s = runScenario(uniqueName('sess'));
    await ingestSpans(db, withoutSpan(s, 3), 'acme');
    const t = (await reconstructSession(db.ch, db.schema, { session: s.session, tenant: 'acme' }, { now }))
      .sessions[0]!;
    assert.deepEqual(
      t.entries.map((e) => (e.kind === 'gap' ? `gap:${e.gap.type}` : `call:${e.sequence}`)),
      ['call:1', 'call:2', 'gap:missing_sequence', 'gap:missing_evidence', 'call:4', 'gap:missing_evidence', 'call:5'],
    );
    const seqGap = t.entries[2]!;
    assert.ok(seqGap.kind === 'gap' && seqGap.gap.type === 'missing_sequence');
    assert.deepEqual(seqGap.gap, { type: 'missing_sequence', from_sequence: 3, to_sequence: 3, count: 1 });
    const lastGap = t.entries[5]!;
    assert.ok(lastGap.kind === 'gap' && lastGap.gap.type === 'missing_evidence' && lastGap.gap.ref === 'call-3');
    assert.equal(t.reconstruction.complete, false);
    assert.ok(t.could_not_see.some((l) => /sequence number 3 never arrived/.test(l)));
  });

  it('shows a parent span that never arrived as a gap', async () => {
    const s = runScenario(uniqueName('sess'));
    await ingestSpans(db, withoutSpan(s, 0), 'acme');
    const t = (await reconstructSession(db.ch, db.schema, { session: s.session, tenant: 'acme' }, { now }))
      .sessions[0]!;
    const gaps = t.entries.filter((e) => e.kind === 'gap' && e.gap.type === 'missing_parent');
    assert.equal(gaps.length, 1);
    const g = gaps[0]!;
    assert.ok(g.kind === 'gap' && g.gap.type === 'missing_parent');
    assert.equal(g.gap.missing_span_id, s.rootSpanId);
    assert.equal(g.gap.affected_calls.length, 5);
    assert.equal(g.position, 1);
  });

  it('reconstructs by trace id the sessions that ran in the trace', async () => {
    const s = runScenario(uniqueName('sess'));
    await ingestSpans(db, s.spans, 'globex');
    const r = await reconstructTrace(db.ch, db.schema, { trace: s.traceId }, { now });
    assert.equal(r.subject.kind, 'trace');
    assert.deepEqual(
      r.sessions.map((x) => [x.tenant, x.session_id, x.summary.calls]),
      [['globex', s.session, 5]],
    );
  });

  it('keeps tenants apart: a session id in another tenant is not found', async () => {
    const s = runScenario(uniqueName('sess'));
    await ingestSpans(db, s.spans, 'acme');
    await assert.rejects(
      reconstructSession(db.ch, db.schema, { session: s.session, tenant: 'initech' }),
      /no tool calls stored for session/,
    );
  });
});
