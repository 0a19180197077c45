/**
 * A careful agent pages by hand, cursor after cursor, to the end: the pages are one read (a traversal), so the guard
 * lets it act on what any page returned, and still stops a traversal that stopped short, changed snapshot, lost its
 * cursor, skipped a page or started from a cursor nobody gave.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Attr } from '../../../contract/index.ts';
import { createTooltrail, slackCursor, type Tooltrail } from '../../../instrumentation/index.ts';
import { PagingInventory, pageEnvelope, RESOURCE } from '../../../testkit/paging-inventory.ts';
import { memoryTracing } from './fixtures/otel.ts';

const tracing = memoryTracing();
after(() => tracing.shutdown());

interface ListArgs {
  cursor?: string;
}

function agent(
  inventory = new PagingInventory(),
  tt: Tooltrail = createTooltrail({ tracerProvider: tracing.provider }),
) {
  const session = tt.session({ conversationId: `conv-traversal-${Math.random()}` });
  const list = tt.readTool<ListArgs>({ name: 'list_unowned_accounts', policy: { resource: RESOURCE } }, (a) =>
    pageEnvelope(inventory.page(a.cursor)),
  );
  const deleted: string[][] = [];
  const remove = tt.mutationTool<{ ids: string[] }>(
    { name: 'delete_accounts', policy: { resource: RESOURCE, basis: 'presence', targets: '/ids' } },
    (a) => {
      deleted.push(a.ids);
      return { status: 'complete', completeness: { complete: true }, items: a.ids };
    },
  );
  const markCompliant = tt.mutationTool<Record<string, never>>(
    { name: 'mark_control_compliant', policy: { resource: RESOURCE, basis: 'absence' } },
    () => ({ status: 'complete', completeness: { complete: true } }),
  );
  /** Follows every cursor from the first page, as a model does by hand; stops after `pages` pages when given. */
  const page = async (pages = Number.POSITIVE_INFINITY) => {
    const outs = [];
    let cursor: string | undefined;
    for (let i = 0; i < pages; i++) {
      const out = await list(session, cursor === undefined ? {} : { cursor });
      outs.push(out);
      const c = out.result.completeness.continuation;
      if (c.kind !== 'next_cursor') break;
      cursor = c.cursor;
    }
    return outs;
  };
  return { tt, session, list, remove, markCompliant, deleted, page, inventory };
}

/** Another tool's first pages, each pointing to a next one: they take the book's room too. */
const otherFirstPages = (tt: Tooltrail) =>
  tt.readTool<Record<string, never>>({ name: 'list_teams', policy: { resource: 'teams' } }, () => ({
    status: 'partial',
    completeness: {
      complete: false,
      reasons: [{ code: 'MORE_PAGES_AVAILABLE' }],
      continuation: { kind: 'next_cursor', cursor: `t-${Math.random()}` },
    },
    items: [],
  }));

const codes = (out: { findings: readonly { code: string }[] }) => out.findings.map((f) => f.code);

test('allows a presence delete of items seen on any page once the agent followed every cursor to the end', async () => {
  const a = agent();
  const pages = await a.page();
  assert.equal(pages.length, 3);
  const out = await a.remove(a.session, { ids: ['sa-1', 'sa-3', 'sa-5'] });
  assert.equal(out.decision, 'allowed', JSON.stringify(out.findings));
  assert.deepEqual(a.deleted, [['sa-1', 'sa-3', 'sa-5']]);
});

test('allows an absence change after a traversal complete over one snapshot', async () => {
  const a = agent();
  await a.page();
  const out = await a.markCompliant(a.session, {});
  assert.equal(out.decision, 'allowed', JSON.stringify(out.findings));
});

test('names the traversal (its first page) as the evidence of a mutation, with its snapshot', async () => {
  const a = agent();
  const [first] = await a.page();
  const out = await a.markCompliant(a.session, {});
  assert.equal(out.decision, 'allowed');
  const span = (await tracing.spans()).find(
    (s) =>
      s.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS] &&
      s.attributes['gen_ai.conversation.id'] === a.session.conversationId,
  );
  assert.deepEqual(span?.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS], [first?.callId]);
  assert.deepEqual(span?.attributes[Attr.MUTATION_EVIDENCE_SNAPSHOTS], ['inv-77']);
});

test('links each page span to its traversal: the first page call id and the page position', async () => {
  const a = agent();
  const pages = await a.page();
  const spans = (await tracing.spans()).filter((s) =>
    pages.some((p) => p.callId === s.attributes['gen_ai.tool.call.id']),
  );
  const byCall = new Map(spans.map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes]));
  pages.forEach((p, i) => {
    assert.equal(byCall.get(p.callId)?.[Attr.TRAVERSAL_ID], pages[0]?.callId);
    assert.equal(byCall.get(p.callId)?.[Attr.TRAVERSAL_PAGE], i + 1);
    assert.equal(byCall.get(p.callId)?.[Attr.TRAVERSAL_BREAK], undefined);
  });
  assert.deepEqual(pages.at(-1)?.traversal, { id: pages[0]?.callId, page: 3, pages: 3, complete: true });
});

