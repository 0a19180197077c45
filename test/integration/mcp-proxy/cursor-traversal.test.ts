/**
 * A model that pages by hand through the real `tooltrail mcp-proxy` in front of a real paging MCP server
 * (testkit/mcp/inventory-server.ts, the official SDK's McpServer over stdio): read to the end, its destructive calls
 * run on items of any page; stopped short, broken or started from a cursor nobody gave, they are stopped with the
 * reason and a way to recover. The proxy's spans go through the real collector, Kafka and ingest into ClickHouse,
 * where the detectors find exactly the short sessions.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { defaultAlertsConfig } from '../../../alerts/config.ts';
import { detect } from '../../../alerts/findings/detect.ts';
import { Attr } from '../../../contract/index.ts';
import { type RunningIngest, startIngest } from '../../../ingest/service.ts';
import { reconstructSession } from '../../../reconstruct/reconstruct.ts';
import { connectThroughProxy, INVENTORY_SERVER, type ProxiedClient } from '../../../testkit/mcp/proxy-client.ts';
import { services, uniqueName } from '../../../testkit/services.ts';
import { TENANT_A, TOKEN_A } from '../../unit/collector/fixtures.ts';
import { type RunningCollector, startCollector } from '../collector/harness.ts';
import { createHarness, type Harness } from '../ingest/harness.ts';

let h: Harness;
let collector: RunningCollector;
let ingest: RunningIngest;
const dir = mkdtempSync(join(tmpdir(), 'tt-mcp-traversal-'));
const run = uniqueName('trav');
const policy = join(dir, 'policy.yaml');
const started = new Date();

before(async () => {
  h = await createHarness('mcptraversal');
  collector = await startCollector({ kafka: { brokers: services.kafka.brokers, topic: h.topic, createTopic: false } });
  ingest = await startIngest(h.config(), { log: () => {} });
  writeFileSync(
    policy,
    [
      'tools:',
      '  list_unowned_accounts: { resource: service_accounts, itemId: id }',
      '  list_accounts_by_page: { resource: service_accounts, itemId: id, cursor: page }',
      '  delete_accounts: { resource: service_accounts, basis: presence, targets: ids }',
      '  mark_control_compliant: { resource: service_accounts, basis: absence }',
      '',
    ].join('\n'),
  );
});

after(async () => {
  await ingest?.stop();
  await collector?.close();
  await h?.close();
});

interface Envelope {
  completeness: { complete: boolean; continuation: { kind: string; cursor?: string } };
  items?: { id: string }[];
}
interface Review {
  reasons: { code: string; message: string }[];
  options: { kind: string; description: string; cursor?: string }[];
}

/** One client session through the proxy, with its own server (and its own control file). */
async function agent(name: string, f: (a: Agent) => Promise<void>): Promise<{ stderr: string }> {
  const control = join(dir, `${name}.json`);
  const p = await connectThroughProxy({
    server: [process.execPath, '--import', 'tsx', INVENTORY_SERVER],
    flags: ['--otlp-endpoint', collector.url, '--otlp-header', `Authorization: Bearer ${TOKEN_A}`, '--policy', policy],
    env: { INVENTORY_CONTROL: control },
  });
  try {
    await f(new Agent(p, `${run}-${name}`, control));
    return { stderr: p.stderr() };
  } finally {
    await p.close();
  }
}

class Agent {
  constructor(
    readonly proxy: ProxiedClient,
    readonly session: string,
    readonly control: string,
  ) {}

  async call(name: string, args: Record<string, unknown>) {
    return this.proxy.client.callTool({ name, arguments: args, _meta: { 'gen_ai.conversation.id': this.session } });
  }

  async page(args: Record<string, unknown> = {}): Promise<Envelope> {
    return (await this.call('list_unowned_accounts', args)).structuredContent as unknown as Envelope;
  }

  /** Follows the cursors from the first page, `pages` pages at most. */
  async pages(pages = Number.POSITIVE_INFINITY): Promise<Envelope[]> {
    const out: Envelope[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < pages; i++) {
      const e = await this.page(cursor === undefined ? {} : { cursor });
      out.push(e);
      cursor = e.completeness.continuation.cursor;
      if (cursor === undefined) break;
    }
    return out;
  }

