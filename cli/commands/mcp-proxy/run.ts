/**
 * What `tooltrail mcp-proxy` does (declared in command.ts, loaded when it runs). `-- <server command…>` runs the
 * server as a child over stdio (the client launches the proxy instead of the server); `--upstream <url>` fronts a
 * Streamable HTTP server. Runs until the client goes away (stdio) or SIGINT/SIGTERM, then flushes its spans.
 */
import { loadMcpProxyConfig, McpProxyConfigError } from '../../../mcp-proxy/config.ts';
import { startMcpProxy } from '../../../mcp-proxy/factory.ts';
import { ConfigError } from '../../../platform/connections.ts';

export interface McpProxyFlags {
  upstream?: string;
  upstreamHeader?: string[];
  host?: string;
  port?: string;
  path?: string;
  guard?: string;
  otlpEndpoint?: string;
  otlpHeader?: string[];
  policy?: string;
  serviceName?: string;
}

/** `tooltrail mcp-proxy`: a bad configuration is a ConfigError (one line), before the server is started. */
export async function mcpProxy(server: string[], flags: McpProxyFlags): Promise<void> {
  let config: ReturnType<typeof loadMcpProxyConfig>;
  try {
    config = loadMcpProxyConfig({
      command: server,
      upstreamUrl: flags.upstream,
      upstreamHeaders: flags.upstreamHeader,
      host: flags.host,
      port: flags.port,
      path: flags.path,
      guard: flags.guard,
      otlpEndpoint: flags.otlpEndpoint,
      otlpHeaders: flags.otlpHeader,
      policyFile: flags.policy,
      serviceName: flags.serviceName,
    });
  } catch (err) {
    if (err instanceof McpProxyConfigError) throw new ConfigError(err.message);
    throw err;
  }
  const proxy = await startMcpProxy(config);
  const stop = () => void proxy.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await proxy.closed;
  process.exit(0);
}
