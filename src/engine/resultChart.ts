// Charts of a result's view or of a SQL console statement's kept rows: the points a chart
// draws, read by DuckDB. A line, area or scatter chart of no more than CHART_POINTS rows gets
// them as they are; otherwise, and for bars and histograms always, the engine groups them:
// numbers and times of x in equal ranges (or by value when they are few), text in its most
// common values with the rest as "other", a scatter chart's points in cells of a grid, and the
// colour column's values in its most common ones with the rest as "other". Each group's y is
// the sum of y, or the count of rows when no y is given. Every query is an aggregate or reads at
// most CHART_POINTS rows, so memory does not grow with the result's size; each request runs on a
// connection of its own, which a cancel interrupts.

import type { DuckDBConnection } from '@duckdb/node-api';
import { CHART_BARS, CHART_LABEL_CHARS, CHART_POINTS, CHART_SERIES, LINE_BUCKETS, SCATTER_CELLS, type ChartData, type ChartPoint, type ChartSeries, type ChartSpec } from './chartProtocol';
import { ChartSpecError, checkChart, columnClass, xAxisOf, type CheckedChart } from './chartColumns';
import { rangesOf, widthText, type RangeValues } from './chartRanges';
import { cancelledError, EngineError } from './engineErrors';
import type { ResultColumn, View } from './engineProtocol';
import type { RunWork, Work } from './engineWork';
import type { CopyScheduler } from './copyScheduler';
import type { OpenResult } from './openResult';
import { viewRows } from './resultQueries';
import { isoTimestamp } from './rowValues';
import { quoteIdent, type BoundSql } from './sqlText';
import { checkFilterValues, withUsersWhere } from './usersWhere';

/** What charting needs of the engine: its runner and the copy's scheduler. */
export interface ChartParts {
  run: RunWork;
  copies: Pick<CopyScheduler, 'untilCopiedWhole'>;
}

/** The columns checked, or an EngineError of the user's (`syntax`) naming the choices. */
function checked(spec: ChartSpec, columns: readonly ResultColumn[]): CheckedChart {
  try {
    return checkChart(spec, columns);
  } catch (err) {
    throw err instanceof ChartSpecError ? new EngineError('syntax', err.message) : err;
  }
}

/** The chart of `view` over `result`: waits for the result's copy (its rows reported as progress), then reads the copy. */
export async function chartResult(parts: ChartParts, work: Work, result: OpenResult, view: View, spec: ChartSpec): Promise<ChartData> {
  const chart = checked(spec, result.columns);
  if (result.damage) throw result.damage;
  await parts.run(work, (conn) => checkFilterValues(conn, view, result.columns));
  await parts.copies.untilCopiedWhole(work, result, (rows) => work.progress(rows));
  const rows = viewRows(result, view, false, true);
  return parts.run(work, (conn) => withUsersWhere(conn, view, result.columns, () => result.store.use(() => chartRows(conn, work, rows, chart))));
}

/** The chart of a relation (`rows`: what follows FROM) whose columns are `columns`: a console statement's kept rows. */
export async function chartRelation(run: RunWork, work: Work, rows: BoundSql, columns: readonly ResultColumn[], spec: ChartSpec): Promise<ChartData> {
  const chart = checked(spec, columns);
  return run(work, (conn) => chartRows(conn, work, rows, chart));
}

/** A number as SQL text that reads back as the same double. */
function literal(n: number): string {
  return `CAST('${String(n)}' AS DOUBLE)`;
}

async function read(conn: DuckDBConnection, work: Work, sql: string, params: string[]): Promise<unknown[][]> {
  if (work.cancelled) throw cancelledError();
  return (await conn.runAndReadAll(sql, params)).getRowsJson() as unknown[][];
}

/** A value among the most common ones of a column (its name, NULL as null), and how many values there are in all. */
interface TopValues {
  values: (string | null)[];
  /** how many different values there are (the ones after `values` are "other") */
  groups: number;
}

