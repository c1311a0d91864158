// Which columns can play which part in a chart (chartProtocol.ts), by their DuckDB type: the
// engine checks a chart's columns with it before reading a row, and the chart's webview offers
// only the columns that fit. No DuckDB and no DOM here: both sides import it.

import { CHART_KINDS, type ChartAxis, type ChartKind, type ChartSpec } from './chartProtocol';
import type { ResultColumn } from './engineProtocol';

/** How a column's values are read: as numbers, as times, or as names (text, booleans, everything else). */
export type ColumnClass = 'number' | 'time' | 'boolean' | 'text';

const NUMBER_TYPES = /^(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|DECIMAL.*|FLOAT|DOUBLE|REAL)$/;

export function columnClass(column: Pick<ResultColumn, 'sqlType'>): ColumnClass {
  const type = column.sqlType.toUpperCase();
  if (NUMBER_TYPES.test(type)) return 'number';
  if (type === 'DATE' || type.startsWith('TIMESTAMP')) return 'time';
  if (type === 'BOOLEAN') return 'boolean';
  return 'text';
}

export type ChartRole = 'x' | 'y' | 'color';

/**
 * Whether a column of `cls` can be the `role` of a `kind` of chart. A text column stands for
 * numbers where numbers are needed (results read without a schema have only text): its values
 * that are not numbers are left out.
 */
export function fitsRole(kind: ChartKind, role: ChartRole, cls: ColumnClass): boolean {
  if (role === 'color') return true;
  if (role === 'y') return cls === 'number' || cls === 'text';
  if (kind === 'scatter' || kind === 'histogram') return cls !== 'boolean';
  return true;
}

/** The axis x lies on: numbers and times on their own axes; names, and bars and histograms of any x, as categories. */
export function xAxisOf(kind: ChartKind, cls: ColumnClass): ChartAxis {
  if (kind === 'bar' || kind === 'histogram') return 'category';
  if (kind === 'scatter') return cls === 'time' ? 'time' : 'value';
  return cls === 'time' ? 'time' : cls === 'number' ? 'value' : 'category';
}

/** The columns that can be the `role` of a `kind` of chart. */
export function columnsFor(kind: ChartKind, role: ChartRole, columns: readonly ResultColumn[]): ResultColumn[] {
  return columns.filter((c) => fitsRole(kind, role, columnClass(c)));
}

/** A chart's columns, checked: each one the result has and that fits its part. */
export interface CheckedChart {
  kind: ChartKind;
  x: ResultColumn;
  y?: ResultColumn;
  color?: ResultColumn;
}

/** A mistake in what a chart asks for, in words that name the choices. */
export class ChartSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChartSpecError';
  }
}

const ROLE_WORDS: Record<ChartRole, string> = { x: 'x', y: 'y', color: 'colour' };

function listed(names: readonly string[]): string {
  if (names.length === 0) return 'none';
  const shown = names.slice(0, 12).join(', ');
  return names.length > 12 ? `${shown}, … (${names.length} in all)` : shown;
}

/** Checks a chart's kind and columns against the result's columns; throws a ChartSpecError naming the choices. */
export function checkChart(spec: ChartSpec, columns: readonly ResultColumn[]): CheckedChart {
  if (!(CHART_KINDS as readonly string[]).includes(spec.kind)) {
    throw new ChartSpecError(`"${String(spec.kind)}" is not a kind of chart. Choose one of: ${CHART_KINDS.join(', ')}.`);
  }
  const kind = spec.kind;
  const pick = (role: ChartRole, name: string | undefined): ResultColumn | undefined => {
    if (name === undefined) return undefined;
    const column = columns.find((c) => c.name === name);
    if (!column) throw new ChartSpecError(`The result has no column "${name}". Its columns: ${listed(columns.map((c) => c.name))}.`);
    if (!fitsRole(kind, role, columnClass(column))) {
      const fitting = columnsFor(kind, role, columns).map((c) => c.name);
      const what = role === 'y' ? 'numbers (or text read as numbers)' : 'numbers, times or text read as numbers';
      throw new ChartSpecError(`The ${ROLE_WORDS[role]} of a ${kind} chart must be a column of ${what}: "${name}" is ${column.type}. Columns that fit: ${listed(fitting)}.`);
    }
    return column;
  };
  const x = pick('x', spec.x);
  if (!x) throw new ChartSpecError(`A ${kind} chart needs a column for x. The result's columns: ${listed(columns.map((c) => c.name))}.`);
  const y = pick('y', spec.y);
  if (kind === 'scatter' && !y) {
    throw new ChartSpecError(`A scatter chart needs a column for y. Columns that fit: ${listed(columnsFor(kind, 'y', columns).map((c) => c.name))}.`);
  }
  const color = pick('color', spec.color);
  return { kind, x, ...(y ? { y } : {}), ...(color ? { color } : {}) };
}

/** A first chart of a result, for the person to change: a histogram of its first time or number column, else bars of its first column. */
export function firstChart(columns: readonly ResultColumn[]): ChartSpec | undefined {
  const time = columns.find((c) => columnClass(c) === 'time');
  const number = columns.find((c) => columnClass(c) === 'number');
  const first = time ?? number;
  if (first) return { kind: 'histogram', x: first.name };
  return columns[0] && { kind: 'bar', x: columns[0].name };
}

/**
 * The column for `role` when the kind changes to `kind`: the one chosen so far while it fits (and,
 * where numbers are needed, holds them), else the first that holds numbers or times, else the first that fits.
 */
export function keptColumn(kind: ChartKind, role: 'x' | 'y', columns: readonly ResultColumn[], current: string | undefined): string | undefined {
  const fitting = columnsFor(kind, role, columns);
  const numeric = fitting.filter((c) => columnClass(c) === 'number' || (role === 'x' && columnClass(c) === 'time'));
  const wantsNumbers = role === 'y' || kind === 'scatter' || kind === 'histogram';
  const chosen = fitting.find((c) => c.name === current);
  if (chosen && (!wantsNumbers || numeric.includes(chosen) || numeric.length === 0)) return chosen.name;
  if (role === 'y' && current === undefined && kind !== 'scatter') return undefined;
  return (numeric[0] ?? fitting[0])?.name;
}
