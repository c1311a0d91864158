// The lake target's DuckDB work: an in-memory instance (spilling to the run's work folder)
// that stages a job's gzip JSONL records with the DuckDB target's own SQL (typed columns, the
// newest record of each key), gathers the rows of the files a run writes into one table in
// Parquet column names, sorts them by key, and writes them out as zstd Parquet files of about
// the size asked (rows per file estimated from a sample), each with a companion file of its
// key columns only. Also what a run of changes asks: which files' key ranges hold a changed
// key, and which of those files really hold one.

import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { cancelledError, DqError, isDqError } from '../client/errors';
import { loadDuckDb } from '../engine/duckdbModule';
import { quoteIdent, quoteString } from '../engine/sqlText';
import { sqlTypeOf } from './duckdbSql';
import { parquetName } from './lakeLayout';
import type { LakeFile } from './lakeState';
import type { TargetColumn, TargetTable } from './syncTarget';
import { makeFolder } from '../core/makeFolder';

/** A column as the lake writes it: its Parquet name, and the column it is read from in the staged records. */
export interface LakeColumn {
  source: string;
  name: string;
  type: TargetColumn['type'];
  key: boolean;
}

export function lakeColumnsOf(table: TargetTable): LakeColumn[] {
  return table.columns.map((c) => ({ source: c.name, name: parquetName(c.name), type: c.type, key: c.key }));
}

/** The table the rows of a run's new files are gathered in, in Parquet names and the columns' order. */
export const OUT_TABLE = 'dq_out';
const SORTED_TABLE = 'dq_sorted';
/** the keys a run of changes touches, in Parquet names */
export const CHANGED_TABLE = 'dq_changed';

/** A Parquet file written to the work folder, with its companion of keys. */
export interface WrittenFile {
  path: string;
  keysPath: string;
  rows: number;
  bytes: number;
  minKey: string;
  maxKey: string;
}

export class LakeEngine {
  private constructor(
    private readonly instance: DuckDBInstance,
    readonly conn: DuckDBConnection,
    /** the run's work folder */
    readonly dir: string,
    private readonly what: string,
    private readonly signal?: AbortSignal,
  ) {}

  static async open(dir: string, what: string, memoryBytes: number, signal?: AbortSignal): Promise<LakeEngine> {
    const duckdb = loadDuckDb();
    await makeFolder(path.join(dir, 'spill'));
    const instance = await duckdb.DuckDBInstance.create(':memory:', {
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      preserve_insertion_order: 'true',
      temp_directory: path.join(dir, 'spill'),
      memory_limit: `${Math.floor(memoryBytes / (1024 * 1024))}MiB`,
    });
    const conn = await instance.connect();
    await conn.run("SET TimeZone = 'UTC'");
    const engine = new LakeEngine(instance, conn, dir, what, signal);
    signal?.addEventListener('abort', engine.interrupt);
    return engine;
  }

  private readonly interrupt = (): void => this.conn.interrupt();

  /** Runs a statement; returns the rows it changed. */
  async run(sql: string, values?: (string | number | null)[]): Promise<number> {
    if (this.signal?.aborted) throw this.cancelled();
    try {
      return Number((await this.conn.run(sql, values)).rowsChanged);
    } catch (err) {
      throw this.failure(err);
    }
  }

  /** Runs a query; its rows as JSON values. */
  async rows(sql: string, values?: (string | number | null)[]): Promise<unknown[][]> {
    if (this.signal?.aborted) throw this.cancelled();
    try {
      return (await this.conn.runAndReadAll(sql, values)).getRowsJson() as unknown[][];
    } catch (err) {
      throw this.failure(err);
    }
  }

  close(): void {
    this.signal?.removeEventListener('abort', this.interrupt);
    this.conn.closeSync();
    this.instance.closeSync();
  }

  private cancelled(): DqError {
    return cancelledError(`The sync of ${this.what}`, { after: '; its files, state and manifest stay as they were.' });
  }

