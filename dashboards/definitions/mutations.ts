/** Mutations after incomplete reads: the detectors' findings, by severity and one by one. */
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { Grid, statPanel, tablePanel, timeSeriesPanel } from '../panels.ts';
import { withFilterVariables } from '../variables.ts';
import { DASHBOARD_UIDS, SESSION_LINK_URL, tooltrailDashboard } from './common.ts';

export const SEVERITY_COLORS = { critical: 'red', warning: 'orange', info: 'blue' } as const;

export function mutationsDashboard(): Dashboard {
  const grid = new Grid();
  const d = withFilterVariables(
    tooltrailDashboard(
      DASHBOARD_UIDS.mutations,
      'tooltrail / Mutations after incomplete reads',
      'Findings of the mutation detectors: changes an agent made after reads that were not complete.',
      'now-7d',
    ),
  );

  d.withPanel(
    grid.place(
      statPanel({
        title: 'Open critical findings',
        description: 'Critical mutation findings in the range that are not resolved.',
        sql: 'mutations/open_critical_total.sql',
        redAt: 1,
      }),
      6,
      5,
    ),
  );
  d.withPanel(
    grid.place(
      statPanel({
        title: 'Unowned findings',
        description: 'Mutation findings with no owner for the tool or agent: they page the escalation receiver.',
        sql: 'mutations/unowned_total.sql',
        redAt: 1,
      }),
      6,
      5,
    ),
  );
  d.withPanel(
    grid.place(
      timeSeriesPanel({
        title: 'Findings by severity',
        description: 'Mutations that followed incomplete reads, at the time of the mutation, by severity.',
        sql: 'mutations/findings_by_severity.sql',
        bars: true,
      })
        // Long rows become one series per severity, whose display name carries the value (bare or as a label).
        .overrideByRegexp('.*critical.*', [
          { id: 'color', value: { mode: 'fixed', fixedColor: SEVERITY_COLORS.critical } },
        ])
        .overrideByRegexp('.*warning.*', [
          { id: 'color', value: { mode: 'fixed', fixedColor: SEVERITY_COLORS.warning } },
        ])
        .overrideByRegexp('.*info.*', [{ id: 'color', value: { mode: 'fixed', fixedColor: SEVERITY_COLORS.info } }]),
      12,
      10,
    ),
  );
  d.withPanel(
    grid.place(
      tablePanel({
        title: 'Findings',
        description:
          'Every finding, worst first: the session (click it for its reconstruction), the tool, the reasons the reads were incomplete, how many targets, and who owns it.',
        sql: 'mutations/findings_table.sql',
        links: [{ column: 'session_id', title: 'Reconstruct this session', url: SESSION_LINK_URL }],
        colors: { severity: SEVERITY_COLORS },
      }),
      24,
      14,
    ),
  );
  return d.build();
}