/** SQL that is true where `expr` is one of `top` (NULL among them matches NULL), and its parameters. */
function memberOf(expr: string, top: (string | null)[]): BoundSql {
  const named = top.filter((v): v is string => v !== null);
  const parts: string[] = [];
  if (named.length > 0) parts.push(`(${expr} IS NOT NULL AND ${expr} IN (${named.map(() => '?').join(', ')}))`);
  if (top.includes(null)) parts.push(`${expr} IS NULL`);
  return { sql: parts.length > 0 ? `(${parts.join(' OR ')})` : 'false', params: named };
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** A number as a label: at most six significant digits. */
function numberLabel(n: number): string {
  return String(Number(n.toPrecision(6)));
}

/** Milliseconds since 1970 as text, through DuckDB (its range is wider than a JavaScript Date's); midnights as dates alone. */
async function timeLabels(conn: DuckDBConnection, work: Work, ms: number[]): Promise<string[]> {
  if (ms.length === 0) return [];
  const select = ms.map((m) => `CAST(make_timestamp(CAST(${literal(m * 1000)} AS BIGINT)) AS VARCHAR)`);
  const [row] = await read(conn, work, `SELECT ${select.join(', ')}`, []);
  const texts = (row as string[]).map((t) => isoTimestamp(t).replace('T', ' '));
  return texts.every((t) => t.endsWith(' 00:00:00')) ? texts.map((t) => t.slice(0, -' 00:00:00'.length)) : texts;
}

/**
 * The points of `chart` over `rows`. Its columns are read as x (a double: numbers, times as
 * milliseconds since 1970, text read as numbers; or a name cut to CHART_LABEL_CHARS), y (a
 * double) and the colour's name; a row whose x or y is NULL, NaN, infinite or not a number is
 * left out and counted.
 */
async function chartRows(conn: DuckDBConnection, work: Work, rows: BoundSql, chart: CheckedChart): Promise<ChartData> {
  const { kind } = chart;
  const xClass = columnClass(chart.x);
  const axis = xAxisOf(kind, xClass);
  // x as a number wherever it has one: on a value or time axis, and for bars and histograms of numbers and times
  const numericX = axis !== 'category' || kind === 'histogram' || xClass === 'number' || xClass === 'time';
  const name = (c: ResultColumn): string => quoteIdent(c.name);
  const xExpr = !numericX
    ? `left(CAST(${name(chart.x)} AS VARCHAR), ${CHART_LABEL_CHARS})`
    : xClass === 'time'
      ? `CAST(epoch_ms(${name(chart.x)}) AS DOUBLE)`
      : xClass === 'number'
        ? `CAST(${name(chart.x)} AS DOUBLE)`
        : `TRY_CAST(${name(chart.x)} AS DOUBLE)`;
  const yExpr = !chart.y ? 'NULL' : columnClass(chart.y) === 'number' ? `CAST(${name(chart.y)} AS DOUBLE)` : `TRY_CAST(${name(chart.y)} AS DOUBLE)`;
  const cExpr = chart.color ? `left(CAST(${name(chart.color)} AS VARCHAR), ${CHART_LABEL_CHARS})` : 'NULL';
  const ok = [numericX ? 'isfinite(x)' : 'x IS NOT NULL', ...(chart.y ? ['isfinite(y)'] : [])].join(' AND ');
  // the view's rows as x, y and c; its parameters once, whatever refers to it
  const cte = `WITH dq_chart AS (SELECT ${xExpr} AS x, ${yExpr} AS y, ${cExpr} AS c FROM ${rows.sql}), dq_points AS (SELECT x, y, c FROM dq_chart WHERE ${ok})`;
  const query = (select: string, params: string[] = []): Promise<unknown[][]> => read(conn, work, `${cte} ${select}`, [...rows.params, ...params]);

  const range = numericX ? 'min(x), max(x), min(y), max(y), approx_count_distinct(x)' : 'NULL, NULL, NULL, NULL, 0';
  const [stats] = await query(`SELECT (SELECT count(*) FROM dq_chart), count(*), ${range} FROM dq_points`);
  const total = Number(stats[0]);
  const plotted = Number(stats[1]);
  const [xLo, xHi, yLo, yHi] = stats.slice(2, 6) as (number | null)[];
  const xDistinct = Number(stats[6]);

  const notes: string[] = [];
  const measure: ChartData['measure'] = kind === 'scatter' || ((kind === 'line' || kind === 'area') && chart.y && plotted <= CHART_POINTS) ? 'value' : chart.y ? 'sum' : 'count';
  const measureSql = measure === 'count' ? 'count(*)' : 'sum(y)';
  const measureWords = measure === 'count' ? 'Rows' : `The sum of ${chart.y!.name}`;

  // the colour's most common values: one series each, the rest as one
  let colours: TopValues | undefined;
  if (chart.color) {
    const top = await query(`SELECT c, count(*) AS n, count(*) OVER () FROM dq_points GROUP BY c ORDER BY n DESC, c NULLS LAST LIMIT ${CHART_SERIES + 1}`);
    colours = { values: top.slice(0, CHART_SERIES).map((r) => r[0] as string | null), groups: top.length > 0 ? Number(top[0][2]) : 0 };
    const others = colours.groups - colours.values.length;
    notes.push(
      others > 0
        ? `One series per value of ${chart.color.name}: the ${count(colours.values.length)} most common of ${count(colours.groups)}, the other ${plural(others, 'value')} together as "other".`
        : `One series per value of ${chart.color.name}.`,
    );
  }
  const inColours = memberOf('c', colours?.values ?? []);
  const seriesSelect = chart.color ? `CASE WHEN ${inColours.sql} THEN c END AS cs, NOT ${inColours.sql} AS co` : 'NULL AS cs, false AS co';
  // the colour's values appear twice in the select: its parameters twice
  const seriesParams = chart.color ? [...inColours.params, ...inColours.params] : [];

  const series = new Map<string, ChartSeries>();
  const seriesOf = (cs: unknown, co: unknown): ChartSeries => {
    const key = co === true ? 'other' : JSON.stringify(cs);
    let s = series.get(key);
    if (!s) {
      s = !chart.color ? { points: [] } : co === true ? { name: 'other', other: true, points: [] } : { name: cs as string | null, points: [] };
      series.set(key, s);
    }
    return s;
  };
  const ordered = (): ChartSeries[] => {
    if (!chart.color) return [...series.values()];
    const keys = [...(colours?.values ?? []).map((v) => JSON.stringify(v)), 'other'];
    return keys.map((k) => series.get(k)).filter((s): s is ChartSeries => s !== undefined);
  };

  const data = (aggregated: boolean, extra: Partial<ChartData> = {}): ChartData => {
    if (total - plotted > 0) {
      const needs = chart.y ? `${chart.x.name} or ${chart.y.name}` : chart.x.name;
      const what = numericX || chart.y ? 'NULL, NaN, infinite or not a number' : 'NULL';
      notes.push(`${plural(total - plotted, 'row')} without a usable ${needs} (${what}) ${total - plotted === 1 ? 'is' : 'are'} left out.`);
    }
    return {
      kind,
      x: { name: chart.x.name, type: chart.x.type, axis },
      ...(chart.y ? { y: { name: chart.y.name, type: chart.y.type } } : {}),
      ...(chart.color ? { color: { name: chart.color.name, type: chart.color.type } } : {}),
      measure,
      series: ordered(),
      rows: total,
      skipped: total - plotted,
      aggregated,
      note: notes.join(' '),
      ...extra,
    };
  };

  if (plotted === 0) {
    notes.unshift(`No row has a value to draw.`);
    return data(false, axis === 'category' ? { categories: [] } : {});
  }

  // the rows as they are
  if (measure === 'value' && plotted <= CHART_POINTS) {
    const order = kind === 'scatter' ? '' : ' ORDER BY x';
    const points = await query(`SELECT x, y, ${seriesSelect} FROM dq_points${order} LIMIT ${CHART_POINTS}`, seriesParams);
    for (const [x, y, cs, co] of points) seriesOf(cs, co).points.push([x as number, y as number]);
    notes.unshift(`${plural(plotted, 'point')}, one per row.`);
    return data(false);
  }

  // a scatter chart of more rows: cells of a grid, each drawn at its centre and sized by its rows;
  // a coarser grid for many series, so that all of them together have no more than CHART_POINTS cells
  if (kind === 'scatter') {
    const [lo, hi, ylo, yhi] = [xLo!, xHi!, yLo!, yHi!];
    const seriesCount = colours ? colours.values.length + (colours.groups > colours.values.length ? 1 : 0) : 1;
    const scale = Math.min(1, Math.sqrt(CHART_POINTS / (SCATTER_CELLS.x * SCATTER_CELLS.y * seriesCount)));
    const [nx, ny] = [Math.floor(SCATTER_CELLS.x * scale), Math.floor(SCATTER_CELLS.y * scale)];
    const wx = (hi - lo) / nx;
    const wy = (yhi - ylo) / ny;
    const cell = (v: string, from: number, width: number, n: number): string => (width === 0 ? '0' : `least(CAST(floor((${v} - ${literal(from)}) / ${literal(width)}) AS BIGINT), ${n - 1})`);
    const cells = await query(`SELECT ${cell('x', lo, wx, nx)} AS cx, ${cell('y', ylo, wy, ny)} AS cy, ${seriesSelect}, count(*) FROM dq_points GROUP BY ALL ORDER BY cx, cy`, seriesParams);
    for (const [bx, by, cs, co, n] of cells) {
      seriesOf(cs, co).points.push([lo + (Number(bx) + 0.5) * wx, ylo + (Number(by) + 0.5) * wy, Number(n)]);
    }
    notes.unshift(`${plural(plotted, 'point')}, more than ${count(CHART_POINTS)}: shown as the ${plural(cells.length, 'cell')} of a ${nx} × ${ny} grid that hold any, each drawn at its centre and sized by its rows.`);
    return data(true);
  }

  // names on x: the most common ones, the rest as "other"
  if (!numericX) {
    const cap = kind === 'bar' ? CHART_BARS : LINE_BUCKETS;
    const top = await query(`SELECT x, count(*) AS n, count(*) OVER () FROM dq_points GROUP BY x ORDER BY n DESC, x LIMIT ${cap + 1}`);
    const groups = Number(top[0][2]);
    const names = top.slice(0, cap).map((r) => r[0] as string);
    // bars by their rows, most first; a line's or area's names in their order
    if (kind !== 'bar') names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const inTop = memberOf('x', names);
    const grouped = await query(
      `SELECT CASE WHEN ${inTop.sql} THEN x END AS xk, NOT ${inTop.sql} AS xo, ${seriesSelect}, ${measureSql} FROM dq_points GROUP BY ALL`,
      [...inTop.params, ...inTop.params, ...seriesParams],
    );
    const place = new Map(names.map((n, i) => [n, i]));
    const others = groups - names.length;
    const categories = others > 0 ? [...names, `other (${plural(others, 'value')})`] : names;
    const points: [ChartSeries, ChartPoint][] = grouped.map(([xk, xo, cs, co, m]) => [seriesOf(cs, co), [xo === true ? names.length : place.get(xk as string)!, Number(m)]]);
    points.sort((a, b) => (a[1][0] as number) - (b[1][0] as number));
    for (const [s, p] of points) s.points.push(p);
    notes.unshift(
      others > 0
        ? `${measureWords} per value of ${chart.x.name}: the ${count(names.length)} most common of ${count(groups)}, the other ${plural(others, 'value')} together as "other".`
        : `${measureWords} per value of ${chart.x.name}.`,
    );
    return data(true, { categories, ...(others > 0 ? { otherCategory: true as const } : {}) });
  }

  const lo = xLo!;
  const hi = xHi!;
  const time = xClass === 'time';
  const label = async (values: number[]): Promise<string[]> => (time ? timeLabels(conn, work, values) : values.map(numberLabel));

  // few values of x (bars, lines and areas): one group each
  const fewest = kind === 'bar' ? CHART_BARS : kind === 'histogram' ? 0 : LINE_BUCKETS;
  if (fewest > 0 && xDistinct <= 2 * fewest) {
    const grouped = await query(`SELECT x, ${seriesSelect}, ${measureSql} FROM dq_points WHERE x IN (SELECT DISTINCT x FROM dq_points ORDER BY x LIMIT ${fewest + 1}) GROUP BY ALL ORDER BY x`, seriesParams);
    const values = [...new Set(grouped.map((r) => r[0] as number))];
    if (values.length <= fewest) {
      const place = new Map(values.map((v, i) => [v, i]));
      const categories = axis === 'category' ? await label(values) : undefined;
      for (const [x, cs, co, m] of grouped) seriesOf(cs, co).points.push([axis === 'category' ? place.get(x as number)! : (x as number), Number(m)]);
      notes.unshift(`${measureWords} per value of ${chart.x.name} (${plural(values.length, 'value')}).`);
      return data(true, categories ? { categories } : {});
    }
  }

  // equal ranges of x, of a round width
  const values: RangeValues = time ? 'time' : xClass === 'number' && /INT/i.test(chart.x.sqlType) ? 'whole' : 'number';
  const { start, width, count: n } = rangesOf(lo, hi, kind === 'line' || kind === 'area' ? LINE_BUCKETS : CHART_BARS, values);
  // a value at a range's start, which the division may put a hair below it, counts in that range
  const bucket = `least(greatest(CAST(floor((x - ${literal(start)}) / ${literal(width)} + 1e-9) AS BIGINT), 0), ${n - 1})`;
  const grouped = await query(`SELECT ${bucket} AS b, ${seriesSelect}, ${measureSql} FROM dq_points GROUP BY ALL ORDER BY b`, seriesParams);
  const edges = Array.from({ length: n + 1 }, (_, i) => start + i * width);
  let categories: string[] | undefined;
  if (axis === 'category') {
    const shown = await label(edges);
    categories = shown.slice(0, n).map((from, i) => `${from} – ${shown[i + 1]}`);
  }
  for (const [b, cs, co, m] of grouped) {
    const i = Number(b);
    seriesOf(cs, co).points.push([axis === 'category' ? i : edges[i], Number(m)]);
  }
  const more = measure !== 'value' && (kind === 'line' || kind === 'area') && chart.y && plotted > CHART_POINTS ? ` (${count(plotted)} rows, more than ${count(CHART_POINTS)})` : '';
  notes.unshift(`${measureWords} in ${plural(n, 'range')} of ${chart.x.name}, each ${widthText(width, values)} wide${more}.`);
  return data(true, { ranges: { start, width, count: n }, ...(categories ? { categories } : {}) });
}
