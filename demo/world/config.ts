/**
 * The demo world's shape as plain data: shards, how many accounts have no owner or are hidden from the agent's
 * role, which shard is slow, how stale and how capped the search index is. Defaults in one function; a bad
 * override fails at start, naming every problem.
 */
import { z } from 'zod';

const ShardSchema = z.object({
  /** Region-like shard name; the slow one times out under the default deadline. */
  name: z.string().min(1),
  accounts: z.number().int().positive(),
  /** Accounts with no owner recorded. */
  unowned: z.number().int().nonnegative(),
  /** Accounts only privileged roles may read (the security team's). */
  restricted: z.number().int().nonnegative(),
  /** How many of the restricted accounts have no owner. */
  restrictedUnowned: z.number().int().nonnegative(),
  /** Simulated answer time; a shard slower than the request deadline does not answer (no real waiting). */
  latencyMs: z.number().int().nonnegative(),
});

export const WorldConfigSchema = z.object({
  seed: z.number().int().nonnegative(),
  shards: z.array(ShardSchema).min(1),
  /** The oldest accounts went through the last ownership review: all owned, all readable by any role. */
  reviewedAccounts: z.number().int().nonnegative(),
  /** The newest accounts, created after the search index's revision: the search does not know them. */
  freshAccounts: z.number().int().nonnegative(),
  /** How many of the fresh accounts have no owner (drawn from the readable unowned ones). */
  freshUnowned: z.number().int().nonnegative(),
  /** People who own accounts; the last `securityPeople` of them are on the security team. */
  people: z.number().int().min(2),
  securityPeople: z.number().int().min(1),
  search: z.object({
    /** Index entries one query may scan at most (like Elasticsearch's max_result_window). */
    resultWindow: z.number().int().positive(),
    /** How far the index lags the inventory. */
    lagMinutes: z.number().int().positive(),
    maxPageSize: z.number().int().positive(),
  }),
  inventory: z.object({
    defaultPageSize: z.number().int().positive(),
    maxPageSize: z.number().int().positive(),
    /** Per request, when the caller gives none. */
    defaultDeadlineMs: z.number().int().positive(),
  }),
  directory: z.object({
    /** Account ids one lookup answers for; the rest are dropped without a word. */
    maxBatch: z.number().int().positive(),
  }),
  ticketId: z.string().min(1),
  controlId: z.string().min(1),
  /** The world's "now" (ISO 8601), so that ages and tokens never depend on the wall clock. */
  now: z.iso.datetime(),
});

export type WorldConfig = z.infer<typeof WorldConfigSchema>;
export type ShardConfig = z.infer<typeof ShardSchema>;

export const DEFAULT_SEED = 42;

export function defaultWorldConfig(): WorldConfig {
  return {
    seed: DEFAULT_SEED,
    shards: [
      { name: 'eu-west-1', accounts: 20, unowned: 2, restricted: 1, restrictedUnowned: 0, latencyMs: 120 },
      { name: 'us-east-1', accounts: 18, unowned: 2, restricted: 2, restrictedUnowned: 1, latencyMs: 180 },
      { name: 'ap-south-1', accounts: 10, unowned: 2, restricted: 0, restrictedUnowned: 0, latencyMs: 1500 },
    ],
    reviewedAccounts: 28,
    freshAccounts: 2,
    freshUnowned: 1,
    people: 12,
    securityPeople: 2,
    search: { resultWindow: 40, lagMinutes: 47, maxPageSize: 50 },
    inventory: { defaultPageSize: 50, maxPageSize: 100, defaultDeadlineMs: 1000 },
    directory: { maxBatch: 20 },
    ticketId: 'OPS-4521',
    controlId: 'SA-OWNER-1',
    now: '2025-03-08T14:20:11Z',
  };
}

export type WorldConfigInput = Partial<WorldConfig>;

/** Merge over the defaults and validate, reporting every problem at once. */
export function parseWorldConfig(input: WorldConfigInput = {}): WorldConfig {
  const merged = { ...defaultWorldConfig(), ...input };
  const parsed = WorldConfigSchema.safeParse(merged);
  const problems = parsed.success
    ? crossFieldProblems(parsed.data)
    : parsed.error.issues.map((i) => `world.${i.path.join('.')}: ${i.message}`);
  if (problems.length > 0 || !parsed.success) {
    throw new Error(`invalid demo world configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}

function crossFieldProblems(c: WorldConfig): string[] {
  const problems: string[] = [];
  let visibleOwned = 0;
  let visibleUnowned = 0;
  c.shards.forEach((s, i) => {
    if (s.unowned + s.restricted - s.restrictedUnowned > s.accounts) {
      problems.push(`world.shards.${i}: unowned + restricted exceed accounts`);
    }
    if (s.restrictedUnowned > Math.min(s.unowned, s.restricted)) {
      problems.push(`world.shards.${i}.restrictedUnowned must be <= unowned and <= restricted`);
    }
    visibleOwned += s.accounts - s.unowned - s.restricted + s.restrictedUnowned;
    visibleUnowned += s.unowned - s.restrictedUnowned;
  });
  if (new Set(c.shards.map((s) => s.name)).size !== c.shards.length) problems.push('world.shards: names must differ');
  if (c.freshUnowned > c.freshAccounts) problems.push('world.freshUnowned must be <= freshAccounts');
  if (c.freshUnowned > visibleUnowned) problems.push('world.freshUnowned exceeds the readable unowned accounts');
  if (c.reviewedAccounts + c.freshAccounts - c.freshUnowned > visibleOwned) {
    problems.push('world.reviewedAccounts + owned fresh accounts exceed the readable owned accounts');
  }
  if (c.securityPeople >= c.people) problems.push('world.securityPeople must be < people');
  return problems;
}
