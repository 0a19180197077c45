/**
 * The detectors judge the pages a session read cursor after cursor as one read (semconv 1.5.0): sessions written as
 * plain OTel spans carrying `tooltrail.traversal.*`, stored through the real ingest path, judged by the real SQL in
 * both modes (range and incremental). A traversal read to the end covers what its pages returned; one that stopped
 * short, changed snapshot, lost its cursor, skipped a page or began at a cursor nobody gave does not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultAlertsConfig } from '../../../alerts/config.ts';
import { detect } from '../../../alerts/findings/detect.ts';
import type { Finding } from '../../../alerts/findings/finding.ts';
import type { TraversalBreak } from '../../../contract/index.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { buildSessionSpans, type ReadStep, type SessionScript, type Step } from '../../../testkit/session-spans.ts';

const RESOURCE = 'service_accounts';
const now = new Date();
const start = new Date(now.getTime() - 3_600_000);
const tenant = uniqueName('acme');

interface PageSpec {
  page?: number;
  complete?: boolean;
  snapshot?: string;
  break?: TraversalBreak;
  reasons?: ReadStep['reasons'];
  /** Not linked to a traversal (an emitter before 1.5.0). */
  unlinked?: boolean;
}

/** Pages of one traversal (`first` is the first page's call id), then a presence delete and an absence change. */
function session(
  name: string,
  pages: PageSpec[],
  mutation: { evidenceCallIds?: string[]; before?: Step[] } = {},
): SessionScript {
  const first = `${name}-p1`;
  const reads: Step[] = pages.map((p, i) => {
    const last = i === pages.length - 1;
    const complete = p.complete ?? last;
    return {
      effect: 'read',
      tool: 'list_unowned_accounts',
      resource: RESOURCE,
      callId: i === 0 ? first : `${name}-p${i + 1}`,
      complete,
      reasons: p.reasons ?? (complete ? [] : ['MORE_PAGES_AVAILABLE']),
      items: 2,
      snapshot: p.snapshot ?? 'inv-77',
      ...(p.unlinked
        ? {}
        : { traversal: { id: first, page: p.page ?? i + 1, ...(p.break ? { break: p.break } : {}) } }),
      at: 10 + i,
    } satisfies ReadStep;
  });
  const pre = (mutation.before ?? []).map((s, i) => ({ ...s, at: i }));
  const evidence = mutation.evidenceCallIds ? { evidenceCallIds: mutation.evidenceCallIds } : {};
  return {
    session: name,
    agent: 'janitor',
    start,
    steps: [
      ...pre,
      ...reads,
      {
        effect: 'mutation',
        tool: 'delete_accounts',
        resource: RESOURCE,
        basis: 'presence',
        targets: 2,
        guard: 'allowed',
        ...evidence,
        at: 30,
      },
      {
        effect: 'mutation',
        tool: 'mark_control_compliant',
        resource: RESOURCE,
        basis: 'absence',
        guard: 'allowed',
        ...evidence,
        at: 31,
      },
    ],
  };
}

