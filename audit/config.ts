/**
 * Digest configuration: plain typed data, parsed once from the environment at the edge, defaults in one function.
 */
import { hostname } from 'node:os';
import { z } from 'zod';
import { type LogConfig, logConfigFromEnv } from './log/config.ts';

export const DEFAULT_DIGEST_GRACE_SECONDS = 600;
export const MIN_DIGEST_KEY_LENGTH = 32;

export interface DigestConfig {
  /**
   * This writer's chain. Two writer processes recording at the same time must use different chains, or their
   * records fork the chain (verify reports it). Default: the host name.
   */
  chain: string;
  /** HMAC-SHA256 key that signs every record; without one, anyone who can write both tables can rebuild the chain. */
  key?: string;
  /** A batch recorded later than its hour's end + grace is marked as backfill (a late arrival). */
  graceSeconds: number;
  /** The Merkle log and its checkpoints (log/config.ts). */
  log?: LogConfig | undefined;
}

export function defaultDigestConfig(): DigestConfig {
  return { chain: hostname() || 'writer', graceSeconds: DEFAULT_DIGEST_GRACE_SECONDS };
}

export const DigestConfigSchema = z.object({
  chain: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/, 'must be 1-100 characters of [A-Za-z0-9._:-]'),
  key: z.string().min(MIN_DIGEST_KEY_LENGTH, `must be at least ${MIN_DIGEST_KEY_LENGTH} characters`).optional(),
  graceSeconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600),
});

const Env = z.object({
  TOOLTRAIL_DIGEST_CHAIN: z.string().min(1).optional(),
  TOOLTRAIL_DIGEST_KEY: z.string().min(1).optional(),
  TOOLTRAIL_DIGEST_GRACE_SECONDS: z.coerce.number().optional(),
});

/** The digest configuration from the environment; every bad key reported at once, each by name. */
export function digestConfigFromEnv(env: NodeJS.ProcessEnv = process.env): DigestConfig {
  const e = Env.parse(env);
  const d = defaultDigestConfig();
  const parsed = DigestConfigSchema.safeParse({
    chain: e.TOOLTRAIL_DIGEST_CHAIN ?? d.chain,
    graceSeconds: e.TOOLTRAIL_DIGEST_GRACE_SECONDS ?? d.graceSeconds,
    ...(e.TOOLTRAIL_DIGEST_KEY ? { key: e.TOOLTRAIL_DIGEST_KEY } : {}),
  });
  if (!parsed.success) {
    const names: Record<string, string> = {
      chain: 'TOOLTRAIL_DIGEST_CHAIN',
      key: 'TOOLTRAIL_DIGEST_KEY',
      graceSeconds: 'TOOLTRAIL_DIGEST_GRACE_SECONDS',
    };
    throw new Error(
      `invalid digest configuration: ${parsed.error.issues.map((i) => `${names[String(i.path[0])] ?? i.path.join('.')} ${i.message}`).join('; ')}`,
    );
  }
  return { ...parsed.data, log: logConfigFromEnv(env) };
}
