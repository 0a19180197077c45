/**
 * `tooltrail mcp-proxy`: stands between any MCP client and any MCP server (mcp-proxy/README.md). The options are
 * declared here; what the command does loads when it runs (run.ts).
 */
import type { Command } from 'commander';
import type { McpProxyFlags } from './run.ts';

const run = () => import('./run.ts');
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
    .action(async (server: string[], flags: McpProxyFlags) => (await run()).mcpProxy(server, flags));
}
