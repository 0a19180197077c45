/** Completeness overview: how often tools return less than everything, why, and what the guard did about it. */
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { Grid, statPanel, tablePanel, timeSeriesPanel } from '../panels.ts';
import { withFilterVariables } from '../variables.ts';
import { DASHBOARD_UIDS, tooltrailDashboard } from './common.ts';

export function completenessDashboard(): Dashboard {
  const grid = new Grid();
  const d = withFilterVariables(
    tooltrailDashboard(
      DASHBOARD_UIDS.completeness,
      'tooltrail / Completeness overview',
      'How often tool reads were incomplete, why, which empty results were not evidence of absence, and what the mutation guard decided.',
    ),
  );

  d.withPanel(
    grid.place(
      statPanel({
        title: 'Incomplete reads',
        description: 'Share of reads whose result was not complete (unknown completeness counts as incomplete).',
        sql: 'completeness/incomplete_share_total.sql',
        unit: 'percentunit',
        warnAt: 0.05,
        redAt: 0.2,
      }),
      8,
      4,
    ),
  );
  d.withPanel(
    grid.place(
      statPanel({
        title: 'Dangerous empty reads',
        description:
          'Reads that returned nothing and were not complete: an empty list that is not evidence of absence.',
        sql: 'completeness/dangerous_empty_reads_total.sql',
        redAt: 1,
      }),
      8,
      4,
    ),
  );
  d.withPanel(
    grid.place(
      statPanel({
        title: 'Mutations stopped by the guard',
        description: 'Mutations the guard refused or sent for review because their evidence was incomplete.',
        sql: 'completeness/guard_stopped_total.sql',
      }),
      8,
      4,
    ),
  );
  grid.newLine();
  d.withPanel(
    grid.place(
      timeSeriesPanel({
        title: 'Incomplete read rate by tool',
        description: 'Per tool, the share of its reads that were not complete.',
        sql: 'completeness/incomplete_rate_by_tool.sql',
        unit: 'percentunit',
        max: 1,
      }),
      12,
      9,
    ),
  );
  d.withPanel(
    grid.place(
      timeSeriesPanel({
        title: 'Incomplete read rate by reason',
        description:
          'Share of all reads that were incomplete for each reason code; COMPLETENESS_UNKNOWN when the tool said nothing.',
        sql: 'completeness/incomplete_rate_by_reason.sql',
        unit: 'percentunit',
      }),
      12,
      9,
    ),
  );
  d.withPanel(
    grid.place(
      timeSeriesPanel({
        title: 'Dangerous empty reads by tool',
        description: 'Incomplete reads that returned no items, per tool.',
        sql: 'completeness/dangerous_empty_reads.sql',
        bars: true,
      }),
      12,
      9,
    ),
  );
  d.withPanel(
    grid.place(
      timeSeriesPanel({
        title: 'Guard decisions on mutations',
        description: 'Mutations allowed, refused or sent for review by the guard; "no guard" when none ran.',
        sql: 'completeness/guard_decisions.sql',
        bars: true,
      }),
      12,
      9,
    ),
  );
  d.withPanel(
    grid.place(
      tablePanel({
        title: 'Top tools by incomplete reads',
        description: 'The ten tools with the most incomplete reads in the range, with their most frequent reason.',
        sql: 'completeness/top_tools_by_incomplete_reads.sql',
        units: { incomplete_rate: 'percentunit' },
      }),
      24,
      9,
    ),
  );
  d.withPanel(
    grid.place(
      tablePanel({
        title: 'Paged reads by tool',
        description:
          'Reads an agent paged through by hand, cursor after cursor, each counted as one read: how many reached a complete last page over one snapshot, how many stopped short (and at which page), how many broke (snapshot changed, cursor expired or never received, page skipped).',
        sql: 'completeness/paged_reads_by_tool.sql',
      }),
      24,
      8,
    ),
  );
  return d.build();
}
