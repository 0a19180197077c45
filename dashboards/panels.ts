/**
 * Typed panel helpers over the Foundation SDK builders, so the five dashboards share one look: every ClickHouse
 * panel carries one SQL query from sql/, time series are bucketed by `$__timeInterval`, tables link sessions to
 * their reconstruction. `Grid` gives each panel a unique id and a place on Grafana's 24-column grid.
 */
import type * as cog from '@grafana/grafana-foundation-sdk/cog';
import {
  BigValueColorMode,
  BigValueGraphMode,
  GraphDrawStyle,
  LegendDisplayMode,
  LegendPlacement,
  ReduceDataOptionsBuilder,
  StackingConfigBuilder,
  StackingMode,
  VizLegendOptionsBuilder,
} from '@grafana/grafana-foundation-sdk/common';
import { ThresholdsConfigBuilder, ThresholdsMode } from '@grafana/grafana-foundation-sdk/dashboard';
import * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as table from '@grafana/grafana-foundation-sdk/table';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { ClickHouseQueryBuilder, panelSql } from './clickhouse-query.ts';
import { clickhouseRef, prometheusRef } from './datasources.ts';

/** What the tests check a panel's result against (see test/integration/dashboards). */
export type PanelShape = 'timeseries' | 'table' | 'stat';

interface GridPlaceable {
  id(id: number): this;
  gridPos(pos: { x: number; y: number; w: number; h: number }): this;
}

/** Places panels left to right, wrapping at 24 columns; ids are 1, 2, 3... in placement order. */
export class Grid {
  private x = 0;
  private y = 0;
  private rowHeight = 0;
  private nextId = 1;

  place<T extends GridPlaceable>(panel: T, w: number, h: number): T {
    if (w < 1 || w > 24) throw new Error(`panel width ${w} is outside Grafana's 24-column grid`);
    if (this.x + w > 24) this.newLine();
    panel.id(this.nextId++).gridPos({ x: this.x, y: this.y, w, h });
    this.x += w;
    this.rowHeight = Math.max(this.rowHeight, h);
    return panel;
  }

  newLine(): void {
    this.y += this.rowHeight;
    this.x = 0;
    this.rowHeight = 0;
  }
}

export interface TimeSeriesOptions {
  title: string;
  description: string;
  /** sql/<dashboard>/<name>.sql: columns `time`, one label column (one series per value), one value column. */
  sql: string;
  unit?: string;
  /** Stacked bars, for counts; lines otherwise. */
  bars?: boolean;
  max?: number;
}

/** The series names listed under a time series. */
const bottomLegend = () =>
  new VizLegendOptionsBuilder()
    .showLegend(true)
    .displayMode(LegendDisplayMode.List)
    .placement(LegendPlacement.Bottom)
    .calcs([]);

export function timeSeriesPanel(o: TimeSeriesOptions): timeseries.PanelBuilder {
  const panel = new timeseries.PanelBuilder()
    .title(o.title)
    .description(o.description)
    .datasource(clickhouseRef())
    .withTarget(new ClickHouseQueryBuilder(panelSql(o.sql), 'timeseries'))
    .unit(o.unit ?? 'short')
    .min(0)
    .legend(bottomLegend());
  if (o.max !== undefined) panel.max(o.max);
  if (o.bars) {
    panel
      .drawStyle(GraphDrawStyle.Bars)
      .fillOpacity(80)
      .lineWidth(1)
      .stacking(new StackingConfigBuilder().mode(StackingMode.Normal).group('A'));
  } else {
    panel.drawStyle(GraphDrawStyle.Line).lineWidth(2).fillOpacity(10);
  }
  return panel;
}

export interface StatOptions {
  title: string;
  description: string;
  /** One row, one numeric column. */
  sql: string;
  unit?: string;
  /** Value from which the stat turns red (amber from `warnAt` when given); absent: a plain count, no colours. */
  redAt?: number;
  warnAt?: number;
}

export function statPanel(o: StatOptions): stat.PanelBuilder {
  const steps = [{ value: null as unknown as number, color: o.redAt === undefined ? 'text' : 'green' }];
  if (o.warnAt !== undefined) steps.push({ value: o.warnAt, color: 'orange' });
  if (o.redAt !== undefined) steps.push({ value: o.redAt, color: 'red' });
  return new stat.PanelBuilder()
    .title(o.title)
    .description(o.description)
    .datasource(clickhouseRef())
    .withTarget(new ClickHouseQueryBuilder(panelSql(o.sql), 'table'))
    .unit(o.unit ?? 'short')
    .graphMode(BigValueGraphMode.None)
    .colorMode(o.redAt === undefined ? BigValueColorMode.None : BigValueColorMode.Background)
    .reduceOptions(new ReduceDataOptionsBuilder().values(false).calcs(['lastNotNull']).fields(''))
    .thresholds(new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps(steps));
}

