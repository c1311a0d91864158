// Where the grid's "Go to" lands. A row past the last one goes to the last. Before the row
// count is known, only the rows read so far are known to exist: a row beyond them waits for the
// count (going there at once would stop at the end of what was read, the wrong row).

/** A row to go to now, or one to go to once the count says where the last row is. */
export type GoToTarget = { row: number } | { afterCount: number };

/**
 * `asked` is the 0-based row typed; `total` the view's row count once known; `known` the rows
 * known to exist so far (all of them when `exact`).
 */
export function goToRow(asked: number, total: number | undefined, known: { rows: number; exact: boolean }): GoToTarget {
  const row = Number.isFinite(asked) ? Math.max(0, Math.floor(asked)) : 0;
  if (total !== undefined) return { row: Math.min(row, Math.max(0, total - 1)) };
  if (known.exact) return { row: Math.min(row, Math.max(0, known.rows - 1)) };
  return row < known.rows ? { row } : { afterCount: row };
}

/** What the status says while a "Go to" waits for the count. */
export function countingToText(row: number): string {
  return `Counting rows to go to row ${(row + 1).toLocaleString()}…`;
}
