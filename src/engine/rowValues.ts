// Rows as the engine hands them out: JSON-safe values, timestamps in ISO 8601.

import type { DuckDBResultReader } from '@duckdb/node-api';

/** `2026-11-19 00:00:00.5+00` (TimeZone UTC) as `2026-11-19T00:00:00.5Z`. */
export function isoTimestamp(text: string): string {
  return text.replace(' ', 'T').replace(/\+00(:00)?$/, 'Z');
}

/** The rows read so far, from `from` on, with timestamps in ISO 8601. */
export function jsonRows(reader: DuckDBResultReader, from = 0): unknown[][] {
  const timestampColumns = reader
    .columnTypes()
    .map((t, i) => (String(t).startsWith('TIMESTAMP') ? i : -1))
    .filter((i) => i >= 0);
  const rows = reader.getRowsJson().slice(from) as unknown[][];
  if (timestampColumns.length === 0) return rows;
  for (const row of rows) {
    for (const i of timestampColumns) {
      if (typeof row[i] === 'string') row[i] = isoTimestamp(row[i] as string);
    }
  }
  return rows;
}
