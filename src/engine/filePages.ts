// A result's rows in its order while its copy is under way: a page of rows already copied is
// read from the table by rowid; a page further on from the file that holds it, once a count has
// given each file's rows (a JSONL file decompressed and its lines split in Node, only the page's
// lines parsed, fileLines.ts, and the lines around the page kept for the pages next to it); else
// from all files. A count counts the files not copied yet, and each file's rows are kept. A far
// window of a JSONL file is read from the restart points the read to its end left (fileEnds.ts,
// gzipIndex.ts).

import type { DuckDBConnection } from '@duckdb/node-api';
import type { CopyScheduler } from './copyScheduler';
import { FILES_AT_ONCE, rowsBeforeDamage, type DamageChecks } from './damageChecks';
import { isEngineError, toEngineError } from './engineErrors';
import type { Work } from './engineWork';
import { countRecords, recordSpan, type Around, type LineSpan } from './fileLines';
import { readShaped, type RowShape } from './longValues';
import { allFiles, type OpenResult } from './openResult';
import { columnList, partsOf } from './resultQueries';

/** A window that starts this far into a JSONL file reads the file's lines rather than its records. */
const LINE_WINDOW_FROM = 1000;
/**
 * Records read on either side of such a window and kept for the windows next to it (those the
 * preview asks for as it scrolls on), so they need no second pass over the file.
 */
const LINES_AROUND: Around = { before: 1000, after: 2000, bytes: 4 * 1024 * 1024 };

export class FilePages {
  /** the lines last read from a file not yet copied, and around them */
  private recentLines?: { result: OpenResult; file: number; span: LineSpan };

