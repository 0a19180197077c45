/**
 * A stdio MCP server of the repo's own, built on the SDK's McpServer: `list_users` pages with `nextCursor`,
 * `export_log` cuts its text at 2,000 chars (the policy declares the limit), `remove_users` is destructive.
 * Removed ids are printed to stderr as `removed <id>` so a test can tell the call reached it.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const users = Array.from({ length: 5 }, (_, i) => ({ id: `u${i + 1}` }));
const PAGE = 2;
const server = new McpServer({ name: 'tooltrail-paging-fixture', version: '1.0.0' });
server.registerTool(
  'list_users',
  { inputSchema: { cursor: z.string().optional() }, annotations: { readOnlyHint: true } },
  async ({ cursor }) => {
    const start = cursor ? Number(cursor) : 0;
    const page = users.slice(start, start + PAGE);
    const next = start + PAGE < users.length ? String(start + PAGE) : undefined;
    const structured = { users: page, ...(next ? { nextCursor: next } : { hasMore: false }) };
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  },
);
server.registerTool('export_log', { inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: 'text', text: 'x'.repeat(2_000) }],
}));
server.registerTool(
  'remove_users',
  { inputSchema: { ids: z.array(z.string()) }, annotations: { readOnlyHint: false, destructiveHint: true } },
  async ({ ids }) => {
    for (const id of ids) process.stderr.write(`removed ${id}\n`);
    return { content: [{ type: 'text', text: `removed ${ids.length}` }] };
  },
);
await server.connect(new StdioServerTransport());
