/**
 * The detectors as Grafana alert rules (file provisioning), for teams that alert from Grafana instead of running
 * `tooltrail alerts`. Generated from the same .sql files: the bound parameters become Grafana's ClickHouse
 * macros ($__fromTime / $__toTime) and the configured defaults, and each rule adds the owner resolution the
 * evaluator does (alerts/owners/resolve.ts) as joins on the `owners` view, so Grafana's notification policies
 * can route on the same `owner` / `team` labels.
 *
 *   node --import tsx alerts/grafana/rules.ts   (rewrites alerts/grafana/provisioning/alerting/tooltrail-rules.yaml)
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { ALERT_NAMES } from '../alertmanager/payload.ts';
import { type AlertsConfig, defaultAlertsConfig } from '../config.ts';
import { type DetectorName, loadDetector } from '../detectors/load.ts';

export const RULES_PATH = fileURLToPath(new URL('./provisioning/alerting/tooltrail-rules.yaml', import.meta.url));
export const DATASOURCE_UID = 'tooltrail-clickhouse';
export const DATASOURCE_TYPE = 'grafana-clickhouse-datasource';

/** A detector's SQL with Grafana macros and constants in place of its bound parameters. */
export function grafanaSql(name: DetectorName, database: string, c: AlertsConfig): string {
  const values: Record<string, string> = {
    database,
    tenant: "''",
    since: '$__fromTime',
    until: '$__toTime',
    now: '$__toTime',
    window_seconds: String(c.mutationWindowSeconds),
    min_count: String(c.dangerousEmptyReads.minCount),
    min_rate: String(c.dangerousEmptyReads.minRate),
    window_days: String(c.warnings.windowDays),
    min_days_fraction: String(c.warnings.minDaysFraction),
    retire_after_days: String(c.warnings.retireAfterDays),
  };
  const d = loadDetector(name);
  const body = d.sql
    .split('\n')
    .filter((l) => !l.trim().startsWith('--'))
    .join('\n')
    .replace(/\{([A-Za-z_]+):[^}]+\}/g, (_m, p: string) => {
      const v = values[p];
      if (v === undefined) throw new Error(`no Grafana value for parameter ${p} of ${name}`);
      return v;
    });
  return body.trim();
}

/** Owner of a mutation: the tool's (this tenant's, else every tenant's), else the agent's. */
function withMutationOwner(inner: string, db: string): string {
  const owners = (kind: string, tenantFilter: string) =>
    `(SELECT tenant, subject, owner, team FROM ${db}.owners WHERE subject_kind = '${kind}' AND ${tenantFilter})`;
  return `SELECT f.tenant AS tenant, f.session AS session, toString(f.tool_name) AS tool,
       toString(f.agent_name) AS agent, f.mutation_span_id AS mutation_span_id, f.severity AS severity,
       multiIf(tt.owner != '', tt.owner, tg.owner != '', tg.owner, at.owner != '', at.owner, ag.owner) AS owner,
       multiIf(tt.owner != '', tt.team, tg.owner != '', tg.team, at.owner != '', at.team, ag.team) AS team,
       toFloat64(f.score) AS value
FROM (
${inner}
) AS f
LEFT JOIN ${owners('tool', "tenant != ''")} AS tt ON tt.tenant = f.tenant AND tt.subject = f.tool_name
LEFT JOIN ${owners('tool', "tenant = ''")} AS tg ON tg.subject = f.tool_name
LEFT JOIN ${owners('agent', "tenant != ''")} AS at ON at.tenant = f.tenant AND at.subject = f.agent_name
LEFT JOIN ${owners('agent', "tenant = ''")} AS ag ON ag.subject = f.agent_name`;
}