  /** A DuckDB failure as a DqError: a full or unwritable work folder names the folder. */
  failure(err: unknown): DqError {
    if (isDqError(err)) return err;
    if (this.signal?.aborted) return this.cancelled();
    const raw = err instanceof Error ? err.message : String(err);
    const first = raw.split('\n')[0].trim();
    if (/no space left|disk is full|ENOSPC|could not write|file too large|EFBIG|read-only file system|permission denied|disk quota/i.test(raw)) {
      return new DqError('io', `Writing the Parquet files of ${this.what} in the work folder ${this.dir} failed: ${first}`, {
        hint: 'Free disk space there or choose another work folder (--work-dir); the table stays at its last complete sync.',
        cause: err,
      });
    }
    if (/^Interrupt/i.test(first)) return this.cancelled();
    if (/^(Invalid Input|Conversion|Constraint) Error/i.test(first)) {
      return new DqError('invalidResponse', `The result files of ${this.what} could not be loaded: ${first}`, {
        hint: 'Sync the table again; if it fails the same way, report the table and its schema version to the provider.',
        cause: err,
      });
    }
    return new DqError('io', `DuckDB failed converting ${this.what} to Parquet: ${first}`, { hint: 'The table stays at its last complete sync; sync it again.', cause: err });
  }
}

function keysOf(columns: readonly LakeColumn[]): LakeColumn[] {
  return columns.filter((c) => c.key);
}

const ident = (c: LakeColumn): string => quoteIdent(c.name);

/** `CREATE TABLE dq_out (...)`: the run's rows, typed, in Parquet names (json as text). */
export function createOutSql(columns: readonly LakeColumn[]): string {
  const lines = columns.map((c) => `  ${ident(c)} ${c.type === 'json' ? 'VARCHAR' : sqlTypeOf(c.type)}`);
  return `CREATE OR REPLACE TABLE ${OUT_TABLE} (\n${lines.join(',\n')}\n)`;
}

/** The staged records `from` (in the target's column names) in Parquet names and forms; `where` picks which. */
export function selectStagedSql(columns: readonly LakeColumn[], from: string, where = ''): string {
  const values = columns.map((c) => `${c.type === 'json' ? `CAST(${quoteIdent(c.source)} AS VARCHAR)` : quoteIdent(c.source)} AS ${ident(c)}`);
  return `SELECT ${values.join(', ')} FROM ${from}${where ? ` WHERE ${where}` : ''}`;
}

/** Inserts the staged records `from` into dq_out; `where` picks which. */
export function insertStagedSql(columns: readonly LakeColumn[], from: string, where = ''): string {
  return `INSERT INTO ${OUT_TABLE} (${columns.map(ident).join(', ')}) ${selectStagedSql(columns, from, where)}`;
}

/** `read_parquet([...], union_by_name = true)`: files of several schema versions, a missing column as NULL. */
export function readParquetSql(files: readonly string[], extra = ''): string {
  return `read_parquet([${files.map(quoteString).join(', ')}], union_by_name = true${extra})`;
}

/** The key columns of `a` equal those of `b` (aliases). */
export function keysMatch(columns: readonly LakeColumn[], a: string, b: string): string {
  return keysOf(columns).map((c) => `${a}.${ident(c)} = ${b}.${ident(c)}`).join(' AND ');
}

/** The row of key values of alias `a`: `(a."id", a."ts")`. */
function keyRow(columns: readonly LakeColumn[], a: string): string {
  return `(${keysOf(columns).map((c) => `${a}.${ident(c)}`).join(', ')})`;
}

/**
 * The files (by index) whose key range holds a key of dq_changed: the ranges are compared in
 * DuckDB, as the keys were ordered when written. A file without a range is always one.
 */
export async function filesInRange(engine: LakeEngine, columns: readonly LakeColumn[], files: readonly LakeFile[]): Promise<number[]> {
  const keys = keysOf(columns);
  const bounds = (side: string): string[] => keys.map((c, i) => `${quoteIdent(`${side}_${i}`)} ${sqlTypeOf(c.type === 'json' ? 'text' : c.type)}`);
  await engine.run(`CREATE OR REPLACE TEMPORARY TABLE dq_ranges (idx INTEGER, ${[...bounds('lo'), ...bounds('hi')].join(', ')})`);
  const always: number[] = [];
  const cast = (c: LakeColumn, param: number, i: number): string => `CAST(json_extract_string($${param}, '$[${i}]') AS ${sqlTypeOf(c.type === 'json' ? 'text' : c.type)})`;
  const insert = `INSERT INTO dq_ranges VALUES ($1, ${[...keys.map((c, i) => cast(c, 2, i)), ...keys.map((c, i) => cast(c, 3, i))].join(', ')})`;
  for (const [idx, f] of files.entries()) {
    if (f.minKey === undefined || f.maxKey === undefined) always.push(idx);
    else await engine.run(insert, [idx, f.minKey, f.maxKey]);
  }
  const lo = `(${keys.map((_, i) => `r.${quoteIdent(`lo_${i}`)}`).join(', ')})`;
  const hi = `(${keys.map((_, i) => `r.${quoteIdent(`hi_${i}`)}`).join(', ')})`;
  const row = keyRow(columns, 'c');
  const found = await engine.rows(`SELECT DISTINCT r.idx FROM dq_ranges r JOIN ${CHANGED_TABLE} c ON ${row} >= ${lo} AND ${row} <= ${hi}`);
  return [...new Set([...always, ...found.map(([idx]) => Number(idx))])].sort((a, b) => a - b);
}

