// What a chart asks of the engine and what the engine answers (resultChart.ts): types and
// constants only, shared by the engine, the extension and the chart's webview.

export const CHART_KINDS = ['bar', 'line', 'area', 'scatter', 'histogram'] as const;
export type ChartKind = (typeof CHART_KINDS)[number];

/** Up to this many points, a line, area or scatter chart gets the rows as they are; beyond, the engine aggregates. */
export const CHART_POINTS = 20_000;
/** Equal ranges of x for a line or area chart aggregated. */
export const LINE_BUCKETS = 200;
/** Bars of a bar chart or a histogram: categories (the most common, the rest as "other"), values or equal ranges. */
export const CHART_BARS = 40;
/** Series of a chart coloured by a column: the most common values, the rest as "other". */
export const CHART_SERIES = 8;
/** The cells of an aggregated scatter chart: ranges of x by ranges of y (fewer when coloured: CHART_POINTS cells in all series together). */
export const SCATTER_CELLS = { x: 100, y: 50 } as const;
/** Text values (categories, series names) are cut to this many characters. */
export const CHART_LABEL_CHARS = 100;

/** What to chart: the kind, and the columns by name. */
export interface ChartSpec {
  kind: ChartKind;
  x: string;
  /** summed per group; without it, rows are counted (line, area, bar, histogram); a scatter chart needs it */
  y?: string;
  /** one series per value (the CHART_SERIES most common, the others together) */
  color?: string;
}

/**
 * How x lies on its axis: numbers (`value`), times (`time`: x in milliseconds since 1970) or
 * names (`category`: the answer's `categories`, in their order on the axis).
 */
export type ChartAxis = 'value' | 'time' | 'category';

/** A point: x (a category's name on a category axis), y, and for an aggregated scatter chart the rows in its cell. */
export type ChartPoint = [x: number | string, y: number, rows?: number];

export interface ChartSeries {
  /** the colour column's value (cut to CHART_LABEL_CHARS), null for NULL; absent for the one series of an uncoloured chart */
  name?: string | null;
  /** the values of the colour column outside the most common ones, together */
  other?: true;
  points: ChartPoint[];
}

export interface ChartColumn {
  name: string;
  /** the readable type, as ResultColumn.type */
  type: string;
}

export interface ChartData {
  kind: ChartKind;
  x: ChartColumn & { axis: ChartAxis };
  y?: ChartColumn;
  color?: ChartColumn;
  /** what y shows: the values as they are, their sum per group, or the rows per group */
  measure: 'value' | 'sum' | 'count';
  /** a category axis's names in order (the last one `"other"` when `otherCategory`) */
  categories?: string[];
  /** the last category stands for the values outside the most common ones */
  otherCategory?: true;
  /**
   * x was grouped in `count` equal ranges [from, to) of `width` (milliseconds for times) from
   * `start`, a multiple of it: a point's x is its range's start, or on a category axis its
   * range's place (the category named `from – to`)
   */
  ranges?: { start: number; width: number; count: number };
  series: ChartSeries[];
  /** the rows of the view */
  rows: number;
  /** rows left out: x (or y) NULL, NaN, infinite, or text that is not a number where a number is needed */
  skipped: number;
  /** the engine grouped the rows: by categories, values, equal ranges or cells */
  aggregated: boolean;
  /** what was done, in a sentence or two for the chart to say */
  note: string;
}
