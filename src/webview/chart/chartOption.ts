// The ECharts option that draws a chart's points (chartProtocol.ts) in the theme's colours:
// bars (stacked by colour), lines, areas (stacked by colour), scatter points (an aggregated
// scatter chart's cells sized by their rows), histograms as touching bars.

import type { ComposeOption } from 'echarts/core';
import type { BarSeriesOption, LineSeriesOption, ScatterSeriesOption } from 'echarts/charts';
import type { GridComponentOption, LegendComponentOption, TooltipComponentOption } from 'echarts/components';
import type { ChartData, ChartSeries } from '../../engine/chartProtocol';
import type { ChartTheme } from './chartTheme';

export type ChartOption = ComposeOption<BarSeriesOption | LineSeriesOption | ScatterSeriesOption | GridComponentOption | LegendComponentOption | TooltipComponentOption>;

/** Above this many points a series is drawn in ECharts' large mode (scatter) or thinned to the pixels (line). */
const MANY_POINTS = 2_000;

/** A series' name as the legend shows it. */
export function seriesLabel(series: ChartSeries): string {
  if (series.other) return 'other';
  if (series.name === null) return 'NULL';
  return series.name ?? '';
}

/** The marks a chart draws: its points, bars and cells. */
export function markCount(data: ChartData): number {
  return data.series.reduce((n, s) => n + s.points.length, 0);
}

function yAxisName(data: ChartData): string {
  if (data.measure === 'count') return 'rows';
  if (data.measure === 'sum') return `sum of ${data.y?.name ?? ''}`;
  return data.y?.name ?? '';
}

/** The option for `data`; `background` fills the image (transparent on screen, where the page's background shows). */
export function chartOption(data: ChartData, theme: ChartTheme, background = 'transparent'): ChartOption {
  const text = { color: theme.foreground, fontFamily: theme.fontFamily, fontSize: theme.fontSize };
  const axisStyle = {
    nameTextStyle: { color: theme.muted, fontFamily: theme.fontFamily },
    axisLine: { lineStyle: { color: theme.axis } },
    axisTick: { lineStyle: { color: theme.axis } },
    axisLabel: { color: theme.muted, fontFamily: theme.fontFamily, hideOverlap: true },
    splitLine: { lineStyle: { color: theme.grid, opacity: 0.6 } },
  };
  const category = data.x.axis === 'category';
  const coloured = data.color !== undefined;
  const cells = data.kind === 'scatter' && data.aggregated;
  const mostRows = cells ? Math.max(1, ...data.series.flatMap((s) => s.points.map((p) => p[2] ?? 1))) : 1;
  const series = data.series.map((s, i): BarSeriesOption | LineSeriesOption | ScatterSeriesOption => {
    const color = s.other ? theme.other : theme.series[i % theme.series.length];
    const name = seriesLabel(s);
    const points = s.points.map((p) => [...p]);
    switch (data.kind) {
      case 'bar':
      case 'histogram':
        return {
          type: 'bar',
          name,
          data: points,
          color,
          ...(coloured ? { stack: 'all' } : {}),
          barCategoryGap: data.kind === 'histogram' ? '4%' : '20%',
        };
      case 'line':
      case 'area':
        return {
          type: 'line',
          name,
          data: points,
          color,
          showSymbol: s.points.length <= 60,
          symbolSize: 5,
          lineStyle: { width: 1.5 },
          ...(s.points.length > MANY_POINTS ? { sampling: 'lttb' as const } : {}),
          ...(data.kind === 'area' ? { areaStyle: { opacity: 0.3 }, ...(coloured ? { stack: 'all' } : {}) } : {}),
        };
      case 'scatter':
        return {
          type: 'scatter',
          name,
          data: points,
          color,
          itemStyle: { opacity: cells ? 0.75 : 0.8 },
          ...(cells
            ? { symbolSize: (value: number[]) => 3 + 15 * Math.sqrt((value[2] ?? 1) / mostRows) }
            : s.points.length > MANY_POINTS
              ? { symbolSize: 3, large: true, largeThreshold: MANY_POINTS }
              : { symbolSize: 5 }),
        };
    }
  });
  return {
    animation: false,
    backgroundColor: background,
    textStyle: text,
    grid: { left: 16, right: 24, top: coloured ? 44 : 28, bottom: 28, containLabel: true },
    legend: coloured ? { type: 'scroll', top: 4, textStyle: { color: theme.foreground, fontFamily: theme.fontFamily }, pageTextStyle: { color: theme.muted }, pageIconColor: theme.foreground, pageIconInactiveColor: theme.muted } : { show: false },
    tooltip: {
      trigger: data.kind === 'scatter' ? 'item' : 'axis',
      confine: true,
      backgroundColor: theme.tooltipBackground,
      borderColor: theme.tooltipBorder,
      textStyle: { color: theme.foreground, fontFamily: theme.fontFamily },
      ...(cells ? { formatter: (p: unknown) => cellTip(p, data) } : {}),
    },
    xAxis: category
      ? {
          type: 'category',
          name: data.x.name,
          nameLocation: 'middle',
          nameGap: 28,
          data: data.categories ?? [],
          ...axisStyle,
          // a range by where it starts (the tooltip names it whole); a long name cut
          axisLabel: { ...axisStyle.axisLabel, width: 160, overflow: 'truncate', ...(data.ranges ? { formatter: (name: string) => name.split(' – ')[0] } : {}) },
          splitLine: { show: false },
        }
      : { type: data.x.axis === 'time' ? 'time' : 'value', name: data.x.name, nameLocation: 'middle', nameGap: 28, scale: true, ...axisStyle },
    yAxis: {
      type: 'value',
      name: yAxisName(data),
      ...(data.kind === 'scatter' ? { scale: true } : {}),
      ...axisStyle,
    },
    series,
  };
}

/** An aggregated scatter chart's tooltip: the cell's centre and its rows. */
function cellTip(params: unknown, data: ChartData): string {
  const value = (params as { value?: number[] }).value ?? [];
  const [x, y, rows] = value;
  const shownX = data.x.axis === 'time' ? new Date(x).toISOString() : String(Number(x.toPrecision(6)));
  const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `${escape(data.x.name)} ≈ ${escape(shownX)}<br>${escape(data.y?.name ?? '')} ≈ ${Number(y.toPrecision(6))}<br>${(rows ?? 0).toLocaleString()} rows`;
}