  async deleteAndMark(ids: string[]) {
    return {
      remove: await this.call('delete_accounts', { ids }),
      mark: await this.call('mark_control_compliant', { control: 'no-unowned-accounts' }),
    };
  }

  ask(what: { snapshot?: string; expire?: number }): void {
    writeFileSync(this.control, JSON.stringify(what));
  }
}

const review = (r: unknown) => (r as { structuredContent: Review }).structuredContent;
const codes = (r: unknown) => review(r).reasons.map((x) => x.code);
const sessions: Record<string, string> = {};

test('read to the end, a presence delete of items from any page and an absence change both run', async () => {
  const { stderr } = await agent('to-the-end', async (a) => {
    sessions.toTheEnd = a.session;
    const pages = await a.pages();
    assert.equal(pages.length, 3);
    const { remove, mark } = await a.deleteAndMark(['sa-1', 'sa-5']);
    assert.notEqual(remove.isError, true, JSON.stringify(remove.structuredContent));
    assert.notEqual(mark.isError, true, JSON.stringify(mark.structuredContent));
  });
  assert.match(stderr, /deleted sa-1\ndeleted sa-5/);
  assert.match(stderr, /marked no-unowned-accounts/);
});

test('stopped one page short, both are stopped with the reason and read_all_pages offered at the next cursor', async () => {
  const { stderr } = await agent('one-page-short', async (a) => {
    sessions.short = a.session;
    const pages = await a.pages(2);
    const next = pages[1]?.completeness.continuation.cursor;
    const { remove, mark } = await a.deleteAndMark(['sa-1']);
    for (const stopped of [remove, mark]) {
      assert.equal(stopped.isError, true);
      assert.deepEqual(codes(stopped), ['EVIDENCE_INCOMPLETE']);
      assert.match(review(stopped).reasons[0]?.message ?? '', /stopped at page 2/);
      assert.deepEqual(
        review(stopped).options.find((o) => o.kind === 'read_all_pages'),
        { kind: 'read_all_pages', cursor: next, description: review(stopped).options[0]?.description },
      );
    }
  });
  assert.doesNotMatch(stderr, /deleted|marked/);
});

test('a snapshot that changed mid-way stops both, offering a read from the first page', async () => {
  const { stderr } = await agent('snapshot-changed', async (a) => {
    sessions.snapshot = a.session;
    const [first] = await a.pages(1);
    a.ask({ snapshot: 'inv-78' });
    const second = await a.page({ cursor: first?.completeness.continuation.cursor });
    await a.page({ cursor: second.completeness.continuation.cursor });
    const { remove, mark } = await a.deleteAndMark(['sa-1']);
    for (const stopped of [remove, mark]) {
      assert.equal(stopped.isError, true);
      assert.match(review(stopped).reasons[0]?.message ?? '', /SNAPSHOT_CHANGED/);
      assert.ok(review(stopped).options.some((o) => o.kind === 'read_again'));
    }
  });
  assert.doesNotMatch(stderr, /deleted|marked/);
});

test('an expired cursor stops both', async () => {
  const { stderr } = await agent('cursor-expired', async (a) => {
    sessions.expired = a.session;
    const [first] = await a.pages(1);
    a.ask({ expire: 1 });
    await a.page({ cursor: first?.completeness.continuation.cursor });
    const { remove, mark } = await a.deleteAndMark(['sa-1']);
    for (const stopped of [remove, mark]) assert.match(review(stopped).reasons[0]?.message ?? '', /CURSOR_EXPIRED/);
  });
  assert.doesNotMatch(stderr, /deleted|marked/);
});

test('a skipped page stops both', async () => {
  const { stderr } = await agent('page-skipped', async (a) => {
    sessions.skipped = a.session;
    await a.call('list_accounts_by_page', { page: 1 });
    await a.call('list_accounts_by_page', { page: 3 });
    const { remove, mark } = await a.deleteAndMark(['sa-1']);
    for (const stopped of [remove, mark]) assert.match(review(stopped).reasons[0]?.message ?? '', /PAGE_SKIPPED/);
  });
  assert.doesNotMatch(stderr, /deleted|marked/);
});

