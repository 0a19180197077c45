/** How the schema is laid out: one node (MergeTree) or a cluster (Replicated engines, ON CLUSTER). */
import { z } from 'zod';

export const DEFAULT_DATABASE = 'tooltrail';
export const DEFAULT_RETENTION_DAYS = 400;

export const SchemaConfigSchema = z.object({
  /** Target database; created if missing. */
  database: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier'),
  /** Row TTL in days for every table (400: a year of audit trail plus the 90-day warning window). */
  retentionDays: z.number().int().min(1).max(36_500),
  /** Cluster name for the cluster variant; absent for a single node. */
  cluster: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'must be a plain identifier')
    .optional(),
});
export type SchemaConfig = z.infer<typeof SchemaConfigSchema>;

export function defaultSchemaConfig(): SchemaConfig {
  return { database: DEFAULT_DATABASE, retentionDays: DEFAULT_RETENTION_DAYS };
}

const SchemaEnv = z.object({
  TOOLTRAIL_CLICKHOUSE_DATABASE: z.string().default(DEFAULT_DATABASE),
  TOOLTRAIL_RETENTION_DAYS: z.coerce.number().default(DEFAULT_RETENTION_DAYS),
  TOOLTRAIL_CLICKHOUSE_CLUSTER: z.string().min(1).optional(),
});

/** The schema configuration from the environment; every bad key reported at once. */
export function schemaConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SchemaConfig {
  const e = SchemaEnv.parse(env);
  const parsed = SchemaConfigSchema.safeParse({
    database: e.TOOLTRAIL_CLICKHOUSE_DATABASE,
    retentionDays: e.TOOLTRAIL_RETENTION_DAYS,
    ...(e.TOOLTRAIL_CLICKHOUSE_CLUSTER ? { cluster: e.TOOLTRAIL_CLICKHOUSE_CLUSTER } : {}),
  });
  if (!parsed.success) {
    throw new Error(
      `invalid schema configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}