/** Of the local key files, those that hold a key of dq_changed. */
export async function filesHoldingChanges(engine: LakeEngine, columns: readonly LakeColumn[], keyFiles: readonly string[]): Promise<Set<string>> {
  if (keyFiles.length === 0) return new Set();
  const found = await engine.rows(
    `SELECT DISTINCT k.filename FROM ${readParquetSql(keyFiles, ', filename = true')} k SEMI JOIN ${CHANGED_TABLE} c ON ${keysMatch(columns, 'k', 'c')}`,
  );
  return new Set(found.map(([f]) => String(f)));
}

/**
 * Writes the rows of `from` (dq_out, or a query; dropped afterwards with `drop`), sorted by key, as Parquet files of about `maxBytes` each into the work folder
 * (`name(n)` gives each file's path) and hands each to `take` (which uploads and removes it)
 * before writing the next, so the work folder holds one file at a time.
 */
export async function writeFiles(
  engine: LakeEngine,
  columns: readonly LakeColumn[],
  from: { sql: string; drop: string },
  maxBytes: number,
  sampleRows: number,
  name: (n: number) => string,
  take: (file: WrittenFile) => Promise<void>,
): Promise<number> {
  const order = keysOf(columns).map(ident).join(', ');
  await engine.run(`CREATE OR REPLACE TABLE ${SORTED_TABLE} AS SELECT * FROM (${from.sql}) ORDER BY ${order}`);
  await engine.run(`DROP TABLE ${from.drop}`);
  const [[count]] = await engine.rows(`SELECT count(*) FROM ${SORTED_TABLE}`);
  const total = Number(count);
  if (total === 0) return 0;
  // the sorted table's rows scan in rowid order, which is key order: insertion order is kept (preserve_insertion_order)
  const range = (from: number, to: number): string => `SELECT * FROM ${SORTED_TABLE} WHERE rowid >= ${from} AND rowid < ${to}`;
  const perFile = await rowsPerFile(engine, range(0, Math.min(total, sampleRows)), Math.min(total, sampleRows), maxBytes);
  let n = 0;
  for (let from = 0; from < total; from += perFile) {
    const to = Math.min(total, from + perFile);
    const file = name(n++);
    const keysPath = `${file}.keys`;
    await engine.run(`COPY (${range(from, to)}) TO ${quoteString(file)} (FORMAT parquet, COMPRESSION zstd)`);
    await engine.run(`COPY (SELECT ${order} FROM (${range(from, to)})) TO ${quoteString(keysPath)} (FORMAT parquet, COMPRESSION zstd)`);
    const json = `json_array(${order})::VARCHAR`;
    const [[minKey]] = await engine.rows(`SELECT ${json} FROM ${SORTED_TABLE} WHERE rowid >= ${from} AND rowid < ${to} ORDER BY ${order} LIMIT 1`);
    const [[maxKey]] = await engine.rows(`SELECT ${json} FROM ${SORTED_TABLE} WHERE rowid >= ${from} AND rowid < ${to} ORDER BY ${keysOf(columns).map((c) => `${ident(c)} DESC`).join(', ')} LIMIT 1`);
    await take({ path: file, keysPath, rows: to - from, bytes: (await stat(file)).size, minKey: String(minKey), maxKey: String(maxKey) });
  }
  await engine.run(`DROP TABLE ${SORTED_TABLE}`);
  return total;
}

/** Rows per file: the bytes a row takes in a sample written as Parquet, into 90% of `maxBytes`. */
async function rowsPerFile(engine: LakeEngine, sample: string, sampleRows: number, maxBytes: number): Promise<number> {
  const file = path.join(engine.dir, 'sample.parquet');
  try {
    await engine.run(`COPY (${sample}) TO ${quoteString(file)} (FORMAT parquet, COMPRESSION zstd)`);
    const perRow = Math.max(1, (await stat(file)).size / sampleRows);
    return Math.max(1, Math.floor((maxBytes * 0.9) / perRow));
  } finally {
    await rm(file, { force: true });
  }
}
