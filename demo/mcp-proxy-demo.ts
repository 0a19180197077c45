/**
 * `npm run demo:mcp-proxy`: a stock MCP server from npm (`@modelcontextprotocol/server-memory`) behind
 * `tooltrail mcp-proxy`, driven by the official SDK client the way a desktop assistant would: it stores two
 * service accounts, searches one, and deletes both. The memory server says nothing about completeness, so the
 * guard stops the delete before it reaches the server; the model reads why. Then the same calls with
 * `--guard observe`: the delete goes through and the span records what the guard would have decided. Spans go
 * through the collector into ClickHouse (the whole pipeline in this process), and the demo prints the stored rows.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack } from '../cli/stack/stack.ts';
import type { SchemaConfig } from '../schema/config.ts';
import { loadServicesConfig } from '../services/config.ts';
import { connectThroughProxy, serverBin } from '../testkit/mcp/proxy-client.ts';

const TENANT = 'acme';
const DATABASE = 'tooltrail_demo_mcp';
const out = (l: string) => console.log(l);

const services = loadServicesConfig();
const token = randomBytes(16).toString('hex');
const schema: SchemaConfig = { database: DATABASE, retentionDays: 400 };
mkdirSync(join(services.home, 'demo'), { recursive: true });
const stack = await startStack({
  services,
  schema,
  mode: 'direct',
  collector: { host: '127.0.0.1', port: 0, tokens: [{ token, tenant: TENANT }] },
  evaluateEverySeconds: 3_600,
  freshDatabase: true,
  pagesFile: join(services.home, 'demo', 'mcp-pages.jsonl'),
  env: process.env,
  log: (l) => out(`  ${l}`),
});
const memory = join(mkdtempSync(join(tmpdir(), 'tt-mcp-demo-')), 'memory.jsonl');
const text = (r: unknown) => ((r as { content?: { text?: string }[] }).content ?? [])[0]?.text ?? '';

async function conversation(guard: 'enforce' | 'observe', session: string): Promise<void> {
  out('');
  out(
    `━━ the memory server behind tooltrail mcp-proxy --guard ${guard} ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━`,
  );
  const p = await connectThroughProxy({
    server: [process.execPath, serverBin('server-memory')],
    flags: [
      '--guard',
      guard,
      '--otlp-endpoint',
      `${stack.collectorUrl}/v1/traces`,
      '--otlp-header',
      `Authorization: Bearer ${token}`,
    ],
    env: { MEMORY_FILE_PATH: memory },
  });
  const meta = { 'gen_ai.conversation.id': session };
  const { client } = p;
  await client.callTool({
    name: 'create_entities',
    arguments: {
      entities: [
        { name: 'svc-backup', entityType: 'service_account', observations: ['owner: none'] },
        { name: 'svc-billing', entityType: 'service_account', observations: ['owner: none'] },
      ],
    },
    _meta: meta,
  });
  out('  model → create_entities svc-backup, svc-billing');
  await client.callTool({ name: 'search_nodes', arguments: { query: 'svc-backup' }, _meta: meta });
  out('  model → search_nodes "svc-backup"     (the server says nothing about completeness)');
  const del = await client.callTool({
    name: 'delete_entities',
    arguments: { entityNames: ['svc-backup', 'svc-billing'] },
    _meta: meta,
  });
  out('  model → delete_entities svc-backup, svc-billing');
  out(del.isError ? `  ✗ stopped; the model reads:\n    ${text(del)}` : `  ✓ forwarded to the server: ${text(del)}`);
  await p.close();
  const left = readFileSync(memory, 'utf8');
  out(
    `  the server's store now holds: ${['svc-backup', 'svc-billing'].filter((n) => left.includes(`"${n}"`)).join(', ') || 'neither account'}`,
  );
}

try {
  await conversation('enforce', 'demo-mcp-enforce');
  await conversation('observe', 'demo-mcp-observe');
  out('');
  out(
    '━━ what ClickHouse stored (tool_calls) ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━',
  );
  const deadline = Date.now() + 15_000;
  let rows: Record<string, unknown>[] = [];
  while (Date.now() < deadline) {
    const rs = await stack.ch.query({
      query: `SELECT session_id, sequence, tool_name, effect, result_complete, result_reasons, guard_decision,
                has(event_names, 'tooltrail.guard.unenforced') AS observed
              FROM {db:Identifier}.tool_calls WHERE tenant = {t:String} ORDER BY session_id, sequence`,
      query_params: { db: DATABASE, t: TENANT },
      format: 'JSONEachRow',
    });
    rows = await rs.json<Record<string, unknown>>();
    if (rows.length >= 6) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  for (const r of rows) {
    const decision = r.guard_decision || (r.observed ? '(observe: would have refused)' : '');
    out(
      `  ${String(r.session_id).padEnd(18)} #${r.sequence} ${String(r.tool_name).padEnd(16)} ${String(r.effect).padEnd(8)} complete=${r.result_complete} ${(r.result_reasons as string[]).join(',').padEnd(22)} ${decision}`,
    );
  }
} finally {
  await stack.stop();
}
