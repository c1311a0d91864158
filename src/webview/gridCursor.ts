// Keyboard movement of the grid's cell cursor, and the first row on screen that keeps the
// cursor visible. Arrows move one cell, PageUp/PageDown a screen, Home/End to the first or
// last column, Ctrl+Home/Ctrl+End to the first or last row.

export interface Cursor {
  row: number;
  column: number;
}

export interface GridExtent {
  rows: number;
  columns: number;
  /** rows on one screen */
  pageRows: number;
}

export interface KeyPress {
  key: string;
  ctrl: boolean;
}

/** The cursor after a key, or undefined when the key does not move it. */
export function moveCursor(cursor: Cursor, press: KeyPress, extent: GridExtent): Cursor | undefined {
  const page = Math.max(1, extent.pageRows - 1);
  const lastRow = Math.max(0, extent.rows - 1);
  const lastColumn = Math.max(0, extent.columns - 1);
  let { row, column } = cursor;
  switch (press.key) {
    case 'ArrowUp':
      row -= 1;
      break;
    case 'ArrowDown':
      row += 1;
      break;
    case 'ArrowLeft':
      column -= 1;
      break;
    case 'ArrowRight':
      column += 1;
      break;
    case 'PageUp':
      row -= page;
      break;
    case 'PageDown':
      row += page;
      break;
    case 'Home':
      if (press.ctrl) row = 0;
      else column = 0;
      break;
    case 'End':
      if (press.ctrl) row = lastRow;
      else column = lastColumn;
      break;
    default:
      return undefined;
  }
  return { row: clamp(row, 0, lastRow), column: clamp(column, 0, lastColumn) };
}

/** The first row on screen after the cursor moved: unchanged while the cursor is visible. */
export function followCursor(firstRow: number, cursorRow: number, pageRows: number): number {
  if (cursorRow < firstRow) return cursorRow;
  if (cursorRow >= firstRow + pageRows) return Math.max(0, cursorRow - pageRows + 1);
  return firstRow;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}
