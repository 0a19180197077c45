/**
 * A stdio MCP server of the repo's own, built on the SDK's McpServer, serving the paged inventory of
 * testkit/paging-inventory.ts: `list_unowned_accounts` pages by opaque cursor and `list_accounts_by_page` by page
 * number, each page a completeness-contract envelope in `structuredContent` with its snapshot; `delete_accounts` and
 * `mark_control_compliant` are destructive and print `deleted <id>` / `marked <control>` to stderr so a test can
 * tell a call reached it. Between calls a test may rebuild the index or expire the cursors by writing
 * `{ "snapshot": "inv-78" }` or `{ "expire": 1 }` to the file named by INVENTORY_CONTROL.
 */
import { existsSync, readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { PagingInventory, pageEnvelope } from '../paging-inventory.ts';

const byCursor = new PagingInventory();
const byNumber = new PagingInventory({ numbered: true });
let expired = 0;

/** Applies what the test asked for since the last call. */
function control(): void {
  const file = process.env.INVENTORY_CONTROL;
  if (!file || !existsSync(file)) return;
  const asked = JSON.parse(readFileSync(file, 'utf8')) as { snapshot?: string; expire?: number };
  for (const inventory of [byCursor, byNumber]) if (asked.snapshot) inventory.reindex(asked.snapshot);
  for (; expired < (asked.expire ?? 0); expired++)
    for (const inventory of [byCursor, byNumber]) inventory.expireCursors();
}

const listed = (inventory: PagingInventory, cursor: string | undefined) => {
  control();
  const envelope = pageEnvelope(inventory.page(cursor));
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(envelope) }],
    structuredContent: envelope as unknown as Record<string, unknown>,
  };
};

const server = new McpServer({ name: 'tooltrail-inventory-fixture', version: '1.0.0' });
server.registerTool(
  'list_unowned_accounts',
  { inputSchema: { cursor: z.string().optional() }, annotations: { readOnlyHint: true } },
  async ({ cursor }) => listed(byCursor, cursor),
);
server.registerTool(
  'list_accounts_by_page',
  { inputSchema: { page: z.number().int().positive().optional() }, annotations: { readOnlyHint: true } },
  async ({ page }) => listed(byNumber, page === undefined ? undefined : String(page)),
);
server.registerTool(
  'delete_accounts',
  { inputSchema: { ids: z.array(z.string()) }, annotations: { readOnlyHint: false, destructiveHint: true } },
  async ({ ids }) => {
    for (const id of ids) process.stderr.write(`deleted ${id}\n`);
    return { content: [{ type: 'text', text: `deleted ${ids.length}` }] };
  },
);
server.registerTool(
  'mark_control_compliant',
  { inputSchema: { control: z.string() }, annotations: { readOnlyHint: false, destructiveHint: true } },
  async ({ control: name }) => {
    process.stderr.write(`marked ${name}\n`);
    return { content: [{ type: 'text', text: `marked ${name}` }] };
  },
);
await server.connect(new StdioServerTransport());