/** Owner of a warning: the (code, source) pair's, else the source's (`*`); this tenant's, else every tenant's. */
function withWarningOwner(inner: string, db: string, where: string, ownerFilter: string, value: string): string {
  const owners = (code: 'exact' | 'any', tenantFilter: string) =>
    `(SELECT tenant, subject, source, owner, team, assigned_at FROM ${db}.owners WHERE subject_kind = 'warning' AND ${
      code === 'any' ? "subject = '*'" : "subject != '*'"
    } AND ${tenantFilter})`;
  // Grafana turns each row into one alert instance: string columns are its labels, \`value\` its value.
  return `SELECT tenant, warning_code, warning_source, owner, team, value FROM (
SELECT w.tenant AS tenant, w.code AS warning_code, w.source AS warning_source,
       multiIf(et.owner != '', et.owner, eg.owner != '', eg.owner, st.owner != '', st.owner, sg.owner) AS owner,
       multiIf(et.owner != '', et.team, eg.owner != '', eg.team, st.owner != '', st.team, sg.team) AS team,
       multiIf(et.owner != '', et.assigned_at, eg.owner != '', eg.assigned_at, st.owner != '', st.assigned_at,
               sg.assigned_at) AS assigned_at,
       w.state AS state, w.due_at AS due_at, w.state_changed_at AS state_changed_at,
       ${value} AS value
FROM (
${inner}
) AS w
LEFT JOIN ${owners('exact', "tenant != ''")} AS et ON et.tenant = w.tenant AND et.subject = w.code AND et.source = w.source
LEFT JOIN ${owners('exact', "tenant = ''")} AS eg ON eg.subject = w.code AND eg.source = w.source
LEFT JOIN ${owners('any', "tenant != ''")} AS st ON st.tenant = w.tenant AND st.source = w.source
LEFT JOIN ${owners('any', "tenant = ''")} AS sg ON sg.source = w.source
WHERE ${where}
)
WHERE ${ownerFilter}`;
}

export interface GrafanaRuleSpec {
  uid: string;
  title: string;
  /** Seconds of data the query looks at ($__fromTime = now - this). */
  lookbackSeconds: number;
  sql: string;
  summary: string;
  description: string;
}

export function ruleSpecs(database = 'tooltrail', c: AlertsConfig = defaultAlertsConfig()): GrafanaRuleSpec[] {
  const warnings = grafanaSql('persistent_unowned_warning', database, c);
  const remindAfter = `toIntervalDay(${c.warnings.remindAfterDays})`;
  // The lifecycle rules of alerts/warnings/lifecycle.ts (without the state transitions, which only the
  // evaluator records): retired warnings stay quiet unless seen again after their retirement.
  const live = `(w.state != 'retired' OR w.last_seen > w.state_changed_at)`;
  return [
    {
      uid: 'tooltrail-mutation-after-incomplete-read',
      title: ALERT_NAMES.mutation_after_incomplete_read,
      lookbackSeconds: c.findingActiveSeconds,
      sql: withMutationOwner(grafanaSql('mutation_after_incomplete_read', database, c), database),
      summary: '{{ $labels.tool }} in session {{ $labels.session }} followed an incomplete read',
      description:
        'A mutation followed an incomplete (or unknown-completeness) read of the same resource or of evidence it named. ' +
        'Reconstruct: tooltrail reconstruct --session {{ $labels.session }}',
    },
    {
      uid: 'tooltrail-absence-mutation-without-complete-evidence',
      title: ALERT_NAMES.absence_mutation_without_complete_evidence,
      lookbackSeconds: c.findingActiveSeconds,
      sql: withMutationOwner(grafanaSql('absence_mutation_without_complete_evidence', database, c), database),
      summary: '{{ $labels.tool }} in session {{ $labels.session }} acted on an absence without complete evidence',
      description:
        'An absence-based mutation with no complete read behind it. Reconstruct: tooltrail reconstruct --session {{ $labels.session }}',
    },
    {
      uid: 'tooltrail-dangerous-empty-reads',
      title: ALERT_NAMES.dangerous_empty_reads,
      lookbackSeconds: c.dangerousEmptyReads.windowSeconds,
      sql: `SELECT tenant, tool_name AS tool, reason, rate AS value FROM (\n${grafanaSql('dangerous_empty_reads', database, c)}\n)`,
      summary:
        '{{ $labels.tool }}: {{ humanizePercentage $values.A.Value }} of reads incomplete and empty ({{ $labels.reason }})',
      description: 'Incomplete empty results persuade agents that a problem does not exist.',
    },
    {
      uid: 'tooltrail-persistent-unowned-warning',
      title: ALERT_NAMES.persistent_unowned_warning,
      lookbackSeconds: 86_400,
      sql: withWarningOwner(
        warnings,
        database,
        `w.persistent AND NOT w.stale AND ${live}`,
        "owner = ''",
        'toFloat64(w.days_seen)',
      ),
      summary: '{{ $labels.warning_code }} from {{ $labels.warning_source }} persists and nobody owns it',
      description: 'Assign an owner (tooltrail owners set warning ...) or retire it (tooltrail warnings retire ...).',
    },
    {
      uid: 'tooltrail-warning-past-deadline',
      title: ALERT_NAMES.warning_past_deadline,
      lookbackSeconds: 86_400,
      sql: withWarningOwner(
        warnings,
        database,
        `w.persistent AND NOT w.stale AND ${live}`,
        `owner != '' AND $__toTime > if(state = 'acknowledged' AND due_at IS NOT NULL, due_at,
           greatest(assigned_at, if(state = 'acknowledged', ifNull(state_changed_at, assigned_at), assigned_at)) + ${remindAfter})`,
        'toFloat64(w.days_seen)',
      ),
      summary: '{{ $labels.warning_code }} from {{ $labels.warning_source }} still persists past its deadline',
      description: 'The owner took it, the deadline passed, and it is still seen on most days.',
    },
    {
      uid: 'tooltrail-warning-retirement-proposed',
      title: ALERT_NAMES.warning_retirement_proposed,
      lookbackSeconds: 86_400,
      sql: withWarningOwner(warnings, database, `w.stale AND ${live}`, '1', 'toFloat64(w.days_seen)'),
      summary: '{{ $labels.warning_code }} from {{ $labels.warning_source }} is no longer seen: retire it',
      description: 'tooltrail warnings retire {{ $labels.warning_code }} {{ $labels.warning_source }}',
    },
  ];
}

