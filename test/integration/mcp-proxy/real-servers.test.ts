/**
 * Real MCP servers from npm (memory, filesystem) and the repo's paging server, driven by the official client SDK
 * through the real `tooltrail mcp-proxy` command; spans go over OTLP to the real collector, Kafka and the ingest,
 * and are checked in ClickHouse. A refused call never reaches the server (its state is unchanged); `observe` lets
 * it through.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningIngest, startIngest } from '../../../ingest/service.ts';
import {
  connectThroughProxy,
  PAGING_SERVER,
  type ProxiedClient,
  serverBin,
} from '../../../testkit/mcp/proxy-client.ts';
import { services, uniqueName } from '../../../testkit/services.ts';
import { TENANT_A, TOKEN_A } from '../../unit/collector/fixtures.ts';
import { type RunningCollector, startCollector } from '../collector/harness.ts';
import { createHarness, type Harness } from '../ingest/harness.ts';

let h: Harness;
let collector: RunningCollector;
let ingest: RunningIngest;
const dir = mkdtempSync(join(tmpdir(), 'tt-mcp-proxy-'));
const run = uniqueName('mcp');

before(async () => {
  h = await createHarness('mcpproxy');
  collector = await startCollector({ kafka: { brokers: services.kafka.brokers, topic: h.topic, createTopic: false } });
  ingest = await startIngest(h.config(), { log: () => {} });
});

after(async () => {
  await ingest?.stop();
  await collector?.close();
  await h?.close();
});

const otlp = () => ['--otlp-endpoint', collector.url, '--otlp-header', `Authorization: Bearer ${TOKEN_A}`];
const meta = (conversation: string) => ({ 'gen_ai.conversation.id': conversation });
const text = (r: unknown) => (((r as { content?: { text?: string }[] }).content ?? [])[0]?.text ?? '') as string;

interface Row {
  session_id: string;
  sequence: string;
  tool_name: string;
  span_name: string;
  effect: string;
  result_complete: boolean;
  result_reasons: string[];
  guard_decision: string;
  span_status_code: string;
  attributes: Record<string, string>;
  event_names: string[];
}

async function rows(session: string, expected: number): Promise<Row[]> {
  const sql = `SELECT count() AS n FROM ${h.db.database}.tool_calls WHERE session_id = '${session}' AND tenant = '${TENANT_A}'`;
  assert.equal(await h.waitForCount(sql, expected, 30_000), expected, `tool_calls rows of ${session}`);
  const rs = await h.db.ch.query({
    query: `SELECT session_id, sequence, tool_name, span_name, effect, result_complete, result_reasons, guard_decision,
              span_status_code, attributes, event_names
            FROM {db:Identifier}.tool_calls WHERE session_id = {s:String} ORDER BY sequence`,
    query_params: { db: h.db.database, s: session },
    format: 'JSONEachRow',
  });
  return rs.json<Row>();
}

async function withProxy<T>(
  flags: string[],
  server: string[],
  env: Record<string, string>,
  f: (p: ProxiedClient) => Promise<T>,
): Promise<T> {
  const p = await connectThroughProxy({ server, flags: [...otlp(), ...flags], env });
  try {
    return await f(p);
  } finally {
    // Closing the client ends the proxy, which exports its spans before it exits.
    await p.close();
  }
}

test('memory server: search_nodes then delete_entities is stopped in enforce (the entity stays), forwarded in observe', async () => {
  const memory = join(dir, 'memory.jsonl');
  const server = [process.execPath, serverBin('server-memory')];
  const env = { MEMORY_FILE_PATH: memory };
  const enforce = `${run}-memory-enforce`;
  await withProxy([], server, env, async ({ client }) => {
    await client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'svc-old', entityType: 'account', observations: ['no owner'] }] },
      _meta: meta(enforce),
    });
    const found = await client.callTool({
      name: 'search_nodes',
      arguments: { query: 'svc-old' },
      _meta: meta(enforce),
    });
    assert.match(text(found), /svc-old/);
    const stopped = await client.callTool({
      name: 'delete_entities',
      arguments: { entityNames: ['svc-old'] },
      _meta: meta(enforce),
    });
    assert.equal(stopped.isError, true);
    assert.match(text(stopped), /was not sent to the server/);
    const review = (stopped._meta?.['io.tooltrail/review'] ?? stopped.structuredContent) as {
      reasons: { code: string }[];
    };
    assert.ok(
      review.reasons.some((r) => r.code === 'EVIDENCE_INCOMPLETE'),
      JSON.stringify(review),
    );
  });
  assert.match(readFileSync(memory, 'utf8'), /svc-old/, 'the refused delete never reached the server');
  const stored = await rows(enforce, 3);
  assert.deepEqual(
    stored.map((r) => [r.tool_name, r.effect, r.guard_decision]),
    [
      ['create_entities', 'mutation', ''],
      ['search_nodes', 'read', ''],
      ['delete_entities', 'mutation', 'refused'],
    ],
  );
  assert.deepEqual(stored[1]?.result_reasons, ['COMPLETENESS_UNKNOWN']);
  assert.equal(stored[2]?.span_name, 'tools/call delete_entities');
  assert.equal(stored[2]?.attributes['mcp.method.name'], 'tools/call');
  assert.equal(stored[2]?.attributes['error.type'], 'tool_error');
  assert.match(stored[2]?.attributes['mcp.protocol.version'] ?? '', /^\d{4}-\d{2}-\d{2}$/);
  assert.equal(stored[2]?.attributes['network.transport'], 'pipe');

  const observe = `${run}-memory-observe`;
  await withProxy(['--guard', 'observe'], server, env, async ({ client }) => {
    await client.callTool({ name: 'search_nodes', arguments: { query: 'svc-old' }, _meta: meta(observe) });
    const done = await client.callTool({
      name: 'delete_entities',
      arguments: { entityNames: ['svc-old'] },
      _meta: meta(observe),
    });
    assert.notEqual(done.isError, true);
  });
  assert.doesNotMatch(readFileSync(memory, 'utf8'), /svc-old/, 'observe let the delete through');
  const observed = await rows(observe, 2);
  assert.equal(observed[1]?.guard_decision, '', 'no guard acted');
  assert.ok(observed[1]?.event_names.includes('tooltrail.guard.unenforced'));
});

test('filesystem server: reads are read-only, write_file and move_file are destructive and stopped; the files are unchanged', async () => {
  const root = mkdtempSync(join(dir, 'fs-'));
  writeFileSync(join(root, 'notes.txt'), 'keep me');
  const session = `${run}-fs`;
  await withProxy([], [process.execPath, serverBin('server-filesystem'), root], {}, async ({ client }) => {
    const tools = await client.listTools();
    const hints = new Map(tools.tools.map((t) => [t.name, t.annotations]));
    assert.equal(hints.get('read_text_file')?.readOnlyHint, true);
    assert.equal(hints.get('write_file')?.destructiveHint, true);
    const read = await client.callTool({
      name: 'read_text_file',
      arguments: { path: join(root, 'notes.txt') },
      _meta: meta(session),
    });
    assert.match(text(read), /keep me/);
    const write = await client.callTool({
      name: 'write_file',
      arguments: { path: join(root, 'notes.txt'), content: 'overwritten' },
      _meta: meta(session),
    });
    assert.equal(write.isError, true);
    const move = await client.callTool({
      name: 'move_file',
      arguments: { source: join(root, 'notes.txt'), destination: join(root, 'moved.txt') },
      _meta: meta(session),
    });
    assert.equal(move.isError, true);
  });
  assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), 'keep me');
  assert.equal(existsSync(join(root, 'moved.txt')), false);
  const stored = await rows(session, 3);
  assert.deepEqual(
    stored.map((r) => [r.tool_name, r.effect, r.guard_decision]),
    [
      ['read_text_file', 'read', ''],
      ['write_file', 'mutation', 'refused'],
      ['move_file', 'mutation', 'refused'],
    ],
  );
});

test('paging server: a page with nextCursor is incomplete, the last page complete, a cut text incomplete; the pages are one read, so a delete of an item of the first page runs', async () => {
  const policy = join(dir, 'policy.yaml');
  writeFileSync(
    policy,
    [
      'tools:',
      '  list_users: { resource: users, items: users, itemId: id }',
      '  export_log: { textLimit: 2000 }',
      '  remove_users: { resource: users, basis: presence, targets: ids }',
      '',
    ].join('\n'),
  );
  const session = `${run}-paging`;
  const removed = await withProxy(
    ['--policy', policy],
    [process.execPath, '--import', 'tsx', PAGING_SERVER],
    {},
    async (p) => {
      const c = p.client;
      let cursor: string | undefined;
      do {
        const page = await c.callTool({
          name: 'list_users',
          arguments: cursor ? { cursor } : {},
          _meta: meta(session),
        });
        cursor = (page.structuredContent as { nextCursor?: string }).nextCursor;
      } while (cursor);
      await c.callTool({ name: 'export_log', arguments: {}, _meta: meta(session) });
      const early = await c.callTool({ name: 'remove_users', arguments: { ids: ['u1'] }, _meta: meta(session) });
      return { early, stderr: p.stderr };
    },
  );
  // Each page but the last said more; followed cursor after cursor to the last, they are one complete read.
  assert.notEqual(removed.early.isError, true, text(removed.early));
  assert.match(removed.stderr(), /removed u1/);
  const stored = await rows(session, 5);
  assert.deepEqual(
    stored.map((r) => [r.tool_name, r.result_complete, r.result_reasons]),
    [
      ['list_users', false, ['MORE_PAGES_AVAILABLE']],
      ['list_users', false, ['MORE_PAGES_AVAILABLE']],
      ['list_users', true, []],
      ['export_log', false, ['RESULT_LIMIT_REACHED']],
      // It ran: its text result says nothing about completeness.
      ['remove_users', false, ['COMPLETENESS_UNKNOWN']],
    ],
  );
  assert.equal(stored[4]?.guard_decision, 'allowed');
  const first = stored[0]?.attributes['tooltrail.traversal.id'];
  assert.deepEqual(
    stored.slice(0, 3).map((r) => [r.attributes['tooltrail.traversal.id'], r.attributes['tooltrail.traversal.page']]),
    [
      [first, '1'],
      [first, '2'],
      [first, '3'],
    ],
  );
});

test('memory server with a policy: a delete of what a declared-complete search returned is allowed, of anything else refused', async () => {
  const memory = join(dir, 'memory-policy.jsonl');
  const policy = join(dir, 'memory-policy.yaml');
  writeFileSync(
    policy,
    [
      'tools:',
      '  search_nodes: { resource: knowledge_graph, items: entities, itemId: name, complete: declared }',
      '  delete_entities: { resource: knowledge_graph, basis: presence, targets: /entityNames }',
      '',
    ].join('\n'),
  );
  const session = `${run}-memory-policy`;
  await withProxy(
    ['--policy', policy],
    [process.execPath, serverBin('server-memory')],
    { MEMORY_FILE_PATH: memory },
    async ({ client }) => {
      await client.callTool({
        name: 'create_entities',
        arguments: { entities: ['svc-a', 'svc-b'].map((name) => ({ name, entityType: 'account', observations: [] })) },
        _meta: meta(session),
      });
      await client.callTool({ name: 'search_nodes', arguments: { query: 'svc-a' }, _meta: meta(session) });
      const unseen = await client.callTool({
        name: 'delete_entities',
        arguments: { entityNames: ['svc-b'] },
        _meta: meta(session),
      });
      assert.equal(unseen.isError, true);
      assert.match(text(unseen), /TARGETS_NOT_IN_EVIDENCE/);
      const seen = await client.callTool({
        name: 'delete_entities',
        arguments: { entityNames: ['svc-a'] },
        _meta: meta(session),
      });
      assert.notEqual(seen.isError, true, text(seen));
    },
  );
  const left = readFileSync(memory, 'utf8');
  assert.doesNotMatch(left, /"svc-a"/, 'the allowed delete reached the server');
  assert.match(left, /"svc-b"/, 'the refused one did not');
  const stored = await rows(session, 4);
  assert.deepEqual(
    stored.map((r) => [r.tool_name, r.guard_decision]),
    [
      ['create_entities', ''],
      ['search_nodes', ''],
      ['delete_entities', 'refused'],
      ['delete_entities', 'allowed'],
    ],
  );
  assert.equal(stored[1]?.result_complete, true);
});