test('a single complete page read without a cursor carries no traversal attributes', async () => {
  const a = agent(new PagingInventory({ pageSize: 10 }));
  const [only] = await a.page();
  assert.equal(only?.traversal, undefined);
  const span = (await tracing.spans()).find((s) => s.attributes['gen_ai.tool.call.id'] === only?.callId);
  assert.equal(span?.attributes[Attr.TRAVERSAL_ID], undefined);
});

test('refuses a presence delete when the traversal stopped one page short, offering to read the remaining pages', async () => {
  const a = agent();
  const pages = await a.page(2);
  const out = await a.remove(a.session, { ids: ['sa-1'] });
  assert.equal(out.decision, 'refused');
  assert.deepEqual(codes(out), ['EVIDENCE_INCOMPLETE']);
  assert.match(out.findings[0]?.message ?? '', /stopped at page 2/);
  assert.deepEqual(a.deleted, []);
  if (!('review' in out)) throw new Error('unreachable');
  const readAll = out.review.options.find((o) => o.kind === 'read_all_pages');
  assert.ok(readAll, JSON.stringify(out.review.options));
  const next = pages[1]?.result.completeness.continuation;
  assert.equal(readAll.cursor, next?.kind === 'next_cursor' ? next.cursor : 'none');
});

test('refuses an absence change when the traversal stopped one page short', async () => {
  const a = agent();
  await a.page(2);
  const out = await a.markCompliant(a.session, {});
  assert.equal(out.decision, 'refused');
  assert.deepEqual(codes(out), ['EVIDENCE_INCOMPLETE']);
});

test('refuses a presence delete after the first page alone, as a traversal stopped at page 1', async () => {
  const a = agent();
  const [first] = await a.page(1);
  assert.deepEqual(first?.traversal, { id: first?.callId, page: 1, pages: 1, complete: false });
  const out = await a.remove(a.session, { ids: ['sa-1'] });
  assert.equal(out.decision, 'refused');
  assert.match(out.findings[0]?.message ?? '', /stopped at page 1\b/);
  if (!('review' in out)) throw new Error('unreachable');
  assert.deepEqual(
    out.review.evidence.map((e) => e.pages),
    [1],
  );
  assert.ok(out.review.options.some((o) => o.kind === 'read_all_pages'));
});

test('a first page read with an expired cursor breaks its traversal at page 1', async () => {
  const a = agent();
  const expired = a.tt.readTool<Record<string, never>>(
    { name: 'list_unowned_accounts', policy: { resource: RESOURCE } },
    () => ({
      status: 'partial',
      completeness: {
        complete: false,
        reasons: [{ code: 'CURSOR_EXPIRED' }],
        continuation: { kind: 'next_cursor', cursor: 'again' },
      },
      items: [],
    }),
  );
  const out = await expired(a.session, {});
  assert.equal(out.traversal?.break, 'CURSOR_EXPIRED');
  assert.equal(out.traversal?.page, 1);
});

test('forgets the oldest first page first: its cursor is then one the session never received', async () => {
  const a = agent(new PagingInventory(), createTooltrail({ tracerProvider: tracing.provider, evidenceLedgerSize: 2 }));
  const [first] = await a.page(1);
  const teams = otherFirstPages(a.tt);
  await teams(a.session, {});
  await teams(a.session, {});
  const cont = first?.result.completeness.continuation;
  const second = await a.list(a.session, { cursor: cont?.kind === 'next_cursor' ? cont.cursor : '' });
  assert.equal(second.traversal?.break, 'CURSOR_NOT_RECEIVED');
});

test('a first page still remembered is continued by its cursor, after other first pages', async () => {
  const a = agent(new PagingInventory(), createTooltrail({ tracerProvider: tracing.provider, evidenceLedgerSize: 3 }));
  const [first] = await a.page(1);
  await otherFirstPages(a.tt)(a.session, {});
  const cont = first?.result.completeness.continuation;
  const second = await a.list(a.session, { cursor: cont?.kind === 'next_cursor' ? cont.cursor : '' });
  assert.deepEqual(second.traversal, { id: first?.callId, page: 2, pages: 2, complete: false });
});

test('refuses a presence delete of an item on no page of the traversal', async () => {
  const a = agent();
  await a.page();
  const out = await a.remove(a.session, { ids: ['sa-1', 'sa-9'] });
  assert.deepEqual(codes(out), ['TARGETS_NOT_IN_EVIDENCE']);
});