export interface ColumnLink {
  column: string;
  title: string;
  /** Grafana data-link URL; `${__value.raw}` and `${__data.fields.<col>}` are filled per row. */
  url: string;
}

export interface TableOptions {
  title: string;
  description: string;
  sql: string;
  links?: ColumnLink[];
  /** Column -> unit (e.g. percentunit for rates). */
  units?: Record<string, string>;
  /** Columns shown as coloured text by value (e.g. severity). */
  colors?: Record<string, Record<string, string>>;
}

export function tablePanel(o: TableOptions): table.PanelBuilder {
  const panel = new table.PanelBuilder()
    .title(o.title)
    .description(o.description)
    .datasource(clickhouseRef())
    .withTarget(new ClickHouseQueryBuilder(panelSql(o.sql), 'table'))
    .filterable(true);
  for (const link of o.links ?? []) {
    panel.overrideByName(link.column, [{ id: 'links', value: [{ title: link.title, url: link.url }] }]);
  }
  for (const [column, unit] of Object.entries(o.units ?? {})) {
    panel.overrideByName(column, [{ id: 'unit', value: unit }]);
  }
  for (const [column, byValue] of Object.entries(o.colors ?? {})) {
    const options: Record<string, { color: string; index: number }> = {};
    Object.entries(byValue).forEach(([value, color], index) => {
      options[value] = { color, index };
    });
    panel.overrideByName(column, [
      { id: 'mappings', value: [{ type: 'value', options }] },
      { id: 'custom.cellOptions', value: { type: 'color-text' } },
    ]);
  }
  return panel;
}

/** Any panel builder the dashboards use. */
export type AnyPanelBuilder = cog.Builder<unknown> & GridPlaceable;

export interface PromQuery {
  expr: string;
  legend: string;
}

export interface PromTimeSeriesOptions {
  title: string;
  description: string;
  queries: PromQuery[];
  unit?: string;
  bars?: boolean;
}

/** A time series over the collector's and the ingest's own Prometheus metrics (/metrics). */
export function promTimeSeriesPanel(o: PromTimeSeriesOptions): timeseries.PanelBuilder {
  const panel = new timeseries.PanelBuilder()
    .title(o.title)
    .description(o.description)
    .datasource(prometheusRef())
    .unit(o.unit ?? 'short')
    .min(0)
    .legend(bottomLegend());
  o.queries.forEach((q, i) => {
    panel.withTarget(
      new prometheus.DataqueryBuilder()
        .datasource(prometheusRef())
        .refId(String.fromCharCode(65 + i))
        .expr(q.expr)
        .legendFormat(q.legend)
        .range(),
    );
  });
  if (o.bars)
    panel
      .drawStyle(GraphDrawStyle.Bars)
      .fillOpacity(80)
      .stacking(new StackingConfigBuilder().mode(StackingMode.Normal));
  else panel.drawStyle(GraphDrawStyle.Line).lineWidth(2).fillOpacity(10);
  return panel;
}

export interface PromStatOptions {
  title: string;
  description: string;
  expr: string;
  unit?: string;
  redAt: number;
  /** Red BELOW redAt instead of above (e.g. "sink up" = 1 is good). */
  lowIsBad?: boolean;
}

export function promStatPanel(o: PromStatOptions): stat.PanelBuilder {
  const steps = o.lowIsBad
    ? [
        { value: null as unknown as number, color: 'red' },
        { value: o.redAt, color: 'green' },
      ]
    : [
        { value: null as unknown as number, color: 'green' },
        { value: o.redAt, color: 'red' },
      ];
  return new stat.PanelBuilder()
    .title(o.title)
    .description(o.description)
    .datasource(prometheusRef())
    .withTarget(new prometheus.DataqueryBuilder().datasource(prometheusRef()).refId('A').expr(o.expr).instant())
    .unit(o.unit ?? 'short')
    .graphMode(BigValueGraphMode.None)
    .colorMode(BigValueColorMode.Background)
    .reduceOptions(new ReduceDataOptionsBuilder().values(false).calcs(['lastNotNull']).fields(''))
    .thresholds(new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps(steps));
}
