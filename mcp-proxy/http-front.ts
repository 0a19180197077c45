/**
 * The client-facing Streamable HTTP endpoint: one SDK server transport and one upstream client transport per
 * client session, joined by a relay. An initialize without a session opens one; a request for a session the proxy
 * does not know is 404 (the spec's answer, so the client re-initializes); DELETE closes both sides.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Relay } from './relay.ts';

/** Largest request body accepted (the SDK's own limit for a JSON-RPC POST). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpFrontOptions {
  host: string;
  port: number;
  path: string;
  upstreamUrl: string;
  upstreamHeaders: Record<string, string>;
  /** Joins the two transports of a new session; resolves once both are started. */
  join(
    downstream: StreamableHTTPServerTransport,
    upstream: StreamableHTTPClientTransport,
    sessionId: string,
  ): Promise<Relay>;
  log: (line: string) => void;
}

export interface HttpFront {
  url: string;
  sessionCount(): number;
  close(): Promise<void>;
}

export async function startHttpFront(o: HttpFrontOptions): Promise<HttpFront> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; relay: Relay }>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    if (url.pathname !== o.path) return answer(res, 404, -32000, `not found: the MCP endpoint is ${o.path}`);
    const sessionId = header(req, 'mcp-session-id');
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return answer(res, 404, -32001, 'session not found: initialize a new session');
      const body = req.method === 'POST' ? await readJson(req, res) : undefined;
      if (req.method === 'POST' && body === NO_BODY) return;
      await session.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== 'POST') return answer(res, 400, -32000, 'missing Mcp-Session-Id: initialize first');
    const body = await readJson(req, res);
    if (body === NO_BODY) return;
    if (!isInitialize(body))
      return answer(res, 400, -32000, 'missing Mcp-Session-Id: the first request must be initialize');
    const id = randomUUID();
    const downstream = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    const upstream = new StreamableHTTPClientTransport(new URL(o.upstreamUrl), {
      requestInit: { headers: o.upstreamHeaders },
    });
    const relay = await o.join(downstream, upstream, id);
    sessions.set(id, { transport: downstream, relay });
    downstream.onclose = chain(downstream.onclose, () => sessions.delete(id));
    await downstream.handleRequest(req, res, body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      o.log(`tooltrail mcp-proxy: ${req.method} ${req.url}: ${err.message}`);
      if (!res.headersSent) answer(res, 500, -32603, `tooltrail mcp-proxy: ${err.message}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${o.host}:${address.port}${o.path}`,
    sessionCount: () => sessions.size,
    async close() {
      await Promise.allSettled([...sessions.values()].map((s) => s.relay.close()));
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const NO_BODY = Symbol('no body');

/** The parsed JSON body, or NO_BODY once an error was answered (too large, not JSON). */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      answer(res, 413, -32600, `request body larger than ${MAX_BODY_BYTES} bytes`);
      return NO_BODY;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    answer(res, 400, -32700, 'parse error: the body is not JSON');
    return NO_BODY;
  }
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => (m as { method?: unknown } | null)?.method === 'initialize');
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function answer(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}
