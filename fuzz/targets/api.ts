/**
 * The reconstruction and verification API (`tooltrail serve-api`) through fastify `inject()` against a real,
 * empty ClickHouse database: random paths, ids, query strings, methods and headers, each with and without an
 * `Authorization: Bearer` header. Rules: no 5xx for a malformed request, no exception out of the app.
 */
import type { FastifyInstance } from 'fastify';
import { buildApiServer } from '../../cli/commands/reconstruct/api-server.ts';
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import type { SchemaConfig } from '../../schema/config.ts';
import { freshDatabase } from '../../testkit/services.ts';
import { clip, type FuzzTarget, TargetReport } from '../report.ts';
import { Rng, uri } from '../rng.ts';

const SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:@/+=-';

function safeId(rng: Rng, max: number): string {
  let s = rng.pick(['a', 'Z', '0', '9']);
  for (let i = rng.int(0, max); i > 0; i--) s += SAFE[rng.int(0, SAFE.length - 1)];
  return s;
}

/** An id: plausible, of the wrong length or charset, an injection attempt, or raw bytes. */
function id(rng: Rng, kind: 'session' | 'trace' | 'finding'): string {
  return rng.pick<() => string>([
    () => (kind === 'trace' ? rng.hex(16) : kind === 'finding' ? rng.hex(rng.int(4, 64)) : safeId(rng, 40)),
    () => (kind === 'trace' ? rng.hex(16).toUpperCase() : safeId(rng, 199)),
    () => safeId(rng, rng.int(200, 1500)),
    () => rng.hex(rng.int(0, 80)),
    () => rng.string(30),
    () => "x' OR 1=1 --",
    () => 'a{tenant:String}',
    () => '..',
    () => '%',
    () => '',
    () => ' ',
  ])();
}

function time(rng: Rng): string {
  return rng.pick<() => string>([
    () => new Date(Date.UTC(2026, 0, 1) + rng.int(-1e9, 1e9) * 1000).toISOString(),
    () => '2026-11-30T00:00Z',
    () => '2026-11-30T00:00:00.123456789+05:30',
    () =>
      `${String(rng.int(0, 9999)).padStart(4, '0')}-${String(rng.int(0, 19)).padStart(2, '0')}-${String(rng.int(0, 39)).padStart(2, '0')}T${String(rng.int(0, 29)).padStart(2, '0')}:${String(rng.int(0, 69)).padStart(2, '0')}Z`,
    () => '0000-01-01T00:00Z',
    () => '0001-01-01T00:00Z',
    () => '1899-12-31T00:00Z',
    () => '1970-01-01T00:00Z',
    () => '2106-02-07T06:28Z',
    () => '2299-12-31T00:00Z',
    () => '9999-12-31T23:59:59.999999999Z',
    () => '2026-11-30T00:00+99:99',
    () => '-24h',
    () => rng.string(20),
  ])();
}

export interface ApiRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'DELETE' | 'OPTIONS';
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** For /v1/verify: the from/to sent (the open bug below depends on them). */
  verify?: { from?: string; to?: string };
}

export function apiRequest(rng: Rng, token: string | undefined): ApiRequest {
  const route = rng.int(0, 9);
  let url: string;
  let verify: ApiRequest['verify'];
  const query: string[] = [];
  const add = (k: string, v: string) => query.push(`${uri(k)}=${rng.bool(0.9) ? uri(v) : v}`);
  if (route <= 2) {
    const kind = rng.pick(['session', 'trace', 'finding'] as const);
    url = `/v1/reconstruct/${kind}s/${rng.bool(0.9) ? uri(id(rng, kind)) : id(rng, kind)}`;
    if (kind !== 'finding' && rng.bool(0.5)) add('tenant', rng.bool(0.6) ? safeId(rng, 20) : rng.string(20));
    if (rng.bool(0.4)) add('format', rng.pick(['json', 'html', 'HTML', 'xml', '', 'json,html']));
  } else if (route <= 6) {
    url = '/v1/verify';
    verify = {};
    if (rng.bool(0.7)) {
      verify.from = time(rng);
      add('from', verify.from);
    }
    if (rng.bool(0.7)) {
      verify.to = time(rng);
      add('to', verify.to);
    }
    if (rng.bool(0.4)) add('tenant', rng.bool(0.6) ? safeId(rng, 20) : rng.string(20));
  } else if (route === 7) {
    url = rng.pick(['/v1/reconstruct/schema', '/v1/reconstruct', '/v1/reconstruct/sessions/', '/v1/verify/', '/']);
  } else {
    url = `/${rng.pick(['v1', 'v2', 'v1/reconstruct', 'v1/verify'])}/${uri(rng.string(12))}`;
  }
  if (rng.bool(0.15)) add(rng.pick(['tenant', 'format', 'from', 'to', rng.string(5)]), rng.string(10)); // repeated/extra
  if (rng.bool(0.05)) query.push(rng.pick(['%', '%zz', '&', '=', 'tenant', 'tenant[]=a', 'tenant[x]=a']));
  if (query.length) url += `?${query.join('&')}`;
  const headers: Record<string, string> = {};
  if (token !== undefined)
    headers.authorization = rng.bool(0.95)
      ? `Bearer ${token}`
      : rng.pick(['Bearer', 'Basic Og==', `bearer  ${token} `]);
  if (rng.bool(0.5) && route <= 6 && token === API_TOKEN) add('tenant', API_TENANT);
  if (rng.bool(0.2)) headers.accept = rng.pick(['text/html', 'application/json', '*/*', 'image/png']);
  let payload: string | undefined;
  if (rng.bool(0.1)) {
    headers['content-type'] = rng.pick(['application/json', 'text/plain', 'application/x-protobuf', 'x/y']);
    payload = rng.pick(['{', '{}', rng.string(20), '']);
  }
  const method = rng.bool(0.85) ? 'GET' : rng.pick(['HEAD', 'POST', 'DELETE', 'OPTIONS'] as const);
  return { method, url, headers, ...(payload !== undefined ? { payload } : {}), ...(verify ? { verify } : {}) };
}

