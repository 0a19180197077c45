/**
 * Configuration of the detectors, the evaluator and the warning lifecycle: plain typed data, defaults in one
 * function, validated once at the edge (every problem reported at once, each naming its key).
 */
import { z } from 'zod';
import { ConfigError } from '../platform/connections.ts';
import { parseDurationSeconds } from './duration.ts';

export const DEFAULT_INTERVAL_SECONDS = 60;
export const DEFAULT_MUTATION_WINDOW_SECONDS = 3_600;
export const DEFAULT_LATENESS_SECONDS = 300;
export const DEFAULT_ARRIVAL_SLACK_SECONDS = 10;
export const DEFAULT_FINDING_ACTIVE_SECONDS = 86_400;
export const DEFAULT_ALERT_TTL_SECONDS = 300;
export const DEFAULT_ALERT_REFRESH_BATCH = 1_000;
export const DEFAULT_ALERTMANAGER_TIMEOUT_MS = 5_000;
export const DEFAULT_WARNING_WINDOW_DAYS = 90;
export const DEFAULT_WARNING_MIN_DAYS_FRACTION = 0.5;
export const DEFAULT_REMIND_AFTER_DAYS = 30;
export const DEFAULT_RETIRE_AFTER_DAYS = 30;
export const DEFAULT_EMPTY_READS_WINDOW_SECONDS = 3_600;
export const DEFAULT_EMPTY_READS_MIN_COUNT = 20;
export const DEFAULT_EMPTY_READS_MIN_RATE = 0.2;
/** Who the evaluator is in the change logs. */
export const EVALUATOR_ACTOR = 'tooltrail-evaluator';

const seconds = z.number().int().min(1);

export const AlertsConfigSchema = z
  .object({
    /** Names this evaluator's state (watermark) in evaluator_state; two evaluators on one database need two names. */
    evaluatorName: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only'),
    /** Only this tenant's data; '' evaluates every tenant. */
    tenant: z.string(),
    /** Seconds between two evaluations. */
    intervalSeconds: seconds,
    /** How far before a mutation a read still counts as what it relied on. */
    mutationWindowSeconds: seconds,
    /** Spans may arrive this late: each run re-evaluates from watermark - lateness. */
    latenessSeconds: z.number().int().min(0),
    /**
     * An incremental run takes the arrivals from its watermark - this: a row stamped just before the previous run
     * read the table may have become visible just after it (re-judging is idempotent).
     */
    arrivalSlackSeconds: z.number().int().min(0),
    /** A mutation finding fires this long after the mutation, then resolves as `expired`. */
    findingActiveSeconds: seconds,
    /** endsAt = now + this on every send: a dead evaluator's alerts resolve by themselves after it. */
    alertTtlSeconds: seconds,
    /** A firing alert that did not change is posted again once its last post is this old (default: TTL / 2). */
    alertRefreshSeconds: seconds,
    /** At most this many such renewals per run, oldest first (those about to lapse are renewed anyway). */
    alertRefreshBatch: z.number().int().min(1),
    /** A finding is paged once it has been found for this long (Prometheus's `for`); 0 = at once. */
    pendingSeconds: z.number().int().min(0),
    /** Alertmanager base URL (its v2 API is under /api/v2). */
    alertmanagerUrl: z.url(),
    alertmanagerTimeoutMs: z.number().int().min(100),
    /** Link template for the annotation and generatorURL: {session}, {fingerprint}, {trace_id}; '' = none. */
    reconstructUrl: z.string(),
    dangerousEmptyReads: z.object({
      /** false: the detector still serves dashboards and `tooltrail findings`, but never pages. */
      enabled: z.boolean(),
      /** The trailing window the rate is computed over. */
      windowSeconds: seconds,
      /** Incomplete empty reads (per tool and reason) below this never alert. */
      minCount: z.number().int().min(0),
      /** Rate (0..1) of incomplete empty reads among the tool's reads that alerts. */
      minRate: z.number().min(0).max(1),
    }),
    warnings: z.object({
      /** The persistence window. */
      windowDays: z.number().int().min(1),
      /** Persistent = seen on more than this fraction of the window's days. */
      minDaysFraction: z.number().gt(0).lt(1),
      /** Owners are reminded this long after they took a persistent warning (unless its acknowledgement says when). */
      remindAfterDays: z.number().int().min(1),
      /** Not seen for this long: propose retirement. */
      retireAfterDays: z.number().int().min(1),
      /** Retire stale warnings instead of proposing it. */
      autoRetire: z.boolean(),
    }),
  })
  .superRefine((c, ctx) => {
    if (c.alertTtlSeconds <= c.intervalSeconds) {
      ctx.addIssue({
        code: 'custom',
        path: ['alertTtlSeconds'],
        message: `must exceed intervalSeconds (${c.intervalSeconds}) or firing alerts resolve between two runs`,
      });
    }
    if (c.alertRefreshSeconds + c.intervalSeconds >= c.alertTtlSeconds) {
      ctx.addIssue({
        code: 'custom',
        path: ['alertRefreshSeconds'],
        message: `plus intervalSeconds (${c.intervalSeconds}) must stay below alertTtlSeconds (${c.alertTtlSeconds}) or a firing alert can lapse before it is renewed`,
      });
    }
    if (c.reconstructUrl !== '' && !URL.canParse(c.reconstructUrl.replaceAll(/\{[a-z_]+\}/g, 'x'))) {
      ctx.addIssue({ code: 'custom', path: ['reconstructUrl'], message: 'must be a URL template' });
    }
  });
