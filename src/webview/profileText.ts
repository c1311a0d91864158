// How a column's profile (engineProtocol.ts ColumnProfile) reads in the grid: the share of
// NULLs, the bars of its sparkline (a histogram of numbers and times, the most common values of
// text and enums, true and false), the short summary a strip shows on hover and says to a
// screen reader, and the figures, top values and histogram of the column's popup. Pure: no DOM,
// so plain tests hold it.

import type { ColumnProfile } from '../engine/engineProtocol';
import type { ViewState } from './previewProtocol';

/** Whether two views hold the same rows (they may differ in their order): a profile of one serves the other. */
export function sameRows(a: ViewState, b: ViewState): boolean {
  const filters = (v: ViewState): string =>
    JSON.stringify(
      Object.entries(v.filters)
        .filter(([, text]) => text.trim() !== '')
        .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)),
    );
  return a.where.trim() === b.where.trim() && filters(a) === filters(b);
}

export type ProfileKind = 'number' | 'time' | 'boolean' | 'values';

/** How a profile is drawn: numbers and times by their histogram, booleans as true and false, the rest by their most common values. */
export function profileKind(p: ColumnProfile): ProfileKind {
  if (p.histogram !== undefined) return p.quantiles === undefined && (/date/.test(p.type) || typeof p.min === 'string') && p.mean === undefined ? 'time' : 'number';
  if (p.type === 'boolean' || (p.top !== undefined && p.top.length > 0 && p.top.every((t) => typeof t.value === 'boolean'))) return 'boolean';
  return 'values';
}

/** The rows of the view the profile covers: its values and its NULLs. */
export function rowsOf(p: ColumnProfile): number {
  return p.count + p.nulls;
}

/** The share of NULLs among the rows, 0 to 1 (0 without rows). */
export function nullShare(p: ColumnProfile): number {
  const rows = rowsOf(p);
  return rows === 0 ? 0 : p.nulls / rows;
}

/** A share as a percentage a glance reads right: never "0%" for some nor "100%" for not all. */
export function percentText(share: number): string {
  if (share <= 0) return '0%';
  if (share >= 1) return '100%';
  if (share < 0.01) return '<1%';
  if (share > 0.99) return '>99%';
  return `${Math.round(share * 100)}%`;
}

export function countText(n: number, locale?: string): string {
  return n.toLocaleString(locale);
}

/** A number short enough for a strip or a popup: whole numbers whole, others to six significant digits (whole from 100,000). */
export function numberText(n: number, locale?: string): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '∞' : '-∞';
  if (Number.isInteger(n)) return n.toLocaleString(locale);
  return Math.abs(n) >= 100_000 ? n.toLocaleString(locale, { maximumFractionDigits: 0 }) : n.toLocaleString(locale, { maximumSignificantDigits: 6 });
}

/** The longest a value is shown in a summary or a popup; longer ones end in "…". */
export const VALUE_CHARS = 60;

/**
 * A value of a profile as text: numbers as numbers, big integers and decimals (text) as they
 * came, times as their ISO text, text quoted; `cut` marks a value the engine cut.
 */
