/**
 * An official SDK client talking to a real MCP server through the real `tooltrail mcp-proxy` command (a child
 * process over stdio), for tests, the bench and the demo. The server's and the proxy's stderr are kept.
 */
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const TOOLTRAIL_BIN = resolve(ROOT, 'bin/tooltrail.js');
export const serverBin = (pkg: 'server-memory' | 'server-filesystem' | 'server-everything') =>
  resolve(ROOT, `node_modules/@modelcontextprotocol/${pkg}/dist/index.js`);
export const PAGING_SERVER = resolve(ROOT, 'testkit/mcp/paging-server.ts');
export const INVENTORY_SERVER = resolve(ROOT, 'testkit/mcp/inventory-server.ts');

export interface ProxiedClient {
  client: Client;
  /** What the proxy and the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export interface ProxyRun {
  /** The server command and arguments (after `--`). */
  server: string[];
  /** Proxy flags before `--` (`--guard observe`, `--policy f`, `--otlp-endpoint …`). */
  flags?: string[];
  env?: Record<string, string>;
}

export async function connectThroughProxy(run: ProxyRun): Promise<ProxiedClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TOOLTRAIL_BIN, 'mcp-proxy', ...(run.flags ?? []), '--', ...run.server],
    env: { ...(process.env as Record<string, string>), ...(run.env ?? {}) },
    stderr: 'pipe',
    cwd: ROOT,
  });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const client = new Client({ name: 'tooltrail-test-client', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => err,
    async close() {
      await client.close();
    },
  };
}

/** A direct connection to the same server, without the proxy (the bench's baseline, the conformance's bare run). */
export async function connectDirect(server: string[], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: server[0] as string,
    args: server.slice(1),
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
    cwd: ROOT,
  });
  const client = new Client({ name: 'tooltrail-test-client', version: '1.0.0' });
  await client.connect(transport);
  return client;
}