export type AlertsConfig = z.infer<typeof AlertsConfigSchema>;

export function defaultAlertsConfig(alertmanagerUrl = 'http://127.0.0.1:9193'): AlertsConfig {
  return {
    evaluatorName: 'default',
    tenant: '',
    intervalSeconds: DEFAULT_INTERVAL_SECONDS,
    mutationWindowSeconds: DEFAULT_MUTATION_WINDOW_SECONDS,
    latenessSeconds: DEFAULT_LATENESS_SECONDS,
    arrivalSlackSeconds: DEFAULT_ARRIVAL_SLACK_SECONDS,
    findingActiveSeconds: DEFAULT_FINDING_ACTIVE_SECONDS,
    alertTtlSeconds: DEFAULT_ALERT_TTL_SECONDS,
    alertRefreshSeconds: DEFAULT_ALERT_TTL_SECONDS / 2,
    alertRefreshBatch: DEFAULT_ALERT_REFRESH_BATCH,
    pendingSeconds: 0,
    alertmanagerUrl,
    alertmanagerTimeoutMs: DEFAULT_ALERTMANAGER_TIMEOUT_MS,
    reconstructUrl: '',
    dangerousEmptyReads: {
      enabled: true,
      windowSeconds: DEFAULT_EMPTY_READS_WINDOW_SECONDS,
      minCount: DEFAULT_EMPTY_READS_MIN_COUNT,
      minRate: DEFAULT_EMPTY_READS_MIN_RATE,
    },
    warnings: {
      windowDays: DEFAULT_WARNING_WINDOW_DAYS,
      minDaysFraction: DEFAULT_WARNING_MIN_DAYS_FRACTION,
      remindAfterDays: DEFAULT_REMIND_AFTER_DAYS,
      retireAfterDays: DEFAULT_RETIRE_AFTER_DAYS,
      autoRetire: false,
    },
  };
}

/** A mistake the user can fix (bad key, ambiguous tenant...): the CLI prints it as one line. */
export class AlertsConfigError extends ConfigError {
  override name = 'AlertsConfigError';
}

/** Validates a whole config; every bad key reported at once (`alerts.warnings.windowDays: ...`). */
export function parseAlertsConfig(input: unknown): AlertsConfig {
  const parsed = AlertsConfigSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `alerts.${i.path.join('.')}: ${i.message}`).join('; ');
    throw new AlertsConfigError(`invalid alerts configuration: ${problems}`);
  }
  return parsed.data;
}

/** Flags that win over the environment (the CLI's --interval, --tenant, --pending-period). */
export interface AlertsOverrides {
  intervalSeconds?: number | undefined;
  pendingSeconds?: number | undefined;
  tenant?: string | undefined;
}

/**
 * Defaults overridden by the TOOLTRAIL_ALERTS_* / TOOLTRAIL_WARNINGS_* environment keys (see alerts/README.md),
 * then by flags. Without an explicit alert TTL, it follows the interval (at least 4 intervals); without an explicit
 * refresh interval, it is half the TTL.
 */