export function valueText(value: unknown, locale?: string, cut = false): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return numberText(value, locale);
  if (typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const shown = text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS)}…` : cut ? `${text}…` : text;
  return shown;
}

/** Text values in quotes (so that a space or an empty value shows); others as valueText. */
function quotedValue(value: unknown, locale?: string, cut = false): string {
  return typeof value === 'string' ? `"${valueText(value, locale, cut)}"` : valueText(value, locale, cut);
}

/** The distinct values, with "≈" when the engine estimated them. */
export function distinctText(p: ColumnProfile, locale?: string): string {
  return `${p.distinctApproximate ? '≈ ' : ''}${countText(p.distinct, locale)}`;
}

export interface Bar {
  /** 0 to 1 of the sparkline's height */
  height: number;
  /** what the bar stands for, with its count */
  label: string;
}

/**
 * The sparkline's bars: a histogram's buckets (as high as their count beside the fullest),
 * booleans' true and false, or the most common values, most common first (as high as their
 * share of the values, so that a column of all different values shows low bars).
 */
export function sparkline(p: ColumnProfile, locale?: string): Bar[] {
  const kind = profileKind(p);
  if (kind === 'number' || kind === 'time') {
    const buckets = p.histogram ?? [];
    const most = Math.max(0, ...buckets.map((b) => b.count));
    return buckets.map((b) => ({ height: most === 0 ? 0 : b.count / most, label: `${rangeText(b.from, b.to, locale)}: ${countText(b.count, locale)}` }));
  }
  const top = p.top ?? [];
  if (kind === 'boolean') {
    return [true, false].map((value) => {
      const count = top.find((t) => t.value === value)?.count ?? 0;
      return { height: p.count === 0 ? 0 : count / p.count, label: `${String(value)}: ${countText(count, locale)}` };
    });
  }
  return top.map((t) => ({ height: p.count === 0 ? 0 : t.count / p.count, label: `${quotedValue(t.value, locale, t.cut)}: ${countText(t.count, locale)}` }));
}

function rangeText(from: unknown, to: unknown, locale?: string): string {
  return `${valueText(from, locale)} to ${valueText(to, locale)}`;
}

/** The words for the least and greatest value. */
function rangeLabels(p: ColumnProfile): [string, string] {
  return profileKind(p) === 'time' ? ['Earliest', 'Latest'] : ['Min', 'Max'];
}

/** What hovering a strip shows, and (with the column's name before it) what a screen reader says of it: a few lines. */
export function profileSummary(p: ColumnProfile, locale?: string): string {
  const lines = [`${countText(rowsOf(p), locale)} rows: ${countText(p.nulls, locale)} NULL (${percentText(nullShare(p))}), ${distinctText(p, locale)} distinct`];
  const kind = profileKind(p);
  if (p.count === 0) lines.push('No values.');
  else if (allDistinct(p)) lines.push('Every value differs from the others.');
  else if (kind === 'number' || kind === 'time') {
    const [least, greatest] = rangeLabels(p);
    lines.push(`${least} ${valueText(p.min, locale)}, ${greatest.toLowerCase()} ${valueText(p.max, locale)}${p.mean !== undefined ? `, mean ${numberText(p.mean, locale)}` : ''}`);
  } else if (p.top && p.top.length > 0) {
    const common = p.top.slice(0, 3).map((t) => `${quotedValue(t.value, locale, t.cut)} (${countText(t.count, locale)})`);
    lines.push(`Most common: ${common.join(', ')}`);
  }
  return lines.join('\n');
}

export interface Figure {
  label: string;
  value: string;
}

/** The popup's figures: rows, values, NULLs, distinct, the range, and for numbers the mean and quartiles. */
export function profileFigures(p: ColumnProfile, locale?: string): Figure[] {
  const figures: Figure[] = [
    { label: 'Rows', value: countText(rowsOf(p), locale) },
    { label: 'Values', value: countText(p.count, locale) },
    { label: 'NULLs', value: `${countText(p.nulls, locale)} (${percentText(nullShare(p))})` },
    { label: p.distinctApproximate ? 'Distinct (estimated)' : 'Distinct', value: distinctText(p, locale) },
  ];
  const [least, greatest] = rangeLabels(p);
  figures.push({ label: least, value: valueText(p.min, locale) }, { label: greatest, value: valueText(p.max, locale) });
  if (p.mean !== undefined) figures.push({ label: 'Mean', value: numberText(p.mean, locale) });
  if (p.quantiles) {
    // the engine estimates them (t-digest)
    const q = p.quantiles;
    figures.push(
      { label: 'Lower quartile ≈', value: numberText(q.p25, locale) },
      { label: 'Median ≈', value: numberText(q.p50, locale) },
      { label: 'Upper quartile ≈', value: numberText(q.p75, locale) },
    );
  }
  if (p.nonFinite !== undefined && p.nonFinite > 0) {
    figures.push({ label: profileKind(p) === 'time' ? 'Infinite times' : 'NaN and infinities', value: countText(p.nonFinite, locale) });
  }
  return figures;
}

export interface TopValue {
  value: string;
  count: string;
  /** its share of the values, 0 to 1 */
  share: number;
}

/** The most common values (up to ten), most common first. */
export function topValues(p: ColumnProfile, locale?: string): TopValue[] {
  return (p.top ?? []).map((t) => ({ value: quotedValue(t.value, locale, t.cut), count: countText(t.count, locale), share: p.count === 0 ? 0 : t.count / p.count }));
}

/** The popup's histogram: each bucket's range and count beside its bar. */
export function histogramBars(p: ColumnProfile, locale?: string): (Bar & { count: number })[] {
  const bars = profileKind(p) === 'number' || profileKind(p) === 'time' ? sparkline(p, locale) : [];
  return bars.map((bar, i) => ({ ...bar, count: p.histogram?.[i]?.count ?? 0 }));
}

/** Whether every value of the column differs from the others (ids, keys): its top values say nothing, so a strip says this instead. */
export function allDistinct(p: ColumnProfile): boolean {
  return profileKind(p) === 'values' && p.count > 1 && !p.distinctApproximate && p.distinct === p.count;
}

/** What a strip says while its profile is being made: with the rows read so far, while the engine reads the result first. */
export function waitingText(rows: number | undefined, locale?: string): string {
  return rows === undefined ? 'Profiling the whole result…' : `Profiling the whole result: reading, ${countText(rows, locale)} rows so far…`;
}
