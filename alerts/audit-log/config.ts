/** The audit log alerts' settings, parsed once at the edge; every bad key named at once. */
import { AlertsConfigError } from '../config.ts';
import { parseDurationSeconds } from '../duration.ts';

export const DEFAULT_AUDIT_STALL_SECONDS = 300;

export interface AuditAlertsConfig {
  /** Watch the audit log on the evaluator's schedule (default on). */
  enabled: boolean;
  /** A checkpoint older than this while rows arrived within it pages; keep it above TOOLTRAIL_CHECKPOINT_EVERY_SECONDS. */
  stallSeconds: number;
}

export class AuditAlertsConfigError extends AlertsConfigError {}

export function auditAlertsConfigFromEnv(env: NodeJS.ProcessEnv): AuditAlertsConfig {
  const problems: string[] = [];
  const flag = env.TOOLTRAIL_AUDIT_ALERTS ?? 'true';
  if (!['true', 'false', '1', '0'].includes(flag)) problems.push('TOOLTRAIL_AUDIT_ALERTS must be true or false');
  let stallSeconds = DEFAULT_AUDIT_STALL_SECONDS;
  if (env.TOOLTRAIL_AUDIT_ALERTS_STALL !== undefined) {
    try {
      stallSeconds = parseDurationSeconds(env.TOOLTRAIL_AUDIT_ALERTS_STALL);
      if (stallSeconds < 1) problems.push('TOOLTRAIL_AUDIT_ALERTS_STALL must be at least 1s');
    } catch (err) {
      problems.push(`TOOLTRAIL_AUDIT_ALERTS_STALL: ${(err as Error).message}`);
    }
  }
  if (problems.length > 0)
    throw new AuditAlertsConfigError(`invalid audit alerts configuration: ${problems.join('; ')}`);
  return { enabled: flag === 'true' || flag === '1', stallSeconds };
}