export function alertsConfigFromEnv(
  env: NodeJS.ProcessEnv,
  alertmanagerUrl: string,
  overrides: AlertsOverrides = {},
): AlertsConfig {
  const c = defaultAlertsConfig(alertmanagerUrl);
  const problems: string[] = [];
  const duration = (key: string, apply: (s: number) => void) => {
    const v = env[key];
    if (v === undefined || v === '') return;
    try {
      apply(parseDurationSeconds(v));
    } catch (err) {
      problems.push(`${key}: ${(err as Error).message}`);
    }
  };
  const number = (key: string, apply: (n: number) => void) => {
    const v = env[key];
    if (v === undefined || v === '') return;
    const n = Number(v);
    if (Number.isFinite(n)) apply(n);
    else problems.push(`${key}: not a number: "${v}"`);
  };
  const bool = (key: string, apply: (b: boolean) => void) => {
    const v = env[key];
    if (v === undefined || v === '') return;
    if (v === 'true' || v === '1') apply(true);
    else if (v === 'false' || v === '0') apply(false);
    else problems.push(`${key}: expected true or false, got "${v}"`);
  };
  if (env.TOOLTRAIL_ALERTS_EVALUATOR_NAME) c.evaluatorName = env.TOOLTRAIL_ALERTS_EVALUATOR_NAME;
  if (env.TOOLTRAIL_ALERTS_TENANT) c.tenant = env.TOOLTRAIL_ALERTS_TENANT;
  if (env.TOOLTRAIL_RECONSTRUCT_URL) c.reconstructUrl = env.TOOLTRAIL_RECONSTRUCT_URL;
  duration('TOOLTRAIL_ALERTS_INTERVAL', (s) => {
    c.intervalSeconds = s;
  });
  duration('TOOLTRAIL_ALERTS_MUTATION_WINDOW', (s) => {
    c.mutationWindowSeconds = s;
  });
  duration('TOOLTRAIL_ALERTS_LATENESS', (s) => {
    c.latenessSeconds = s;
  });
  duration('TOOLTRAIL_ALERTS_ARRIVAL_SLACK', (s) => {
    c.arrivalSlackSeconds = s;
  });
  duration('TOOLTRAIL_ALERTS_FINDING_ACTIVE', (s) => {
    c.findingActiveSeconds = s;
  });
  duration('TOOLTRAIL_ALERTS_PENDING_PERIOD', (s) => {
    c.pendingSeconds = s;
  });
  duration('TOOLTRAIL_ALERTS_ALERT_TTL', (s) => {
    c.alertTtlSeconds = s;
  });
  duration('TOOLTRAIL_ALERTS_REFRESH_INTERVAL', (s) => {
    c.alertRefreshSeconds = s;
  });
  number('TOOLTRAIL_ALERTS_REFRESH_BATCH', (n) => {
    c.alertRefreshBatch = n;
  });
  bool('TOOLTRAIL_ALERTS_EMPTY_READS_ENABLED', (b) => {
    c.dangerousEmptyReads.enabled = b;
  });
  duration('TOOLTRAIL_ALERTS_EMPTY_READS_WINDOW', (s) => {
    c.dangerousEmptyReads.windowSeconds = s;
  });
  number('TOOLTRAIL_ALERTS_EMPTY_READS_MIN_COUNT', (n) => {
    c.dangerousEmptyReads.minCount = n;
  });
  number('TOOLTRAIL_ALERTS_EMPTY_READS_MIN_RATE', (n) => {
    c.dangerousEmptyReads.minRate = n;
  });
  number('TOOLTRAIL_WARNINGS_WINDOW_DAYS', (n) => {
    c.warnings.windowDays = n;
  });
  number('TOOLTRAIL_WARNINGS_MIN_DAYS_FRACTION', (n) => {
    c.warnings.minDaysFraction = n;
  });
  number('TOOLTRAIL_WARNINGS_REMIND_AFTER_DAYS', (n) => {
    c.warnings.remindAfterDays = n;
  });
  number('TOOLTRAIL_WARNINGS_RETIRE_AFTER_DAYS', (n) => {
    c.warnings.retireAfterDays = n;
  });
  bool('TOOLTRAIL_WARNINGS_AUTO_RETIRE', (b) => {
    c.warnings.autoRetire = b;
  });
  if (problems.length) throw new AlertsConfigError(`invalid alerts configuration: ${problems.join('; ')}`);
  if (overrides.intervalSeconds !== undefined) c.intervalSeconds = overrides.intervalSeconds;
  if (overrides.tenant !== undefined) c.tenant = overrides.tenant;
  if (overrides.pendingSeconds !== undefined) c.pendingSeconds = overrides.pendingSeconds;
  if (!env.TOOLTRAIL_ALERTS_ALERT_TTL) c.alertTtlSeconds = Math.max(DEFAULT_ALERT_TTL_SECONDS, 4 * c.intervalSeconds);
  if (!env.TOOLTRAIL_ALERTS_REFRESH_INTERVAL) c.alertRefreshSeconds = Math.floor(c.alertTtlSeconds / 2);
  return parseAlertsConfig(c);
}
