/**
 * The Merkle log's configuration: plain typed data, parsed once from the environment at the edge (every bad key
 * named at once), defaults in one function.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { loadConnectionSettings } from '../../platform/connections.ts';
import type { KafkaWitnessConfig } from './kafka-witness.ts';
import { type NoteSigner, type NoteVerifier, parseSigner, parseVerifier } from './note.ts';

export const DEFAULT_CHECKPOINT_EVERY_ROWS = 10_000;
export const DEFAULT_CHECKPOINT_EVERY_SECONDS = 60;
export const DEFAULT_LOG_ORIGIN = 'tooltrail';

export interface LogConfig {
  /** Build the Merkle log as batches are stored (default on). */
  enabled: boolean;
  /** Signs checkpoints; without one the tree is built but no checkpoint is signed (verify says so). */
  signer?: NoteSigner | undefined;
  everyRows: number;
  everySeconds: number;
  /** Checkpoint origin prefix: `<origin>/<tenant>/<log>`. */
  origin: string;
  /** Witness sinks: a directory for the file sink, URLs for HTTP sinks. */
  witnessDir?: string | undefined;
  witnessUrls: string[];
  /** A Kafka topic witness (TOOLTRAIL_WITNESS_KAFKA_TOPIC) on the pipeline's brokers. */
  witnessKafka?: KafkaWitnessConfig | undefined;
}

export function defaultLogConfig(): LogConfig {
  return {
    enabled: true,
    everyRows: DEFAULT_CHECKPOINT_EVERY_ROWS,
    everySeconds: DEFAULT_CHECKPOINT_EVERY_SECONDS,
    origin: DEFAULT_LOG_ORIGIN,
    witnessUrls: [],
  };
}

const Env = z.object({
  TOOLTRAIL_AUDIT_LOG: z.enum(['true', 'false', '1', '0']).optional(),
  TOOLTRAIL_CHECKPOINT_KEY: z.string().min(1).optional(),
  TOOLTRAIL_CHECKPOINT_KEY_FILE: z.string().min(1).optional(),
  TOOLTRAIL_CHECKPOINT_EVERY_ROWS: z.coerce.number().int().min(1).optional(),
  TOOLTRAIL_CHECKPOINT_EVERY_SECONDS: z.coerce.number().int().min(1).max(86_400).optional(),
  TOOLTRAIL_LOG_ORIGIN: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/, 'must be 1-100 characters of [A-Za-z0-9._/-]')
    .optional(),
  TOOLTRAIL_WITNESS_DIR: z.string().min(1).optional(),
  TOOLTRAIL_WITNESS_URLS: z.string().min(1).optional(),
  TOOLTRAIL_WITNESS_KAFKA_TOPIC: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,249}$/, 'must be a Kafka topic name: 1-249 characters of [A-Za-z0-9._-]')
    .optional(),
  TOOLTRAIL_CHECKPOINT_VERIFIERS: z.string().min(1).optional(),
});

export class LogConfigError extends Error {}

function envProblems(env: NodeJS.ProcessEnv): { e: z.infer<typeof Env>; problems: string[] } {
  const parsed = Env.safeParse(env);
  if (parsed.success) return { e: parsed.data, problems: [] };
  // The keys that are valid still count, so the checks below name their problems too.
  const bad = new Set(parsed.error.issues.map((i) => String(i.path[0])));
  const good = Object.fromEntries(Object.entries(env).filter(([k]) => k in Env.shape && !bad.has(k)));
  return {
    e: Env.parse(good),
    problems: parsed.error.issues.map((i) => `${String(i.path[0])} ${i.message}`),
  };
}

/** The log configuration from the environment; every bad key reported at once, each by name. */
export function logConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LogConfig {
  const { e, problems } = envProblems(env);
  const d = defaultLogConfig();
  let signer: NoteSigner | undefined;
  if (e.TOOLTRAIL_CHECKPOINT_KEY && e.TOOLTRAIL_CHECKPOINT_KEY_FILE)
    problems.push('TOOLTRAIL_CHECKPOINT_KEY and TOOLTRAIL_CHECKPOINT_KEY_FILE: give one, not both');
  else if (e.TOOLTRAIL_CHECKPOINT_KEY || e.TOOLTRAIL_CHECKPOINT_KEY_FILE) {
    const key = e.TOOLTRAIL_CHECKPOINT_KEY ? 'TOOLTRAIL_CHECKPOINT_KEY' : 'TOOLTRAIL_CHECKPOINT_KEY_FILE';
    try {
      const text = e.TOOLTRAIL_CHECKPOINT_KEY ?? readFileSync(e.TOOLTRAIL_CHECKPOINT_KEY_FILE!, 'utf8');
      signer = parseSigner(text);
    } catch (err) {
      problems.push(`${key}: ${(err as Error).message}`);
    }
  }
  const urls = (e.TOOLTRAIL_WITNESS_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  for (const u of urls)
    if (!/^https?:\/\/\S+$/.test(u)) problems.push(`TOOLTRAIL_WITNESS_URLS: ${u} is not an http(s) URL`);
  const witnessKafka = e.TOOLTRAIL_WITNESS_KAFKA_TOPIC
    ? kafkaWitnessOf(e.TOOLTRAIL_WITNESS_KAFKA_TOPIC, env)
    : undefined;
  if (problems.length > 0) throw new LogConfigError(`invalid audit log configuration: ${problems.join('; ')}`);
  return {
    enabled: !(e.TOOLTRAIL_AUDIT_LOG === 'false' || e.TOOLTRAIL_AUDIT_LOG === '0'),
    signer,
    everyRows: e.TOOLTRAIL_CHECKPOINT_EVERY_ROWS ?? d.everyRows,
    everySeconds: e.TOOLTRAIL_CHECKPOINT_EVERY_SECONDS ?? d.everySeconds,
    origin: e.TOOLTRAIL_LOG_ORIGIN ?? d.origin,
    witnessDir: e.TOOLTRAIL_WITNESS_DIR,
    witnessUrls: urls,
    witnessKafka,
  };
}

/** The Kafka witness on the pipeline's own brokers and security settings (platform/connections.ts). */
export function kafkaWitnessOf(topic: string, env: NodeJS.ProcessEnv = process.env): KafkaWitnessConfig {
  const k = loadConnectionSettings(env).kafka;
  return { topic, brokers: k.brokers, security: k.security };
}

/** Trusted checkpoint keys: `--key` values, else TOOLTRAIL_CHECKPOINT_VERIFIERS (comma or newline separated). */
export function verifiersFrom(keys: readonly string[], env: NodeJS.ProcessEnv = process.env): NoteVerifier[] {
  const texts = keys.length > 0 ? keys : (env.TOOLTRAIL_CHECKPOINT_VERIFIERS ?? '').split(/[,\n]/);
  const out: NoteVerifier[] = [];
  const problems: string[] = [];
  for (const t of texts.map((x) => x.trim()).filter(Boolean)) {
    try {
      out.push(parseVerifier(t));
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  if (problems.length > 0) throw new LogConfigError(`invalid checkpoint verifier key: ${problems.join('; ')}`);
  return out;
}
