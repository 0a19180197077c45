/**
 * Builds the proxy from its configuration: stdio in front of a child process (`-- <command…>`), or Streamable HTTP
 * in front of an HTTP server (`--upstream <url>`), with the tracer, the guard step and the conversations shared by
 * every connection.
 */
import type { Readable, Writable } from 'node:stream';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { TracerProvider } from '@opentelemetry/api';
import type { McpProxyConfig } from './config.ts';
import { createGuardStep, type GuardStep } from './guard-step.ts';
import { startHttpFront } from './http-front.ts';
import { type Relay, startRelay } from './relay.ts';
import { createConversations, newConnectionConversationId } from './session.ts';
import { createProxyTracing } from './tracing.ts';

export const INSTRUMENTATION_SCOPE = 'tooltrail-mcp-proxy';

export interface McpProxyDeps {
  /** Where spans go (tests: an in-memory exporter); default: OTLP to `config.otlp`. */
  tracerProvider?: TracerProvider;
  /** stdio mode: the client's side (default process.stdin / process.stdout). */
  stdin?: Readable;
  stdout?: Writable;
  /** Diagnostics; stderr by default (stdout carries the protocol on stdio). */
  log?: (line: string) => void;
}

export interface RunningProxy {
  /** stdio: the connection's conversation id. HTTP: the URL clients connect to. */
  describe: string;
  /** Resolves when the proxy stopped (stdio: either side closed). */
  closed: Promise<void>;
  /** Requests still waiting for an answer, over every connection. */
  pendingCount(): number;
  close(): Promise<void>;
}

export async function startMcpProxy(config: McpProxyConfig, deps: McpProxyDeps = {}): Promise<RunningProxy> {
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const tracing = deps.tracerProvider ? undefined : createProxyTracing(config);
  const provider = deps.tracerProvider ?? (tracing as NonNullable<typeof tracing>).provider;
  const tracer = provider.getTracer(INSTRUMENTATION_SCOPE, '0.1.0');
  const guard: GuardStep = createGuardStep({ mode: config.guard, evidenceWindow: config.policy.evidenceWindow ?? 50 });
  const conversations = createConversations();
  const relays = new Set<Relay>();
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const common = { tracer, policy: config.policy, guard, conversations, log };
  const finish = async () => {
    await tracing
      ?.shutdown()
      .catch((err: Error) => log(`tooltrail mcp-proxy: span export at shutdown: ${err.message}`));
    resolveClosed();
  };

  if (config.upstream.kind === 'stdio') {
    const conversationId = newConnectionConversationId();
    const upstream = new StdioClientTransport({
      command: config.upstream.command,
      args: config.upstream.args,
      // The server gets the environment the client gave the proxy (its keys, its paths), as if launched directly.
      env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
      stderr: 'inherit',
    });
    const stdin = deps.stdin ?? process.stdin;
    const downstream = new StdioServerTransport(stdin, deps.stdout ?? process.stdout);
    const relay = await startRelay({
      ...common,
      downstream,
      upstream,
      connectionConversationId: conversationId,
      networkTransport: 'pipe',
      onClosed: () => void finish(),
    });
    relays.add(relay);
    // The client closing its end of the pipe is the end of the session.
    stdin.once('end', () => void relay.close());
    log(
      `tooltrail mcp-proxy: stdio in front of \`${config.upstream.command}\`; conversation ${conversationId}; guard ${config.guard}`,
    );
    return {
      describe: conversationId,
      closed,
      pendingCount: () => relay.pendingCount(),
      close: async () => {
        await relay.close();
        await closed;
      },
    };
  }

  const upstreamUrl = config.upstream.url;
  const front = await startHttpFront({
    ...config.listen,
    upstreamUrl,
    upstreamHeaders: config.upstream.headers,
    log,
    async join(downstream, upstream, sessionId) {
      const conversationId = newConnectionConversationId();
      log(`tooltrail mcp-proxy: session ${sessionId}: conversation ${conversationId}`);
      const relay = await startRelay({
        ...common,
        downstream,
        upstream,
        connectionConversationId: conversationId,
        networkTransport: 'tcp',
        sessionId,
        onClosed: () => relays.delete(relay),
      });
      relays.add(relay);
      return relay;
    },
  });
  log(`tooltrail mcp-proxy: Streamable HTTP on ${front.url} in front of ${upstreamUrl}; guard ${config.guard}`);
  return {
    describe: front.url,
    closed,
    pendingCount: () => [...relays].reduce((n, r) => n + r.pendingCount(), 0),
    close: async () => {
      await front.close();
      await finish();
    },
  };
}
