/**
 * Template variables: query variables over tool_calls, multi-select with an All option. Panels filter with
 * `$__conditionalAll(col IN (${var:singlequote}), $var)`, so All costs no IN list at all.
 */
import {
  type DashboardBuilder,
  QueryVariableBuilder,
  TextBoxVariableBuilder,
  VariableRefresh,
  VariableSort,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { panelSql } from './clickhouse-query.ts';
import { clickhouseRef } from './datasources.ts';

function queryVariable(name: string, label: string, sqlFile: string): QueryVariableBuilder {
  const sql = panelSql(sqlFile);
  return new QueryVariableBuilder(name)
    .label(label)
    .datasource(clickhouseRef())
    .query(sql)
    .definition(sql)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc)
    .multi(true)
    .includeAll(true)
    .current({ selected: true, text: ['All'], value: ['$__all'] });
}

export const tenantVariable = () => queryVariable('tenant', 'Tenant', 'variables/tenant.sql');
export const agentVariable = () => queryVariable('agent', 'Agent', 'variables/agent.sql');
export const toolVariable = () => queryVariable('tool', 'Tool', 'variables/tool.sql');

/** The tenant, agent and tool filters that the panels of the tool_calls dashboards take. */
export function withFilterVariables(d: DashboardBuilder): DashboardBuilder {
  return d.withVariable(tenantVariable()).withVariable(agentVariable()).withVariable(toolVariable());
}

/** The reconstruction looks at one session (in one tenant, or wherever it is), whatever the time picker says. */
export function sessionTenantVariable(): QueryVariableBuilder {
  const sql = panelSql('variables/session_tenant.sql');
  return new QueryVariableBuilder('tenant')
    .label('Tenant')
    .datasource(clickhouseRef())
    .query(sql)
    .definition(sql)
    .refresh(VariableRefresh.OnDashboardLoad)
    .sort(VariableSort.AlphabeticalAsc)
    .multi(false)
    .includeAll(true)
    .current({ selected: true, text: 'All', value: '$__all' });
}

export function sessionVariable(): TextBoxVariableBuilder {
  return new TextBoxVariableBuilder('session')
    .label('Session (gen_ai.conversation.id)')
    .description('The agent session to reconstruct; a finding links here with it filled in.')
    .defaultValue('');
}
