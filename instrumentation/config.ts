/** The library's configuration: plain data, parsed once with zod, defaults in one function. */
import { z } from 'zod';
import { MUTATION_BASES, WARNING_CODES } from '../contract/index.ts';

export const FieldPoliciesSchema = z.record(z.string().min(1), z.enum(['raw', 'hash']));

/** `enforce`: mutations run only if the guard allows them. `off`: they run unjudged (observe-only). */
export const GUARD_MODES = ['enforce', 'off'] as const;
export type GuardMode = (typeof GUARD_MODES)[number];

export const TooltrailConfigSchema = z.object({
  /**
   * Whether the guard stops mutations. `off` records the plan and evidence but no `tooltrail.guard.decision`
   * (no guard acted); detectors score that as the most severe case. A call may override it.
   */
  guard: z.enum(GUARD_MODES),
  /** What the guard decides when the evidence does not support a mutation: never `allowed`. */
  onUnsafeEvidence: z.enum(['refused', 'review_requested']),
  /** Opt-in recording of tool arguments / results, for every tool (a tool's own list adds to it). */
  record: z.object({ arguments: FieldPoliciesSchema, result: FieldPoliciesSchema }),
  /**
   * Key for HMAC hashing of `hash` fields (default: $TOOLTRAIL_HASH_KEY); without one hashes are plain SHA-256,
   * and the library warns once when a field is marked `hash`.
   */
  hashKey: z.string().min(16).optional(),
  /** Longest recorded arguments / result JSON, in characters. */
  maxRecordedChars: z.number().int().positive(),
  /** How many reads per session the guard remembers as evidence (oldest forgotten first). */
  evidenceLedgerSize: z.number().int().positive(),
  /** Reads older than this (ms) are not evidence (`EVIDENCE_STALE`); a tool policy's `evidenceWindow` overrides it. */
  evidenceMaxAgeMs: z.number().int().positive(),
  /**
   * Warning code -> the mutation bases it blocks when the evidence carries it (`{ STALE_INDEX: ['absence'] }`: a
   * stale index cannot prove that something does not exist). Codes not listed never block, unless escalated.
   */
  warningPolicy: z.partialRecord(z.enum(WARNING_CODES), z.array(z.enum(MUTATION_BASES)).min(1)),
});

export type TooltrailConfig = z.infer<typeof TooltrailConfigSchema>;

export const DEFAULT_MAX_RECORDED_CHARS = 4096;
export const DEFAULT_EVIDENCE_LEDGER_SIZE = 1000;
export const DEFAULT_EVIDENCE_MAX_AGE_MS = 15 * 60 * 1000;

export function defaultConfig(): TooltrailConfig {
  return {
    guard: 'enforce',
    onUnsafeEvidence: 'refused',
    record: { arguments: {}, result: {} },
    maxRecordedChars: DEFAULT_MAX_RECORDED_CHARS,
    evidenceLedgerSize: DEFAULT_EVIDENCE_LEDGER_SIZE,
    evidenceMaxAgeMs: DEFAULT_EVIDENCE_MAX_AGE_MS,
    warningPolicy: {},
  };
}

export type TooltrailConfigInput = Partial<Omit<TooltrailConfig, 'record'>> & {
  record?: Partial<TooltrailConfig['record']>;
};

/** Where a hash key comes from when the code gives none, so that a deployment can key hashes without a code change. */
export const HASH_KEY_ENV = 'TOOLTRAIL_HASH_KEY';

/** Merge over the defaults and validate; a bad option fails here, at start, naming every bad key. */
export function parseConfig(
  input: TooltrailConfigInput = {},
  env: Readonly<Record<string, string | undefined>> = {},
): TooltrailConfig {
  const defaults = defaultConfig();
  const envKey = input.hashKey === undefined && env[HASH_KEY_ENV] ? env[HASH_KEY_ENV] : undefined;
  const merged = {
    ...defaults,
    ...input,
    ...(envKey !== undefined ? { hashKey: envKey } : {}),
    record: { ...defaults.record, ...input.record },
  };
  const parsed = TooltrailConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((i) =>
      // An unknown key is named in full (`tooltrail.warningPolicy.STALE`), like any other bad key.
      i.code === 'unrecognized_keys'
        ? i.keys.map((k) => `tooltrail.${[...i.path, k].join('.')}: unknown key`)
        : [
            `${envKey !== undefined && i.path[0] === 'hashKey' ? HASH_KEY_ENV : `tooltrail.${i.path.join('.')}`}: ${i.message}`,
          ],
    );
    throw new Error(`invalid tooltrail configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}