test('refuses an absence change when the snapshot changed mid-way, and offers a read from the first page', async () => {
  const a = agent();
  const first = await a.list(a.session, {});
  a.inventory.reindex('inv-78');
  const cont = first.result.completeness.continuation;
  const second = await a.list(a.session, { cursor: cont.kind === 'next_cursor' ? cont.cursor : '' });
  assert.equal(second.traversal?.break, 'SNAPSHOT_CHANGED');
  const c2 = second.result.completeness.continuation;
  const third = await a.list(a.session, { cursor: c2.kind === 'next_cursor' ? c2.cursor : '' });
  assert.equal(third.complete, true, 'the last page alone says complete');
  assert.equal(third.traversal?.complete, false);
  assert.equal(third.nextStep, 'treat_as_partial');
  const out = await a.markCompliant(a.session, {});
  assert.equal(out.decision, 'refused');
  assert.match(out.findings[0]?.message ?? '', /SNAPSHOT_CHANGED/);
  if (!('review' in out)) throw new Error('unreachable');
  assert.ok(out.review.options.some((o) => o.kind === 'read_again'));
  assert.ok(!out.review.options.some((o) => o.kind === 'read_all_pages'));
  const span = (await tracing.spans()).find((s) => s.attributes['gen_ai.tool.call.id'] === second.callId);
  assert.equal(span?.attributes[Attr.TRAVERSAL_BREAK], 'SNAPSHOT_CHANGED');
});

test('refuses a presence delete after a cursor expired mid-way', async () => {
  const a = agent();
  const first = await a.list(a.session, {});
  a.inventory.expireCursors();
  const cont = first.result.completeness.continuation;
  const second = await a.list(a.session, { cursor: cont.kind === 'next_cursor' ? cont.cursor : '' });
  assert.equal(second.traversal?.break, 'CURSOR_EXPIRED');
  const out = await a.remove(a.session, { ids: ['sa-1'] });
  assert.equal(out.decision, 'refused');
  assert.match(out.findings[0]?.message ?? '', /CURSOR_EXPIRED/);
});

test('refuses an absence change on a traversal read from a cursor the session never received', async () => {
  const a = agent();
  const elsewhere = new PagingInventory().page(new PagingInventory().page().next).next;
  const last = await a.list(a.session, { cursor: elsewhere ?? '' });
  assert.equal(last.complete, true, 'the page alone says complete');
  assert.equal(last.traversal?.break, 'CURSOR_NOT_RECEIVED');
  assert.equal(last.traversal?.page, undefined);
  const out = await a.markCompliant(a.session, {});
  assert.equal(out.decision, 'refused');
  assert.match(out.findings[0]?.message ?? '', /CURSOR_NOT_RECEIVED/);
});

test('refuses an absence change when a page number was skipped', async () => {
  const inventory = new PagingInventory({ numbered: true });
  const tt = createTooltrail({ tracerProvider: tracing.provider });
  const session = tt.session({ conversationId: 'conv-numbered' });
  const list = tt.readTool<{ page?: number }>(
    { name: 'list_unowned_accounts', policy: { resource: RESOURCE, cursor: '/page' } },
    (a) => pageEnvelope(inventory.page(a.page === undefined ? undefined : String(a.page))),
  );
  const mark = tt.mutationTool(
    { name: 'mark_control_compliant', policy: { resource: RESOURCE, basis: 'absence' } },
    () => ({
      status: 'complete',
      completeness: { complete: true },
    }),
  );
  await list(session, { page: 1 });
  const skipped = await list(session, { page: 3 });
  assert.equal(skipped.complete, true);
  assert.equal(skipped.traversal?.break, 'PAGE_SKIPPED');
  assert.equal(skipped.traversal?.page, 3);
  const out = await mark(session, {});
  assert.equal(out.decision, 'refused');
  assert.match(out.findings[0]?.message ?? '', /PAGE_SKIPPED/);
  // Reading the page it skipped mends the chain: page 2 then 3 again, to the end.
  await list(session, { page: 2 });
  await list(session, { page: 3 });
  assert.equal((await mark(session, {})).decision, 'allowed');
});

test('restarting from the first page starts a new traversal, judged on its own pages', async () => {
  const a = agent();
  const abandoned = await a.page(2);
  const fresh = await a.page();
  assert.notEqual(fresh[0]?.traversal?.id, abandoned[0]?.traversal?.id);
  assert.equal(fresh[0]?.traversal?.id, fresh[0]?.callId);
  assert.equal((await a.markCompliant(a.session, {})).decision, 'allowed');
});

