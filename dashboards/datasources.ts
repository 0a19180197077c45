/**
 * The datasources every dashboard references, by the fixed uids the provisioning files give them
 * (provisioning/datasources/tooltrail.yaml). A dashboard that names any other datasource is a test failure.
 */
import type { DataSourceRef } from '@grafana/grafana-foundation-sdk/common';

export const CLICKHOUSE_PLUGIN_ID = 'grafana-clickhouse-datasource';

export const CLICKHOUSE: Readonly<Required<Pick<DataSourceRef, 'type' | 'uid'>>> = {
  type: CLICKHOUSE_PLUGIN_ID,
  uid: 'tooltrail-clickhouse',
};

export const PROMETHEUS: Readonly<Required<Pick<DataSourceRef, 'type' | 'uid'>>> = {
  type: 'prometheus',
  uid: 'tooltrail-prometheus',
};

/** The copies handed to builders (the SDK keeps references; the constants stay untouched). */
export const clickhouseRef = (): DataSourceRef => ({ ...CLICKHOUSE });
export const prometheusRef = (): DataSourceRef => ({ ...PROMETHEUS });