  constructor(
    private readonly checks: DamageChecks,
    private readonly copies: CopyScheduler,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * Rows `offset` to `offset + limit` in the result's order: from the table as far as it is
   * copied; beyond, from the files that hold them once each file's rows are known; else by
   * reading the files up to `offset`.
   */
  async plainRows(conn: DuckDBConnection, work: Work, result: OpenResult, offset: number, limit: number, shape: RowShape): Promise<unknown[][]> {
    const { store } = result;
    const columns = columnList(result.columns);
    const shaped = (sql: string, params: string[] = []): Promise<unknown[][]> => readShaped(conn, sql, params, result.columns, shape);
    const fromStore = (start: number, rows: number): Promise<unknown[][]> =>
      store.use(() => shaped(`SELECT ${columns} FROM ${store.table} WHERE rowid >= ${start} AND rowid < ${start + rows} ORDER BY rowid`));
    if (store.complete || offset + limit <= store.convertedRows) return fromStore(offset, limit);
    const parts = result.perFile ? partsOf(result.damage ? rowsBeforeDamage(result) : store.fileRows, offset, limit) : undefined;
    // past a damaged file, rows are not where they seem: only those known to lie before the damage are served
    if (result.damage && (!parts || parts.reduce((sum, part) => sum + part.rows, 0) < limit)) throw result.damage;
    const fromFiles = (sql: string): Promise<unknown[][]> => this.copies.readingFiles(() => shaped(sql));
    if (!parts) {
      const rows = await fromFiles(`SELECT ${columns} FROM ${result.view} LIMIT ${limit} OFFSET ${offset}`);
      // a page that ends short read the files to their end, where one cut short reads as shorter
      if (rows.length < limit) await this.checks.checkingEnds(result, allFiles(result), work, () => Promise.resolve());
      return rows;
    }
    const rows: unknown[][] = [];
    const fromFile = async (file: number, from: number, count: number): Promise<unknown[][]> => {
      const parsed = `SELECT ${columns} FROM (${result.perFile![file]}) LIMIT ${count} OFFSET ${from}`;
      const lines = result.lineWindows;
      if (!lines || from < LINE_WINDOW_FROM) return fromFiles(parsed);
      const rowsOf = async (text: string[]): Promise<unknown[][]> =>
        text.length === 0 ? [] : shaped(`SELECT ${columns} FROM (${lines.sql})`, [text.join('\n')]);
      try {
        const near = this.nearLines(result, file, from, count);
        if (near) return await rowsOf(near);
        return await this.copies.readingFiles(async () => {
          const path = lines.paths[file];
          // from the restart point before the window, once the file was read to its end
          const span = await recordSpan(path, { gzip: lines.gzip, from, count, cancelled: () => work.cancelled }, LINES_AROUND, (record) => this.checks.ends.restartAt(path, record));
          this.recentLines = { result, file, span };
          return rowsOf(span.lines.slice(from - span.first, from - span.first + count));
        });
      } catch (err) {
        // a damaged gzip file (the lines read), not a malformed record (the JSON reader names its file)
        if (isEngineError(err) && err.kind === 'corrupt') throw err;
        const e = toEngineError(err);
        if (e.kind === 'cancelled') throw e;
        this.log(`result ${result.id}: rows ${from} to ${from + count} of file ${file + 1} are read by the JSON reader: ${e.message}`);
        return fromFiles(parsed);
      }
    };
    for (const part of parts) {
      if (part.file < store.convertedFiles) rows.push(...(await fromStore(part.start + part.from, part.rows)));
      else rows.push(...(await fromFile(part.file, part.from, part.rows)));
    }
    return rows;
  }

  /**
   * Counts the rows of each file whose count is not known yet: a JSONL file's by its lines
   * (fileLines.ts, about three times as fast as the JSON reader on deflated files), the others,
   * and any whose lines could not be read, in one pass of DuckDB over them.
   */
  async countFiles(conn: DuckDBConnection, work: Work, result: OpenResult, perFile: string[]): Promise<void> {
    const known = (file: number): boolean => result.store.fileRows[file] !== undefined;
    const lines = result.lineWindows;
    if (lines) {
      const queue = perFile.map((_, file) => file).filter((file) => !known(file));
      const counter = async (): Promise<void> => {
        for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
          try {
            result.store.fileRows[file] = await this.countLines(result, file, () => work.cancelled);
          } catch (err) {
            const e = toEngineError(err);
            if (e.kind === 'cancelled' || e.kind === 'corrupt') {
              queue.length = 0;
              throw e;
            }
            this.log(`result ${result.id}: the rows of file ${file + 1} are counted by the JSON reader: ${e.message}`);
          }
        }
      };
      await this.copies.readingFiles(() => Promise.all(Array.from({ length: FILES_AT_ONCE }, counter)));
    }
    const unknown = perFile.flatMap((sql, file) => (known(file) ? [] : [{ sql, file }]));
    if (unknown.length === 0) return;
    const counts = unknown.map(({ sql, file }) => `SELECT ${file} AS file, count(*) AS n FROM (${sql})`).join('\nUNION ALL\n');
    const counted = await this.copies.readingFiles(() => this.checks.checkingEnds(result, unknown.map((u) => u.file), work, () => conn.runAndReadAll(counts)));
    for (const [file, rows] of counted.getRowsJson()) result.store.fileRows[Number(file)] = Number(rows);
  }

  /** Lets go of the lines kept of a result being closed. */
  forget(result: OpenResult): void {
    if (this.recentLines?.result === result) this.recentLines = undefined;
  }

  /** A JSONL file's records, counted by its lines (fileLines.ts); a gzip file cut short fails as `corrupt`. */
  private async countLines(result: OpenResult, file: number, cancelled: () => boolean): Promise<number> {
    const lines = result.lineWindows!;
    if (lines.gzip) return (await this.checks.checkWhole(result, file, cancelled))!;
    return countRecords(lines.paths[file], { gzip: false, cancelled });
  }

  /** Records `from` to `from + count` of a result's file when the lines last read hold them all. */
  private nearLines(result: OpenResult, file: number, from: number, count: number): string[] | undefined {
    const recent = this.recentLines;
    if (recent?.result !== result || recent.file !== file) return undefined;
    const { first, lines, atEnd } = recent.span;
    if (from < first || (from + count > first + lines.length && !atEnd)) return undefined;
    return lines.slice(from - first, from - first + count);
  }
}
