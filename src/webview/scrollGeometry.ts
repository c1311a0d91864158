// Maps the grid's scrollbar to rows. Up to `maxScrollPx` the scrollbar is exact (one row is
// `rowHeight` pixels); beyond it (a browser tops out near 33.5 million pixels, about 1.4
// million rows) the same scrollbar is scaled, so its whole length still spans every row.

export interface ScrollGeometry {
  totalRows: number;
  rowHeight: number;
  /** rows that fit in the viewport */
  viewportRows: number;
  /** the tallest scroll content the grid will make */
  maxScrollPx: number;
}

/** Height of the scroll content that stands for the rows. */
export function contentHeight(g: ScrollGeometry): number {
  return Math.min(g.totalRows * g.rowHeight, g.maxScrollPx);
}

/** The last row that can be the first one on screen. */
export function lastFirstRow(g: ScrollGeometry): number {
  return Math.max(0, g.totalRows - g.viewportRows);
}

/** Whether the scrollbar is scaled (a pixel stands for more than 1/rowHeight of a row). */
export function isScaled(g: ScrollGeometry): boolean {
  return g.totalRows * g.rowHeight > g.maxScrollPx;
}

/** The first row on screen for a scroll position. */
export function rowAtScroll(scrollTop: number, g: ScrollGeometry): number {
  const range = scrollRange(g);
  const last = lastFirstRow(g);
  if (range <= 0 || scrollTop <= 0) return 0;
  if (scrollTop >= range) return last;
  return Math.min(last, Math.floor((scrollTop * last) / range));
}

/** The scroll position that shows `row` first (the nearest one, when scaled). */
export function scrollForRow(row: number, g: ScrollGeometry): number {
  const last = lastFirstRow(g);
  if (last === 0) return 0;
  const clamped = Math.min(Math.max(0, row), last);
  return Math.ceil((clamped * scrollRange(g)) / last);
}

function scrollRange(g: ScrollGeometry): number {
  return contentHeight(g) - Math.min(g.viewportRows, g.totalRows) * g.rowHeight;
}