export const API_TOKEN = 'fuzz-api-token-0123456789abcdef';
export const API_TENANT = 'fuzz-tenant';

/**
 * `buildApiServer` with bearer authentication (API_TOKEN -> API_TENANT) when this checkout's API has it
 * (platform/auth/tokens.ts, being added alongside this fuzzer), else as it was. The module is looked up at run
 * time so the fuzzer runs against either version of the API.
 */
export async function buildFuzzApiServer(ch: ClickHouseClient, schema: SchemaConfig): Promise<FastifyInstance> {
  type Directory = new (entries: { token: string; tenant: string }[]) => unknown;
  const tokensModule = '../../platform/auth/tokens.ts';
  let auth: { mode: 'bearer'; tokens: unknown } | undefined;
  try {
    const { TokenDirectory } = (await import(tokensModule)) as { TokenDirectory: Directory };
    auth = { mode: 'bearer', tokens: new TokenDirectory([{ token: API_TOKEN, tenant: API_TENANT }]) };
  } catch {
    auth = undefined;
  }
  const options = { ch, schema, key: 'fuzz-digest-key', ...(auth ? { auth } : {}) };
  return buildApiServer(options as Parameters<typeof buildApiServer>[0]);
}

/** Runs `cases` requests against an app: with the valid bearer token, a wrong one, garbage, or none. */
export async function fuzzApi(app: FastifyInstance, cases: number, seed: number, report: TargetReport): Promise<void> {
  const rng = new Rng(seed);
  for (let i = 0; i < cases; i++) {
    const token = rng.bool(0.5)
      ? API_TOKEN
      : rng.pick([
          undefined,
          'fuzz-api-token',
          '',
          API_TOKEN.toUpperCase(),
          rng.string(30).replace(/[^\x21-\x7e]/g, 'x'),
        ]);
    const r = apiRequest(rng, token);
    const input = `${r.method} ${r.url} ${JSON.stringify(r.headers)}${r.payload !== undefined ? ` body=${clip(r.payload, 40)}` : ''}`;
    report.cases++;
    try {
      const res = await app.inject({
        method: r.method,
        url: r.url,
        headers: r.headers,
        ...(r.payload !== undefined ? { payload: r.payload } : {}),
      });
      report.outcome(String(res.statusCode));
      if (res.statusCode >= 500) {
        report.violation({ kind: 'server_error', index: i, input, answer: `${res.statusCode} ${clip(res.body)}` });
      }
    } catch (err) {
      report.violation({ kind: 'crash', index: i, input, answer: clip(String((err as Error).stack)) });
    }
  }
}

export interface ApiDatabase {
  ch: ClickHouseClient;
  schema: SchemaConfig;
}

/** The target as `npm run fuzz` runs it: a fresh database with every migration, dropped afterwards. */
export const apiTarget: FuzzTarget = {
  name: 'api',
  async run(cases, seed) {
    const db = await freshDatabase('tt_fuzz_api');
    const report = new TargetReport('api');
    try {
      const app = await buildFuzzApiServer(db.ch, db.schema);
      try {
        await fuzzApi(app, cases, seed, report);
      } finally {
        await app.close();
      }
    } finally {
      await db.drop().catch(() => {});
    }
    return report;
  },
};
