/**
 * The one ClickHouse client module: every stage gets its client here, so switching transport or adding
 * settings is a change to this file only.
 */
import { readFileSync } from 'node:fs';
import { type ClickHouseClient, ClickHouseLogLevel, createClient } from '@clickhouse/client';
import type { ClickHouseTls } from './connections.ts';
import { Secret } from './secret.ts';

export type { ClickHouseClient } from '@clickhouse/client';

export interface ClickHouseOptions {
  url: string;
  user?: string;
  password?: Secret | string;
  /** For an `https://` URL: a private CA, and a client certificate for mTLS (platform/connections.ts). */
  tls?: ClickHouseTls;
  database?: string;
  /** Per-request timeout; inserts of large batches may need more. */
  requestTimeoutMs?: number;
  /** Extra server settings sent with every query. */
  settings?: Record<string, string | number>;
  /**
   * Ask ClickHouse to gzip query results (off by default, though the client's default is on): on loopback or a
   * LAN, gzip of a multi-megabyte result (a full-range detector run returns ~10-20 MB) costs server and client
   * CPU to save bandwidth that is not the limit. Turn it on for a ClickHouse across a slow link.
   */
  compressResponses?: boolean;
}

export const DEFAULT_CLICKHOUSE_REQUEST_TIMEOUT_MS = 30_000;

/** The client's TLS option of the settings; the files are read here, once per client. */
function tlsOf(tls: ClickHouseTls | undefined) {
  if (!tls?.caFile) return undefined;
  const ca_cert = readFileSync(tls.caFile);
  return tls.certFile && tls.keyFile
    ? { ca_cert, cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }
    : { ca_cert };
}

export function createClickHouse(options: ClickHouseOptions): ClickHouseClient {
  const password = options.password instanceof Secret ? options.password.reveal() : (options.password ?? '');
  const tls = tlsOf(options.tls);
  return createClient({
    url: options.url,
    username: options.user ?? 'default',
    password,
    ...(tls ? { tls } : {}),
    database: options.database ?? 'default',
    request_timeout: options.requestTimeoutMs ?? DEFAULT_CLICKHOUSE_REQUEST_TIMEOUT_MS,
    clickhouse_settings: options.settings ?? {},
    compression: { response: options.compressResponses ?? false, request: false },
    // Every failure reaches its caller as a rejected promise, which reports it once, in its own words (the CLI as
    // one line). The client's own logger would print it a second time, with a stack trace, on stderr.
    log: { level: ClickHouseLogLevel.OFF },
    // Inserts are acknowledged by us only once ClickHouse acknowledged them; no client-side retry surprises.
    keep_alive: { enabled: true },
  });
}

/** Where and as whom to connect: the `clickhouse` part of the connection settings (platform/connections.ts). */
export type ClickHouseConnection = Pick<ClickHouseOptions, 'url' | 'user' | 'password' | 'tls'>;

/** A client for the configured connection, with this use's own options (timeout, database, settings) on top. */
export function clickHouseOf(
  connection: ClickHouseConnection,
  options: Omit<ClickHouseOptions, keyof ClickHouseConnection> = {},
): ClickHouseClient {
  const { url, user, password, tls } = connection;
  return createClickHouse({ url, user, password, tls, ...options });
}

/** True when the server answers `/ping`. */
export async function pingClickHouse(url: string, timeoutMs = 2_000): Promise<boolean> {
  try {
    const res = await fetch(new URL('/ping', url), { signal: AbortSignal.timeout(timeoutMs) });
    return res.ok;
  } catch {
    return false;
  }
}
