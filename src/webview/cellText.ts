// How a cell's value reads on screen and on the clipboard. Rows arrive JSON-safe (big
// integers as strings, dates as ISO text); nested values show as compact JSON. A long text
// value arrives cut (its start and its length, engineProtocol.ts): it shows as its start, and
// copying it asks the extension for the whole value.

import type { CutValue } from '../engine/engineProtocol';

/** Display text is cut here; copying takes the whole value. */
const SHOWN_CHARS = 500;

/** A value a page carries cut: only its start is here. */
export function isCutValue(value: unknown): value is CutValue {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<CutValue>;
  return v.cut === true && typeof v.start === 'string' && typeof v.length === 'number';
}

/** Whether copying a row (or one of its cells) needs whole values the grid does not have. */
export function holdsCutValue(values: readonly unknown[]): boolean {
  return values.some(isCutValue);
}

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (isCutValue(value)) return `${value.start}…`;
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function shownText(value: unknown): string {
  const text = cellText(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}

/** Longer values than this may not fit their column: hovering shows them (up to HOVER_CHARS). */
const HOVER_AFTER_CHARS = 24;
const HOVER_CHARS = 2_000;

/** What hovering a cell shows: a long value in full (or its first HOVER_CHARS), nothing for a short one. */
export function hoverText(value: unknown): string {
  const text = isCutValue(value) ? value.start : cellText(value);
  const length = isCutValue(value) ? value.length : text.length;
  if (length <= HOVER_AFTER_CHARS) return '';
  return length > HOVER_CHARS ? `${text.slice(0, HOVER_CHARS)}… (Ctrl+C copies all ${length.toLocaleString()} characters)` : text;
}

/** A row as one line of tab-separated values, with tabs and line breaks inside values escaped. */
export function rowTsv(row: readonly unknown[]): string {
  return row.map((v) => cellText(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r\n|\r|\n/g, '\\n')).join('\t');
}
