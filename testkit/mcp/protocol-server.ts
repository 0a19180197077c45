/**
 * A Streamable HTTP MCP server of the repo's own (the SDK's McpServer, one per session) whose tools exercise what
 * flows back during a call: progress notifications, log messages, a sampling request and an elicitation request to
 * the client. The conformance suite's tools-call-with-progress/-logging/-sampling/-elicitation scenarios call these
 * names; the server-everything package does not have them. All are read-only, so a guard lets them through.
 *   PORT=3001 node --import tsx testkit/mcp/protocol-server.ts
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateMessageResultSchema, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const readOnly = { annotations: { readOnlyHint: true } };

function build(): McpServer {
  const server = new McpServer(
    { name: 'tooltrail-protocol-fixture', version: '1.0.0' },
    { capabilities: { logging: {} } },
  );
  server.registerTool('test_tool_with_progress', { inputSchema: {}, ...readOnly }, async (_args, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; token !== undefined && i <= 3; i += 1) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: i * 33, total: 100 },
      });
    }
    return { content: [{ type: 'text', text: 'progress sent' }] };
  });
  server.registerTool('test_tool_with_logging', { inputSchema: {}, ...readOnly }, async (_args, extra) => {
    for (const data of ['starting', 'working', 'done']) {
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data } });
    }
    return { content: [{ type: 'text', text: 'logged' }] };
  });
  // Requests to the client go through `extra`, so they travel on the stream of the call that made them.
  server.registerTool(
    'test_sampling',
    { inputSchema: { prompt: z.string() }, ...readOnly },
    async ({ prompt }, extra) => {
      const answer = await extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 50 },
        },
        CreateMessageResultSchema,
      );
      return { content: [{ type: 'text', text: `the client's model said: ${JSON.stringify(answer.content)}` }] };
    },
  );
  server.registerTool(
    'test_elicitation',
    { inputSchema: { message: z.string() }, ...readOnly },
    async ({ message }, extra) => {
      const requestedSchema = {
        type: 'object' as const,
        properties: { username: { type: 'string' as const }, email: { type: 'string' as const } },
        required: ['username'],
      };
      const answer = await extra.sendRequest(
        { method: 'elicitation/create', params: { message, requestedSchema } },
        ElicitResultSchema,
      );
      return {
        content: [{ type: 'text', text: `elicitation ${answer.action}: ${JSON.stringify(answer.content ?? {})}` }],
      };
    },
  );
  return server;
}

const sessions = new Map<string, StreamableHTTPServerTransport>();
async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

const http = createServer(async (req, res) => {
  const id = req.headers['mcp-session-id'];
  const parsed = req.method === 'POST' ? await body(req) : undefined;
  let transport = typeof id === 'string' ? sessions.get(id) : undefined;
  if (!transport) {
    if (typeof id === 'string' || req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const t = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sid) => {
        sessions.set(sid, t);
      },
    });
    t.onclose = () => {
      if (t.sessionId) sessions.delete(t.sessionId);
    };
    await build().connect(t);
    transport = t;
  }
  await transport.handleRequest(req, res, parsed);
});
http.listen(Number(process.env.PORT ?? 3001), '127.0.0.1', () => {
  process.stderr.write(`protocol fixture listening on ${process.env.PORT ?? 3001}\n`);
});
