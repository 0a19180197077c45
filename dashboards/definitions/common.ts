/** What every tooltrail dashboard shares: tags, time settings, the links between the dashboards. */
import {
  AnnotationQueryBuilder,
  DashboardBuilder,
  DashboardCursorSync,
  DashboardLinkBuilder,
  DashboardLinkType,
} from '@grafana/grafana-foundation-sdk/dashboard';

export const TAG = 'tooltrail';

export const DASHBOARD_UIDS = {
  completeness: 'tooltrail-completeness',
  mutations: 'tooltrail-mutations',
  warnings: 'tooltrail-warnings',
  pipeline: 'tooltrail-pipeline',
  session: 'tooltrail-session',
} as const;

/** The session reconstruction for a row that has `tenant` and the session in the linked column. */
export const SESSION_LINK_URL = `/d/${DASHBOARD_UIDS.session}/session-reconstruction?var-tenant=\${__data.fields.tenant}&var-session=\${__value.raw}&\${__url_time_range}`;

export function tooltrailDashboard(
  uid: string,
  title: string,
  description: string,
  from = 'now-24h',
): DashboardBuilder {
  return (
    new DashboardBuilder(title)
      .uid(uid)
      .description(description)
      .tags([TAG])
      .editable()
      .timezone('utc')
      .time({ from, to: 'now' })
      .refresh('1m')
      .tooltip(DashboardCursorSync.Crosshair)
      // Grafana's own annotations and alerts, as every dashboard Grafana saves has them (its built-in datasource).
      .annotation(
        new AnnotationQueryBuilder()
          .name('Annotations & Alerts')
          .datasource({ type: 'grafana', uid: '-- Grafana --' })
          .builtIn(1)
          .enable(true)
          .hide(true)
          .iconColor('rgba(0, 211, 255, 1)')
          .type('dashboard'),
      )
      .link(
        new DashboardLinkBuilder('tooltrail dashboards')
          .type(DashboardLinkType.Dashboards)
          .tags([TAG])
          .asDropdown(true)
          .includeVars(true)
          .keepTime(true),
      )
  );
}
