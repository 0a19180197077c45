/** Warning lifecycle: which warnings are active, who owns them, which persist unowned, what was retired. */
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { Grid, statPanel, tablePanel, timeSeriesPanel } from '../panels.ts';
import { withFilterVariables } from '../variables.ts';
import { DASHBOARD_UIDS, tooltrailDashboard } from './common.ts';

export function warningsDashboard(): Dashboard {
  const grid = new Grid();
  const d = withFilterVariables(
    tooltrailDashboard(
      DASHBOARD_UIDS.warnings,
      'tooltrail / Warning lifecycle',
      'Warnings (stale index, partial field set, ...) by code and source: age, owner and state; the escalation list; what was retired or acknowledged.',
      'now-90d',
    ),
  );

  d.withPanel(
    grid.place(
      statPanel({
        title: 'Open escalations',
        description: 'Warnings persisting without an owner, or past the deadline their owner gave.',
        sql: 'warnings/unowned_active_total.sql',
        redAt: 1,
      }),
      6,
      8,
    ),
  );
  d.withPanel(
    grid.place(
      tablePanel({
        title: 'Escalation list: persistent unowned warnings',
        description:
          'Open findings of warnings seen on many days with no owner, or acknowledged and then left past their deadline.',
        sql: 'warnings/escalation_list.sql',
      }),
      18,
      8,
    ),
  );
  d.withPanel(
    grid.place(
      tablePanel({
        title: 'Active warnings',
        description:
          'Every warning (code, source) seen in the range and not retired: age since its first occurrence, days seen, state and owner.',
        sql: 'warnings/active_warnings.sql',
        colors: { owner: { UNOWNED: 'red' } },
      }),
      24,
      12,
    ),
  );
  d.withPanel(
    grid.place(
      timeSeriesPanel({
        title: 'Retired and acknowledged',
        description: 'Lifecycle changes over time: warnings retired, and warnings acknowledged by their owner.',
        sql: 'warnings/state_changes.sql',
        bars: true,
      }),
      12,
      9,
    ),
  );
  d.withPanel(
    grid.place(
      timeSeriesPanel({
        title: 'Warning occurrences by code',
        description: 'How often tools attached each warning code to their results.',
        sql: 'warnings/occurrences_by_code.sql',
        bars: true,
      }),
      12,
      9,
    ),
  );
  return d.build();
}
