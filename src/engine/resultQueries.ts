// The SQL that reads an open result's rows for a view (its filters, its own WHERE, its sort):
// from the result's table once the copy is complete, else from its files (and the rows copied
// so far), always in the result's order, ties of a sort broken by each row's place in it.

import type { ResultColumn, View } from './engineProtocol';
import type { ResultStore } from './resultStore';
import type { ViewOrder } from './rowPositions';
import { orderClause, quoteIdent, whereClause, type BoundSql } from './sqlText';

/** What the queries need to know of an open result. */
export interface ReadResult {
  /** the view over the result's files */
  view: string;
  columns: ResultColumn[];
  /** the SELECT of each file alone, when each file reads with the types of all */
  perFile?: string[];
  store: Pick<ResultStore, 'table' | 'complete' | 'convertedFiles' | 'convertedRows'>;
}

/** What a query reads: the result's table (attached for it), its files (copies give way to it). */
export interface Reads {
  readsStore: boolean;
  readsFiles: boolean;
}

/** A view that neither filters nor sorts: the result's rows in their order. */
export function isPlain(view: View): boolean {
  return (view.filters ?? []).length === 0 && !view.where?.trim() && (view.sort ?? []).length === 0;
}

export function columnList(columns: ResultColumn[]): string {
  return columns.map((c) => quoteIdent(c.name)).join(', ');
}

/**
 * The view's rows in the result's order, as one query: from the table once it is complete,
 * else from the files. Sorted, ties are broken by each row's place in the result: its rowid
 * in the table; while the table fills, its file and its number in that file (the rows of the
 * files already copied are read from the table), so the order is the same before, during and
 * after the copy however the view is paged.
 */
export function viewQuery(result: ReadResult, view: View): BoundSql & Reads & { complete: boolean } {
  const columns = columnList(result.columns);
  const complete = result.store.complete;
  if (complete) {
    const rows = viewRows(result, view, false, complete);
    return { ...rows, complete, sql: `SELECT ${columns} FROM ${rows.sql}${orderClause(view, result.columns, 'rowid')}` };
  }
  if ((view.sort ?? []).length === 0) {
    const where = whereClause(view, result.columns);
    return { sql: `SELECT ${columns} FROM ${result.view}${where.sql}`, params: where.params, readsStore: false, readsFiles: true, complete };
  }
  const rows = viewRows(result, view, true, complete);
  return { ...rows, complete, sql: `SELECT ${columns} FROM ${rows.sql}${orderClause(view, result.columns, 'dq_file, dq_row')}` };
}

/**
 * The rows a view keeps, as a relation: the table once complete, else the files in their
 * order; `numbered`, or to count while the table fills, one part per file (the files already
 * copied read from the table), each row with its place as `dq_file` and `dq_row`.
 */
export function viewRows(result: ReadResult, view: View, numbered: boolean, complete = result.store.complete): BoundSql & Reads {
  const where = whereClause(view, result.columns);
  const { store, perFile } = result;
  if (complete) return { sql: `${store.table}${where.sql}`, params: where.params, readsStore: true, readsFiles: false };
  const copiedFiles = store.convertedFiles;
  const columns = columnList(result.columns);
  if (!perFile || (!numbered && copiedFiles === 0)) {
    if (!numbered) return { sql: `${result.view}${where.sql}`, params: where.params, readsStore: false, readsFiles: true };
    return { sql: `(SELECT ${columns}, 0 AS dq_file, row_number() OVER () AS dq_row FROM ${result.view}${where.sql})`, params: where.params, readsStore: false, readsFiles: true };
  }
  const parts: string[] = [];
  if (copiedFiles > 0) {
    parts.push(`SELECT ${columns}, -1 AS dq_file, dq_row FROM (SELECT ${columns}, rowid AS dq_row FROM ${store.table} WHERE rowid < ${store.convertedRows})${where.sql}`);
  }
  for (let file = copiedFiles; file < perFile.length; file++) {
    parts.push(`SELECT ${columns}, ${file} AS dq_file, ${numbered ? 'row_number() OVER ()' : '0'} AS dq_row FROM (${perFile[file]})${where.sql}`);
  }
  return { sql: `(${parts.join('\nUNION ALL\n')})`, params: parts.flatMap(() => where.params), readsStore: copiedFiles > 0, readsFiles: copiedFiles < perFile.length };
}

/** The WHERE and ORDER BY over the complete table that put a view's rowids in the view's order. */
export function positionsOrder(result: ReadResult, view: View): ViewOrder {
  const where = whereClause(view, result.columns);
  const orderBy = orderClause(view, result.columns, 'rowid') || ' ORDER BY rowid';
  const [sort] = view.sort ?? [];
  return { where, orderBy, first: sort && { column: quoteIdent(sort.column), descending: sort.descending === true } };
}

export interface FilePart {
  file: number;
  /** the file's first row in the result */
  start: number;
  /** the part's first row in the file */
  from: number;
  rows: number;
}

/**
 * Where rows `offset` to `offset + limit` lie in the files, given each file's row count:
 * undefined when a count needed to know it is missing. Past the last row there is nothing.
 */
export function partsOf(fileRows: (number | undefined)[], offset: number, limit: number): FilePart[] | undefined {
  const parts: FilePart[] = [];
  let start = 0;
  for (let file = 0; file < fileRows.length && start < offset + limit; file++) {
    const rows = fileRows[file];
    if (rows === undefined) return undefined;
    const from = Math.max(0, offset - start);
    const to = Math.min(rows, offset + limit - start);
    if (to > from) parts.push({ file, start, from, rows: to - from });
    start += rows;
  }
  return parts;
}