test('a page read again with its cursor replaces that page and the traversal goes on from there', async () => {
  const a = agent();
  const [first] = await a.page(1);
  const cont = first?.result.completeness.continuation;
  const cursor = cont?.kind === 'next_cursor' ? cont.cursor : '';
  await a.list(a.session, { cursor });
  const again = await a.list(a.session, { cursor });
  assert.equal(again.traversal?.page, 2);
  const c3 = again.result.completeness.continuation;
  const last = await a.list(a.session, { cursor: c3.kind === 'next_cursor' ? c3.cursor : '' });
  assert.deepEqual(last.traversal, { id: first?.callId, page: 3, pages: 3, complete: true });
});

test('two traversals of one tool with different filters each follow their own cursors', async () => {
  const a = agent();
  const other = new PagingInventory({ accounts: ['x-1', 'x-2', 'x-3'], snapshot: 'inv-12' });
  const tt = a.tt;
  const list = tt.readTool<ListArgs & { team: string }>(
    { name: 'list_unowned_accounts', policy: { resource: RESOURCE } },
    (args) => pageEnvelope((args.team === 'x' ? other : a.inventory).page(args.cursor)),
  );
  const x1 = await list(a.session, { team: 'x' });
  const s1 = await list(a.session, { team: 's' });
  const next = (o: typeof x1) => {
    const c = o.result.completeness.continuation;
    return c.kind === 'next_cursor' ? c.cursor : '';
  };
  const x2 = await list(a.session, { team: 'x', cursor: next(x1) });
  const s2 = await list(a.session, { team: 's', cursor: next(s1) });
  assert.equal(x2.traversal?.id, x1.callId);
  assert.equal(s2.traversal?.id, s1.callId);
  assert.equal(x2.traversal?.complete, true);
  assert.equal(s2.traversal?.complete, false);
});

test('finds the cursor through the adapter pageParams when the policy does not say where it is', async () => {
  const tt = createTooltrail({ tracerProvider: tracing.provider });
  const session = tt.session({ conversationId: 'conv-slack' });
  const inventory = new PagingInventory({ accounts: ['U1', 'U2', 'U3'] });
  const users = tt.readTool<{ limit: number; cursor?: string }>(
    { name: 'slack_users_list', policy: { resource: 'slack_users' }, adapter: slackCursor },
    (a) => {
      const p = inventory.page(a.cursor);
      return { ok: true, members: p.items, response_metadata: { next_cursor: p.next ?? '' } };
    },
  );
  const p1 = await users(session, { limit: 2 });
  const c = p1.result.completeness.continuation;
  const p2 = await users(session, { limit: 2, cursor: c.kind === 'next_cursor' ? c.cursor : '' });
  assert.deepEqual(p2.traversal, { id: p1.callId, page: 2, pages: 2, complete: true });
  const forged = await users(session, { limit: 2, cursor: 'bm90LWdpdmVu' });
  assert.equal(forged.traversal?.break, 'CURSOR_NOT_RECEIVED');
});

test('links a page whose cursor sits under an unusual argument name when its value is a cursor the session received', async () => {
  const tt = createTooltrail({ tracerProvider: tracing.provider });
  const session = tt.session({ conversationId: 'conv-nested' });
  const inventory = new PagingInventory();
  const list = tt.readTool<{ pagination?: { token?: string } }>('list_unowned_accounts', (a) =>
    pageEnvelope(inventory.page(a.pagination?.token)),
  );
  const p1 = await list(session, {});
  const c = p1.result.completeness.continuation;
  const p2 = await list(session, { pagination: { token: c.kind === 'next_cursor' ? c.cursor : '' } });
  assert.equal(p2.traversal?.id, p1.callId);
  assert.equal(p2.traversal?.page, 2);
});

test('a failed page leaves its traversal incomplete, and reading it again with the same cursor goes on', async () => {
  const a = agent();
  let fail = true;
  const list = a.tt.readTool<ListArgs>({ name: 'list_unowned_accounts', policy: { resource: RESOURCE } }, (args) => {
    if (args.cursor && fail) {
      fail = false;
      throw new Error('upstream timeout');
    }
    return pageEnvelope(a.inventory.page(args.cursor));
  });
  const p1 = await list(a.session, {});
  const c = p1.result.completeness.continuation;
  const cursor = c.kind === 'next_cursor' ? c.cursor : '';
  await assert.rejects(list(a.session, { cursor }));
  assert.equal((await a.markCompliant(a.session, {})).decision, 'refused');
  const p2 = await list(a.session, { cursor });
  const c3 = p2.result.completeness.continuation;
  await list(a.session, { cursor: c3.kind === 'next_cursor' ? c3.cursor : '' });
  assert.equal((await a.markCompliant(a.session, {})).decision, 'allowed');
});
