/** Session reconstruction: what one agent session saw, could not see, and did, in order. */
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { Grid, tablePanel } from '../panels.ts';
import { sessionTenantVariable, sessionVariable } from '../variables.ts';
import { DASHBOARD_UIDS, tooltrailDashboard } from './common.ts';
import { SEVERITY_COLORS } from './mutations.ts';

export function sessionDashboard(): Dashboard {
  const grid = new Grid();
  const d = tooltrailDashboard(
    DASHBOARD_UIDS.session,
    'tooltrail / Session reconstruction',
    'One agent session in order: every tool call with its completeness, what each incomplete read could not see, the warnings, and the findings.',
    'now-7d',
  )
    .withVariable(sessionTenantVariable())
    .withVariable(sessionVariable());

  d.withPanel(
    grid.place(
      tablePanel({
        title: 'Findings about this session',
        description: 'What the detectors found in this session.',
        sql: 'session/findings.sql',
        colors: { severity: SEVERITY_COLORS },
      }),
      24,
      6,
    ),
  );
  d.withPanel(
    grid.place(
      tablePanel({
        title: 'Tool calls, in order',
        description:
          'Every tool call of the session: reads with their completeness, mutations with their basis, evidence and guard decision.',
        sql: 'session/timeline.sql',
        colors: {
          completeness: { complete: 'green', incomplete: 'orange', 'unknown (counts as incomplete)': 'red' },
        },
      }),
      24,
      14,
    ),
  );
  d.withPanel(
    grid.place(
      tablePanel({
        title: 'Paged reads',
        description:
          'The lists the agent read page after page, each as one read: its pages, and whether it was complete over one snapshot, stopped short (at which page) or broke (why).',
        sql: 'session/paged_reads.sql',
      }),
      24,
      6,
    ),
  );
  d.withPanel(
    grid.place(
      tablePanel({
        title: 'What the agent could not see',
        description: 'Every incomplete read of the session, with its reasons, continuation, scope and visibility.',
        sql: 'session/blind_spots.sql',
      }),
      24,
      8,
    ),
  );
  d.withPanel(
    grid.place(
      tablePanel({
        title: 'Warnings in this session',
        description: 'Warnings the tools attached to their results (confidence, freshness, interpretation).',
        sql: 'session/warnings.sql',
      }),
      24,
      8,
    ),
  );
  return d.build();
}