const SEVERITY: Record<string, string> = {
  'tooltrail-dangerous-empty-reads': 'warning',
  'tooltrail-persistent-unowned-warning': 'warning',
  'tooltrail-warning-past-deadline': 'warning',
  'tooltrail-warning-retirement-proposed': 'info',
};

/** The provisioning document: one rule group; every row a query returns is one alert instance. */
export function grafanaRulesDocument(database = 'tooltrail', c: AlertsConfig = defaultAlertsConfig()) {
  return {
    apiVersion: 1,
    groups: [
      {
        orgId: 1,
        name: 'tooltrail-detectors',
        folder: 'tooltrail',
        interval: `${c.intervalSeconds}s`,
        rules: ruleSpecs(database, c).map((r) => ({
          uid: r.uid,
          title: r.title,
          condition: 'B',
          data: [
            {
              refId: 'A',
              relativeTimeRange: { from: r.lookbackSeconds, to: 0 },
              datasourceUid: DATASOURCE_UID,
              model: {
                refId: 'A',
                datasource: { type: DATASOURCE_TYPE, uid: DATASOURCE_UID },
                editorType: 'sql',
                queryType: 'table',
                format: 1,
                rawSql: r.sql,
              },
            },
            {
              refId: 'B',
              relativeTimeRange: { from: 0, to: 0 },
              datasourceUid: '__expr__',
              model: {
                refId: 'B',
                type: 'threshold',
                expression: 'A',
                datasource: { type: '__expr__', uid: '__expr__' },
                conditions: [{ evaluator: { type: 'gt', params: [0] } }],
              },
            },
          ],
          noDataState: 'OK',
          execErrState: 'Error',
          for: '0s',
          // Mutation rules carry their own per-row severity label from the query.
          labels: SEVERITY[r.uid] ? { severity: SEVERITY[r.uid] } : {},
          annotations: { summary: r.summary, description: r.description },
          isPaused: false,
        })),
      },
    ],
  };
}

export function grafanaRulesYaml(database = 'tooltrail', c: AlertsConfig = defaultAlertsConfig()): string {
  return `# Generated by alerts/grafana/rules.ts from alerts/detectors/*.sql; do not edit by hand.\n${stringify(
    grafanaRulesDocument(database, c),
    { lineWidth: 0 },
  )}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(RULES_PATH, grafanaRulesYaml());
  console.log(`wrote ${RULES_PATH}`);
}
