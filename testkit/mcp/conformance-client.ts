/**
 * The client the MCP conformance suite's client mode runs (`conformance client --command "… <server-url>"`): an
 * official SDK client that, with `--through-proxy`, reaches the suite's server through an in-process
 * `tooltrail mcp-proxy --upstream <server-url>`, so the checks judge what the proxy's client side sends.
 * What it does in every scenario: initialize, list tools, call `add_numbers` when offered. The proxy observes: the
 * suite's `add_numbers` has no annotations, so MCP's defaults make it destructive and `enforce` would stop it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadMcpProxyConfig } from '../../mcp-proxy/config.ts';
import { startMcpProxy } from '../../mcp-proxy/factory.ts';

const args = process.argv.slice(2);
const throughProxy = args.includes('--through-proxy');
const serverUrl = args.filter((a) => !a.startsWith('--')).at(-1);
if (!serverUrl) throw new Error('usage: conformance-client.ts [--through-proxy] <server-url>');

const proxy = throughProxy
  ? await startMcpProxy(
      loadMcpProxyConfig({ upstreamUrl: serverUrl, port: 0, otlpEndpoint: 'none', guard: 'observe' }),
      {
        log: () => {},
      },
    )
  : undefined;
const client = new Client({ name: 'tooltrail-conformance-client', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(proxy?.describe ?? serverUrl)));
const { tools } = await client.listTools();
if (tools.some((t) => t.name === 'add_numbers'))
  await client.callTool({ name: 'add_numbers', arguments: { a: 2, b: 3 } });
await client.close();
await proxy?.close();
