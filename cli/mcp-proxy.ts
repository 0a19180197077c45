/**
 * `tooltrail mcp-proxy`: stands between any MCP client and any MCP server. `-- <server command…>` runs the server as
 * a child over stdio (the client launches the proxy instead of the server); `--upstream <url>` fronts a Streamable
 * HTTP server. Runs until the client goes away (stdio) or SIGINT/SIGTERM, then flushes its spans.
 */
import type { Command } from 'commander';
import type { loadMcpProxyConfig } from '../mcp-proxy/config.ts';

interface McpProxyFlags {
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

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerMcpProxyCommand(program: Command): void {
  program
    .command('mcp-proxy')
    .description('record every MCP call as spans and stop destructive calls on incomplete evidence')
    .argument('[server...]', 'after --: the stdio server command and its arguments')
    .option('--upstream <url>', 'a Streamable HTTP MCP server to front (instead of a command)')
    .option('--upstream-header <header>', '"Name: value" sent to the upstream server (repeatable)', collect)
    .option('--host <address>', 'HTTP mode: address to listen on (default 127.0.0.1)')
    .option('--port <port>', 'HTTP mode: port to listen on (default 8808)')
    .option('--path <path>', 'HTTP mode: endpoint path (default /mcp)')
    .option('--guard <mode>', 'enforce | review | observe (default enforce)')
    .option('--otlp-endpoint <url>', 'OTLP/HTTP traces endpoint, or none (default http://127.0.0.1:4318/v1/traces)')
    .option(
      '--otlp-header <header>',
      '"Name: value" for the collector, e.g. "Authorization: Bearer <token>" (repeatable)',
      collect,
    )
    .option('--policy <file>', 'per-tool policy file (YAML or JSON)')
    .option('--service-name <name>', 'service.name of the spans (default tooltrail-mcp-proxy)')
    .action(async (server: string[], flags: McpProxyFlags) => {
      // Loaded when the command runs, so that `tooltrail --help` and the other commands do not pay for it.
      const { loadMcpProxyConfig, McpProxyConfigError } = await import('../mcp-proxy/config.ts');
      const { startMcpProxy } = await import('../mcp-proxy/factory.ts');
      const { ConfigError } = await import('../platform/connections.ts');
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
    });
}
