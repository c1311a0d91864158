// What the engine keeps of an open result: the view over its files, its first rows, its copy
// (resultStore.ts) and the damage found in its files. Shared by the reader, the damage checks,
// the copy's scheduler and the export.

import type { EngineError } from './engineErrors';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ReadResult } from './resultQueries';
import type { FilesSql, ResultStore } from './resultStore';

/** A JSONL result's files with a schema: a window of one file is read as its lines (fileLines.ts). */
export interface LineWindows {
  paths: string[];
  gzip: boolean;
  /** the rows of the lines given as the statement's one parameter (sourcePlan.ts) */
  sql: string;
}

export interface OpenResult extends ReadResult {
  id: string;
  /** a JSONL result's files, whose windows are read as lines and only the window's parsed (fileLines.ts) */
  lineWindows?: LineWindows;
  /** the result's first rows, read when it was opened */
  firstRows: unknown[][];
  /** `firstRows` are all the rows there are */
  allRowsRead: boolean;
  store: ResultStore;
  /** with `perFile`: the SELECT of several files in a row, which the copy copies at once when hurried */
  filesSql?: FilesSql;
  /** requests waiting for the copy that hurry it (a profile): it then copies several files at a time */
  hurried: number;
  /** names the files as they are (keptCopies.ts): a result open under several handles is one */
  key?: string;
  /** the handles this result is open under */
  holders: number;
  /** why the copy stopped short, when it did */
  copyFailure?: EngineError;
  /** the result's gzip files (JSONL, CSV, TSV), each read to its end once: DuckDB takes one cut short for a shorter file */
  gzipFiles?: string[];
  /** a gzip file found cut short or garbled: what reads past it fails at once, and the copy stops there */
  damage?: EngineError;
  /** the first damaged file */
  damagedFile?: number;
  /** the rows of that file before the damage, when known (JSONL: its whole lines) */
  damagedFileRows?: number;
  closed: boolean;
  conversion?: Promise<void>;
  converting?: DuckDBConnection;
  /** a file is being copied (and may be interrupted to give way) */
  copyingFile: boolean;
  /** the copy of a file was interrupted to give way to a request reading the files */
  gaveWay: boolean;
  /** ends the copy's wait for its turn when the result is closed */
  closing?: () => void;
  /** files unpacked for this result (unpackedFiles.ts), let go of with it */
  unpacked: string[];
}

/** The places of the result's gzip files (those read to their end), none when it has none. */
export function allFiles(result: Pick<OpenResult, 'gzipFiles'>): number[] {
  return result.gzipFiles ? result.gzipFiles.map((_, file) => file) : [];
}