test('a last page read with a cursor the session never received does not make the list complete', async () => {
  const { stderr } = await agent('cursor-not-received', async (a) => {
    sessions.headless = a.session;
    let cursor: string | undefined;
    // The cursors of another session (another client connection to another server) are not this session's.
    await agent('elsewhere', async (b) => {
      const pages = await b.pages(2);
      cursor = pages[1]?.completeness.continuation.cursor;
    });
    const last = await a.page({ cursor });
    assert.equal(last.completeness.complete, true, 'the page alone says complete');
    const { mark } = await a.deleteAndMark(['sa-5']);
    assert.match(review(mark).reasons[0]?.message ?? '', /CURSOR_NOT_RECEIVED/);
  });
  assert.doesNotMatch(stderr, /marked/);
});

test('the spans link each page to its traversal, the detectors find exactly the short sessions, and the reconstruction shows each traversal as one read', async () => {
  const all = Object.values(sessions);
  assert.equal(all.length, 6);
  const n = await h.waitForCount(
    `SELECT count() AS n FROM ${h.db.database}.tool_calls WHERE tenant = '${TENANT_A}' AND session_id IN (${all.map((x) => `'${x}'`).join(',')})`,
    // reads + 2 mutations each: to-the-end 3, short 2, snapshot 3, expired 2, skipped 2, headless 1
    25,
    60_000,
  );
  assert.equal(n, 25);
  const rows = await h.db.ch.query({
    query: `SELECT tool_call_id, attributes FROM {db:Identifier}.tool_calls
            WHERE session_id = {s:String} AND effect = 'read' ORDER BY sequence`,
    query_params: { db: h.db.database, s: sessions.toTheEnd },
    format: 'JSONEachRow',
  });
  const pages = await rows.json<{ tool_call_id: string; attributes: Record<string, string> }>();
  assert.deepEqual(
    pages.map((p) => [p.attributes[Attr.TRAVERSAL_ID], p.attributes[Attr.TRAVERSAL_PAGE]]),
    [1, 2, 3].map((i) => [pages[0]?.tool_call_id, String(i)]),
  );

  // The detector tables fill by materialized views, visible just after tool_calls: wait for them too.
  const inList = all.map((x) => `'${x}'`).join(',');
  for (const [table, expected] of [
    ['detector_incomplete_reads', 13],
    ['detector_mutations', 12],
  ] as const) {
    const sql = `SELECT count() AS n FROM ${h.db.database}.${table} WHERE tenant = '${TENANT_A}' AND session IN (${inList})`;
    assert.equal(await h.waitForCount(sql, expected, 30_000), expected, table);
  }
  const config = { ...defaultAlertsConfig(), tenant: TENANT_A };
  const { findings } = await detect({
    ch: h.db.ch,
    database: h.db.database,
    config,
    now: new Date(Date.now() + 1_000),
    since: new Date(started.getTime() - 60_000),
  });
  const flagged = [...new Set(findings.filter((f) => f.session && all.includes(f.session)).map((f) => f.session))];
  assert.deepEqual(
    flagged.sort(),
    [sessions.short, sessions.snapshot, sessions.expired, sessions.skipped, sessions.headless].sort(),
  );

  const timeline = async (session: string | undefined) =>
    (await reconstructSession(h.db.ch, h.db.schema, { tenant: TENANT_A, session: session ?? '' })).sessions[0];
  const whole = await timeline(sessions.toTheEnd);
  assert.deepEqual(
    whole?.traversals.map((t) => t.statement),
    ['3 pages, complete over snapshot inv-77'],
  );
  const short = await timeline(sessions.short);
  assert.match(short?.traversals[0]?.statement ?? '', /^2 pages, stopped at page 2 \(MORE_PAGES_AVAILABLE\)/);
  const changed = await timeline(sessions.snapshot);
  assert.match(changed?.traversals[0]?.statement ?? '', /broke at page 2: SNAPSHOT_CHANGED/);
});
