/**
 * The proxy's configuration: plain data, defaults from named constants, and one validation step that reports every
 * problem at once with the exact key (the CLI maps its flags onto these keys).
 */

import { DEFAULT_EVIDENCE_WINDOW, PolicyError, type PolicyFile } from '../contract/index.ts';
import { loadPolicyFile } from '../platform/tool-policy-file.ts';
import { GUARD_MODES, type GuardMode } from './guard-step.ts';

export const DEFAULT_OTLP_ENDPOINT = 'http://127.0.0.1:4318/v1/traces';
export const DEFAULT_LISTEN_HOST = '127.0.0.1';
export const DEFAULT_LISTEN_PORT = 8808;
export const DEFAULT_LISTEN_PATH = '/mcp';
export const DEFAULT_SERVICE_NAME = 'tooltrail-mcp-proxy';

export type Upstream =
  /** `-- <command> [args…]`: the server runs as a child process speaking stdio; the client sees stdio. */
  | { kind: 'stdio'; command: string; args: string[] }
  /** `--upstream <url>`: a Streamable HTTP server; the client sees Streamable HTTP at `listen`. */
  | { kind: 'http'; url: string; headers: Record<string, string> };

export interface McpProxyConfig {
  upstream: Upstream;
  /** Where the client connects when the upstream is HTTP. */
  listen: { host: string; port: number; path: string };
  /** `enforce` stops a destructive call on incomplete evidence, `review` holds it for review, `observe` only records. */
  guard: GuardMode;
  /** OTLP/HTTP (protobuf) traces endpoint of the collector, and headers (a bearer token). `none`: no export. */
  otlp: { endpoint: string | 'none'; headers: Record<string, string> };
  /** `service.name` of the proxy's spans. */
  serviceName: string;
  policy: PolicyFile;
}

export interface McpProxyConfigInput {
  command?: string[];
  upstreamUrl?: string;
  upstreamHeaders?: string[];
  host?: string;
  port?: string | number;
  path?: string;
  guard?: string;
  otlpEndpoint?: string;
  otlpHeaders?: string[];
  serviceName?: string;
  policyFile?: string;
  /** A policy given as data (tests, embedding); the file wins when both are given. */
  policy?: PolicyFile;
}

export class McpProxyConfigError extends Error {
  override readonly name = 'McpProxyConfigError';
}

export function defaultPolicy(): PolicyFile {
  return { evidenceWindow: DEFAULT_EVIDENCE_WINDOW, tools: {} };
}

/** Every problem at once, each naming its key: `mcp-proxy.guard: ...; mcp-proxy.otlp.endpoint: ...`. */
export function loadMcpProxyConfig(input: McpProxyConfigInput): McpProxyConfig {
  const problems: string[] = [];
  const command = input.command ?? [];
  let upstream: Upstream | undefined;
  if (command.length > 0 && input.upstreamUrl !== undefined) {
    problems.push('mcp-proxy.upstream: give either `-- <server command…>` (stdio) or `--upstream <url>`, not both');
  } else if (command.length > 0) {
    upstream = { kind: 'stdio', command: command[0] as string, args: command.slice(1) };
  } else if (input.upstreamUrl !== undefined) {
    if (!isHttpUrl(input.upstreamUrl))
      problems.push(`mcp-proxy.upstream.url: not an http(s) URL: ${input.upstreamUrl}`);
    upstream = {
      kind: 'http',
      url: input.upstreamUrl,
      headers: headerMap(input.upstreamHeaders, 'mcp-proxy.upstream.headers', problems),
    };
  } else {
    problems.push(
      'mcp-proxy.upstream: missing: give `-- <server command…>` (stdio) or `--upstream <url>` (Streamable HTTP)',
    );
  }
  const port = input.port === undefined ? DEFAULT_LISTEN_PORT : Number(input.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    problems.push(`mcp-proxy.listen.port: not a port: ${input.port}`);
  const path = input.path ?? DEFAULT_LISTEN_PATH;
  if (!path.startsWith('/')) problems.push(`mcp-proxy.listen.path: must start with /: ${path}`);
  const guard = (input.guard ?? 'enforce') as GuardMode;
  if (!GUARD_MODES.includes(guard))
    problems.push(`mcp-proxy.guard: must be one of ${GUARD_MODES.join(', ')}: ${input.guard}`);
  const endpoint = input.otlpEndpoint ?? DEFAULT_OTLP_ENDPOINT;
  if (endpoint !== 'none' && !isHttpUrl(endpoint))
    problems.push(`mcp-proxy.otlp.endpoint: not an http(s) URL (or none): ${endpoint}`);
  const otlpHeaders = headerMap(input.otlpHeaders, 'mcp-proxy.otlp.headers', problems);
  let policy = input.policy ?? defaultPolicy();
  if (input.policyFile !== undefined) {
    try {
      policy = loadPolicyFile(input.policyFile);
    } catch (err) {
      if (!(err instanceof PolicyError)) throw err;
      problems.push(...err.problems.map((p) => `mcp-proxy.policy: ${p}`));
    }
  }
  if (problems.length > 0 || !upstream) throw new McpProxyConfigError(problems.join('; '));
  return {
    upstream,
    listen: { host: input.host ?? DEFAULT_LISTEN_HOST, port, path },
    guard,
    otlp: { endpoint, headers: otlpHeaders },
    serviceName: input.serviceName ?? DEFAULT_SERVICE_NAME,
    policy: { evidenceWindow: policy.evidenceWindow ?? DEFAULT_EVIDENCE_WINDOW, tools: policy.tools },
  };
}

/** `Name: value` or `name=value` pairs. */
function headerMap(list: string[] | undefined, key: string, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of list ?? []) {
    const m = /^([A-Za-z0-9-]+)\s*[:=]\s*(.+)$/.exec(entry);
    if (!m) {
      problems.push(`${key}: expected "Name: value": ${entry.replace(/[:=].*/, ':…')}`);
      continue;
    }
    out[(m[1] as string).toLowerCase()] = (m[2] as string).trim();
  }
  return out;
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
