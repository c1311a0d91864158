// Long text values on their way out of the engine. A row may hold values of many MiB (a JSON
// document, a log); a page of them, held whole in the engine, the extension host and the
// webview, runs each out of memory. So a page's text values longer than CUT_CHARS leave DuckDB
// as their start and their length (DuckDB cuts them, so the whole values never reach Node),
// and the whole value of one cell is read when a user asks for it (copying it).

import type { DuckDBConnection } from '@duckdb/node-api';
import { CUT_CHARS, type CutValue, type ResultColumn } from './engineProtocol';
import { jsonRows } from './rowValues';

/** What a read hands out: pages with long values cut, or one column's whole values. */
export type RowShape = { cut: true } | { column: number };

export const CUT_ROWS: RowShape = { cut: true };

/** Columns whose values are text, which may be long: VARCHAR and JSON. */
function isText(column: Pick<ResultColumn, 'sqlType'>): boolean {
  const type = column.sqlType.toUpperCase();
  return type === 'VARCHAR' || type === 'JSON';
}

/**
 * `sql` (whose columns are `columns`, in order) read as `shape` asks: its rows, each text
 * value longer than CUT_CHARS as a CutValue; or rows of the one column asked for, whole.
 */
export async function readShaped(conn: DuckDBConnection, sql: string, params: string[], columns: readonly ResultColumn[], shape: RowShape): Promise<unknown[][]> {
  // the columns are renamed by place: names a statement gives twice stay apart
  const names = columns.map((_, i) => `dq_c${i}`);
  const from = `FROM (${sql}\n) AS dq_rows(${names.join(', ')})`;
  if ('column' in shape) {
    if (!Number.isSafeInteger(shape.column) || shape.column < 0 || shape.column >= columns.length) return [];
    return jsonRows(await conn.runAndReadAll(`SELECT ${names[shape.column]} ${from}`, params));
  }
  const texts = columns.flatMap((c, i) => (isText(c) ? [i] : []));
  if (texts.length === 0) return jsonRows(await conn.runAndReadAll(`SELECT * ${from}`, params));
  const text = (i: number): string => `CAST(${names[i]} AS VARCHAR)`;
  const select = columns.map((_, i) => (isText(columns[i]) ? `left(${text(i)}, ${CUT_CHARS})` : names[i]));
  // a value's length is counted only when its bytes say it may be long
  const lengths = texts.map((i) => `CASE WHEN strlen(${text(i)}) > ${CUT_CHARS} THEN length(${text(i)}) END`);
  const rows = jsonRows(await conn.runAndReadAll(`SELECT ${[...select, ...lengths].join(', ')} ${from}`, params));
  const width = columns.length;
  for (const row of rows) {
    for (let k = 0; k < texts.length; k++) {
      const length = row[width + k];
      if (length === null || Number(length) <= CUT_CHARS) continue;
      const cut: CutValue = { cut: true, start: row[texts[k]] as string, length: Number(length) };
      row[texts[k]] = cut;
    }
    row.length = width;
  }
  return rows;
}
