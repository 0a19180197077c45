/**
 * The detectors as Grafana alert rules (file provisioning), for teams that alert from Grafana instead of running
 * `tooltrail alerts`. Generated from the same .sql files: the bound parameters become Grafana's ClickHouse
 * macros ($__fromTime / $__toTime) and the configured defaults, and each rule (its file in ./sql/, around the
 * detector's rows) adds the owner resolution the evaluator does (alerts/owners/resolve.ts) as joins on the
 * `owners` view, so Grafana's notification policies can route on the same `owner` / `team` labels.
 *
 *   node --import tsx alerts/grafana/rules.ts   (rewrites alerts/grafana/provisioning/alerting/tooltrail-rules.yaml)
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { sqlFiles } from '../../platform/sql-files.ts';
import { ALERT_NAMES } from '../alertmanager/payload.ts';
import { type AlertsConfig, defaultAlertsConfig } from '../config.ts';
import { type DetectorName, loadDetector } from '../detectors/load.ts';

export const RULES_PATH = fileURLToPath(new URL('./provisioning/alerting/tooltrail-rules.yaml', import.meta.url));
export const DATASOURCE_UID = 'tooltrail-clickhouse';
export const DATASOURCE_TYPE = 'grafana-clickhouse-datasource';

const sql = sqlFiles(new URL('./sql/', import.meta.url));

/** The Grafana macro or configured constant that stands for each bound parameter. */
function grafanaValues(database: string, c: AlertsConfig): Record<string, string> {
  return {
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
    remind_after_days: String(c.warnings.remindAfterDays),
  };
}

/** SQL as Grafana runs it: without its comments, each bound parameter replaced by its value. */
function forGrafana(text: string, name: string, values: Record<string, string>): string {
  return text
    .split('\n')
    .filter((l) => !l.trim().startsWith('--'))
    .join('\n')
    .replace(/\{([A-Za-z_]+):[^}]+\}/g, (_m, p: string) => {
      const v = values[p];
      if (v === undefined) throw new Error(`no Grafana value for parameter ${p} of ${name}`);
      return v;
    })
    .trim();
}

/** A detector's SQL with Grafana macros and constants in place of its bound parameters. */
export function grafanaSql(name: DetectorName, database: string, c: AlertsConfig): string {
  return forGrafana(loadDetector(name).sql, name, grafanaValues(database, c));
}

/** A rule's query: its file in alerts/grafana/sql/ around a detector's rows (`{{detector}}`). */
function ruleSql(rule: string, detector: DetectorName, database: string, c: AlertsConfig): string {
  return forGrafana(sql(rule), `${rule}.sql`, grafanaValues(database, c)).replace('{{detector}}', () =>
    grafanaSql(detector, database, c),
  );
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
  return [
    {
      uid: 'tooltrail-mutation-after-incomplete-read',
      title: ALERT_NAMES.mutation_after_incomplete_read,
      lookbackSeconds: c.findingActiveSeconds,
      sql: ruleSql('mutation_owner', 'mutation_after_incomplete_read', database, c),
      summary: '{{ $labels.tool }} in session {{ $labels.session }} followed an incomplete read',
      description:
        'A mutation followed an incomplete (or unknown-completeness) read of the same resource or of evidence it named. ' +
        'Reconstruct: tooltrail reconstruct --session {{ $labels.session }}',
    },
    {
      uid: 'tooltrail-absence-mutation-without-complete-evidence',
      title: ALERT_NAMES.absence_mutation_without_complete_evidence,
      lookbackSeconds: c.findingActiveSeconds,
      sql: ruleSql('mutation_owner', 'absence_mutation_without_complete_evidence', database, c),
      summary: '{{ $labels.tool }} in session {{ $labels.session }} acted on an absence without complete evidence',
      description:
        'An absence-based mutation with no complete read behind it. Reconstruct: tooltrail reconstruct --session {{ $labels.session }}',
    },
    {
      uid: 'tooltrail-dangerous-empty-reads',
      title: ALERT_NAMES.dangerous_empty_reads,
      lookbackSeconds: c.dangerousEmptyReads.windowSeconds,
      sql: ruleSql('dangerous_empty_reads', 'dangerous_empty_reads', database, c),
      summary:
        '{{ $labels.tool }}: {{ humanizePercentage $values.A.Value }} of reads incomplete and empty ({{ $labels.reason }})',
      description: 'Incomplete empty results persuade agents that a problem does not exist.',
    },
    {
      uid: 'tooltrail-persistent-unowned-warning',
      title: ALERT_NAMES.persistent_unowned_warning,
      lookbackSeconds: 86_400,
      sql: ruleSql('persistent_unowned_warning', 'persistent_unowned_warning', database, c),
      summary: '{{ $labels.warning_code }} from {{ $labels.warning_source }} persists and nobody owns it',
      description: 'Assign an owner (tooltrail owners set warning ...) or retire it (tooltrail warnings retire ...).',
    },
    {
      uid: 'tooltrail-warning-past-deadline',
      title: ALERT_NAMES.warning_past_deadline,
      lookbackSeconds: 86_400,
      sql: ruleSql('warning_past_deadline', 'persistent_unowned_warning', database, c),
      summary: '{{ $labels.warning_code }} from {{ $labels.warning_source }} still persists past its deadline',
      description: 'The owner took it, the deadline passed, and it is still seen on most days.',
    },
    {
      uid: 'tooltrail-warning-retirement-proposed',
      title: ALERT_NAMES.warning_retirement_proposed,
      lookbackSeconds: 86_400,
      sql: ruleSql('warning_retirement_proposed', 'persistent_unowned_warning', database, c),
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
