// The order the preview grid shows a result's columns in: key columns first, then the others
// in the result's order, `meta.*` columns (a change's action and time) last. Only the display
// changes: the rows keep the result's order, as an export writes them; copying a row follows
// the display.

import type { ResultColumn } from '../engine/engineProtocol';

/** Whether a column is one of a record's `meta` parts (`meta.action`, `meta.ts`). */
function isMeta(column: Pick<ResultColumn, 'name'>): boolean {
  return /^meta(\.|$)/.test(column.name);
}

/** The result's column places in the order the grid shows them. */
export function displayOrder(columns: readonly Pick<ResultColumn, 'name' | 'key'>[]): number[] {
  const rank = (column: Pick<ResultColumn, 'name' | 'key'>): number => (column.key ? 0 : isMeta(column) ? 2 : 1);
  // a stable sort: within each rank, the result's order
  return columns.map((_, place) => place).sort((a, b) => rank(columns[a]) - rank(columns[b]) || a - b);
}

/** A row's values (in the result's order) in the order the grid shows them. */
export function inDisplayOrder<T>(values: readonly T[], order: readonly number[]): T[] {
  return order.map((place) => values[place]);
}
