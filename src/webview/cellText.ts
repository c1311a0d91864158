// How a cell's value reads on screen and on the clipboard. Rows arrive JSON-safe (big
// integers as strings, dates as ISO text); nested values show as compact JSON.

/** Display text is cut here; copying takes the whole value. */
const SHOWN_CHARS = 500;

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function shownText(value: unknown): string {
  const text = cellText(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}

/** A row as one line of tab-separated values, with tabs and line breaks inside values escaped. */
export function rowTsv(row: readonly unknown[]): string {
  return row.map((v) => cellText(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r\n|\r|\n/g, '\\n')).join('\t');
}
