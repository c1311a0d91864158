// How wide the preview grid makes each column: wide enough for its header (name, and type line)
// and for the values of the rows measured (the first window), in characters of the grid's
// monospace font, between MIN_CH and MAX_CH; a longer value shows cut, whole on hover. Numbers
// are right-aligned.

import type { ResultColumn } from '../engine/engineProtocol';
import { shownText } from './cellText';

/** The narrowest column, in characters. */
export const MIN_CH = 6;
/** The widest a column grows for its content; longer values show cut. */
export const MAX_CH = 40;
/** Characters a sortable header's name may gain: the sort mark (`▲ `). */
const SORT_MARK_CH = 2;

/** Whether a column holds numbers (right-aligned, so digits line up). */
export function isNumeric(column: Pick<ResultColumn, 'type'>): boolean {
  return column.type === 'int64' || column.type === 'int32' || column.type === 'number';
}

/** The text of a column's type line in the header. */
export function typeLabel(column: Pick<ResultColumn, 'type' | 'key'>): string {
  return column.key ? `${column.type} · key` : column.type;
}

/**
 * Each column's width in characters: the longest of its name (with room for the sort mark
 * where the grid sorts), its type line (drawn smaller) and its values in `rows`, clamped to
 * MIN_CH..MAX_CH. `rows` hold the columns' values in the same order as `columns`.
 */
export function columnWidths(columns: readonly Pick<ResultColumn, 'name' | 'type' | 'key'>[], rows: readonly (readonly unknown[])[], sortable: boolean): number[] {
  return columns.map((column, c) => {
    const header = Math.max(column.name.length + (sortable ? SORT_MARK_CH : 0), Math.ceil(typeLabel(column).length * 0.85));
    const content = rows.reduce((widest, row) => Math.max(widest, Math.min(MAX_CH, shownText(row[c]).length)), 0);
    return Math.min(MAX_CH, Math.max(MIN_CH, header, content));
  });
}