const s = (label: string) => `${tenant}-${label}`;
const SESSIONS: SessionScript[] = [
  session(s('to-the-end'), [{}, {}, {}]),
  session(s('one-page-short'), [{}, { complete: false }]),
  session(s('snapshot-changed'), [{}, { snapshot: 'inv-78', break: 'SNAPSHOT_CHANGED' }, { snapshot: 'inv-78' }]),
  // An emitter that links its pages but records no break: the detectors see the snapshot change themselves.
  session(s('snapshot-changed-unflagged'), [{}, { snapshot: 'inv-78' }, { snapshot: 'inv-78' }]),
  session(s('cursor-expired'), [{}, { complete: false, reasons: ['CURSOR_EXPIRED'] }]),
  session(s('page-skipped'), [{}, {}, { page: 4 }]),
  session(s('cursor-not-received'), [{ page: undefined, break: 'CURSOR_NOT_RECEIVED' }]),
  // Read to the end, naming the traversal (its first page's call id), after an earlier traversal it abandoned.
  session(s('named-after-abandoned'), [{}, {}, {}], {
    evidenceCallIds: [`${s('named-after-abandoned')}-p1`],
    before: [
      {
        effect: 'read',
        tool: 'list_unowned_accounts',
        resource: RESOURCE,
        callId: `${s('named-after-abandoned')}-old`,
        complete: false,
        reasons: ['MORE_PAGES_AVAILABLE'],
        snapshot: 'inv-76',
        traversal: { id: `${s('named-after-abandoned')}-old`, page: 1 },
        at: 0,
      },
    ],
  }),
  // Pages no attribute links are judged one by one, as before 1.5.0: the earlier pages said "more".
  session(s('unlinked'), [{ unlinked: true }, { unlinked: true }, { unlinked: true }]),
];

/** Sessions whose mutations must be findings: every traversal that is not complete. */
const SHORT = [
  'one-page-short',
  'snapshot-changed',
  'snapshot-changed-unflagged',
  'cursor-expired',
  'page-skipped',
  'cursor-not-received',
  'unlinked',
].map(s);

let db: TestDatabase;
let range: Finding[];
let incremental: Finding[];

before(async () => {
  db = await freshDatabase('tt_alerts_traversals');
  await ingestSpans(db, buildSessionSpans(SESSIONS).spans, tenant);
  const config = { ...defaultAlertsConfig(), tenant };
  const common = { ch: db.ch, database: db.database, config, now, since: new Date(now.getTime() - 86_400_000) };
  ({ findings: range } = await detect(common));
  ({ findings: incremental } = await detect({
    ...common,
    arrivals: { since: new Date(now.getTime() - 600_000), until: new Date(Date.now() + 60_000) },
  }));
});
after(async () => {
  await db?.drop();
});

const mutationFindings = (findings: Finding[]) =>
  findings
    .filter((f) => f.mutation_span_id !== null)
    .map((f) => `${f.session} ${f.tool} ${f.kind}`)
    .sort();

describe('cursor traversals in the detectors', () => {
  it('flags both mutations of exactly the sessions whose traversal was not complete', () => {
    const expected = SHORT.flatMap((name) => [
      `${name} delete_accounts mutation_after_incomplete_read`,
      `${name} mark_control_compliant mutation_after_incomplete_read`,
    ]).sort();
    assert.deepEqual(mutationFindings(range), expected);
  });

  it('the incremental detectors agree with the range ones', () => {
    assert.deepEqual(mutationFindings(incremental), mutationFindings(range));
  });

  it('a traversal read to the end covers a presence delete and an absence change, in both detectors', () => {
    for (const name of [s('to-the-end'), s('named-after-abandoned')]) {
      assert.deepEqual(
        range.filter((f) => f.session === name).map((f) => f.kind),
        [],
        name,
      );
    }
  });

  it('a finding lists the pages of the traversal that fell short and why', () => {
    const short = range.find((f) => f.session === s('one-page-short') && f.tool === 'delete_accounts');
    assert.equal(short?.read_span_ids.length, 2);
    assert.deepEqual(short?.reasons, ['MORE_PAGES_AVAILABLE']);
    const changed = range.find((f) => f.session === s('snapshot-changed') && f.tool === 'delete_accounts');
    assert.equal(changed?.read_span_ids.length, 3, 'every page of the broken traversal');
    assert.deepEqual([...(changed?.reasons ?? [])].sort(), ['MORE_PAGES_AVAILABLE', 'SNAPSHOT_CHANGED']);
    const headless = range.find((f) => f.session === s('cursor-not-received') && f.tool === 'mark_control_compliant');
    assert.deepEqual(headless?.reasons, ['CURSOR_NOT_RECEIVED']);
  });
});
