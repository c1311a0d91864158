// Loads a job's result files (gzip JSONL, or plain JSONL, known by their first bytes) into a
// MySQL table, streaming: each file is decompressed, checked line by line (jsonEscapes.ts),
// turned into rows (mysqlRecords.ts) and sent to the server as it is read, so memory holds a few
// chunks and nothing uncompressed touches the disk. The rows go by `LOAD DATA LOCAL INFILE` from
// that stream; while the connection's write buffer is full the reading waits. A server that
// forbids LOCAL INFILE gets batched multi-row INSERTs instead (said once, as a warning, by the
// caller). LOAD DATA LOCAL turns a value that does not fit, and a repeated key, into a warning
// rather than an error, so the warnings are read back after each file: a repeated key is
// reported to the caller (a snapshot then takes the last record of each key), anything else
// fails the run naming the column. The rows the server took must be the rows sent.

import * as path from 'node:path';
import { PassThrough, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { DqError } from '../client/errors';
import { JsonEscapeFilter } from './jsonEscapes';
import type { MysqlSession } from './mysqlConnection';
import { DUPLICATE_KEY, LOCAL_INFILE_REFUSED, mysqlErrno } from './mysqlErrors';
import { RecordReader, RecordRows, type FieldValue, type LoadColumn } from './mysqlRecords';
import { loadDataStatement, quoteIdent } from './mysqlSql';
import { openResultFile } from './resultFileSource';

/** How rows reach the server: LOAD DATA LOCAL while the server allows it, INSERTs after it refused once. */
export interface LoadMode {
  localInfile: boolean;
  /** the server refused LOCAL INFILE: load by INSERTs from now on (the caller says so once) */
  refused(said: string): void;
}

export interface LoadInto {
  session: MysqlSession;
  /** the table loaded */
  into: string;
  /** its columns, in the order of the fields */
  columns: readonly string[];
  /** the service columns read from each record (in the order of the first fields) */
  load: readonly LoadColumn[];
  /** also the record's commit time, action and place in the files (the stage's last three columns) */
  staged: boolean;
  /** `canvas.users`, for messages */
  table: string;
  mode: LoadMode;
  signal?: AbortSignal;
}

export interface LoadResult {
  /** records read (blank lines aside) */
  records: number;
  /** rows the table took */
  loaded: number;
  /** the table refused records whose key it already held */
  duplicates: boolean;
  /** records whose action is a delete */
  deletes: number;
}

/** Rows an INSERT takes at most, and the text it gathers before it is sent. */
const INSERT_ROWS = 2_000;
const INSERT_CHARS = 1024 * 1024;

/** Whole JSON lines of a result file, checked and cleaned, as a stream. */
async function linesOf(file: string, table: string): Promise<{ streams: NodeJS.ReadWriteStream[]; source: Readable }> {
  const { gzip, source } = await openResultFile(file);
  const lines = new JsonEscapeFilter({ table, file });
  return { source, streams: gzip ? [createGunzip(), lines] : [lines] };
}

/** Resolves when the socket can take more (or is gone); undefined when it can now. */
function drained(session: MysqlSession): Promise<void> | undefined {
  const socket = session.socket as NodeJS.WritableStream & { writableNeedDrain?: boolean; once(e: string, f: () => void): void; off(e: string, f: () => void): void };
  if (!socket?.writableNeedDrain) return undefined;
  return new Promise((resolve) => {
    const done = (): void => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.once('drain', done);
    socket.once('close', done);
  });
}

/** Loads the files in order; `ordinal` numbers a staged load's records across them. */
export async function loadFiles(into: LoadInto, files: readonly string[]): Promise<LoadResult> {
  const total: LoadResult = { records: 0, loaded: 0, duplicates: false, deletes: 0 };
  let ordinal = 0;
  for (const file of files) {
    into.signal?.throwIfAborted();
    const one = into.mode.localInfile ? await loadDataLocal(into, file, ordinal) : undefined;
    const result = one ?? (await insertRows(into, file, ordinal));
    total.records += result.records;
    total.loaded += result.loaded;
    total.duplicates ||= result.duplicates;
    total.deletes += result.deletes;
    ordinal += result.records;
    // the caller loads the snapshot again, keeping the last record of each key
    if ((result.duplicates || result.deletes > 0) && !into.staged) return total;
  }
  return total;
}

/** One file by LOAD DATA LOCAL; undefined when the server refused LOCAL INFILE (nothing was read). */
async function loadDataLocal(into: LoadInto, file: string, firstOrdinal: number): Promise<LoadResult | undefined> {
  const { session } = into;
  const reader = new RecordReader(into.load, { table: into.table, file }, into.staged);
  const rows = new RecordRows({ reader, firstOrdinal: into.staged ? firstOrdinal : undefined, gate: () => drained(session) });
  const out = new PassThrough();
  let feeding: Promise<void> | undefined;
  // the file is opened when the server asks for the rows, so nothing is read for a refused LOAD
  const infile = (): NodeJS.ReadableStream => {
    feeding = linesOf(file, into.table).then(({ source, streams }) => pipeline([source, ...streams, rows, out], { signal: into.signal }));
    feeding.catch((err: Error) => out.destroy(err));
    return out;
  };
  let header;
  try {
    header = await session.change(loadDataStatement(into.into, into.columns), undefined, { infile });
  } catch (err) {
    out.destroy();
    await feeding?.catch(() => undefined);
    const errno = mysqlErrno(err);
    if (errno !== undefined && LOCAL_INFILE_REFUSED.has(errno) && feeding === undefined) {
      into.mode.refused((err as Error).message);
      return undefined;
    }
    throw err;
  }
  await feeding;
  const duplicates = header.warningStatus > 0 ? await readWarnings(into, file) : false;
  if (!duplicates && header.affectedRows !== rows.rows) {
    throw new DqError('invalidResponse', `MySQL took ${header.affectedRows} rows from the ${rows.rows} records of ${path.basename(file)}, a result file of ${into.table}, where each record is one row.`, {
      hint: 'The table keeps its last complete sync. Sync it again; if it fails the same way, report the table to the provider.',
    });
  }
  return { records: rows.rows, loaded: header.affectedRows, duplicates, deletes: reader.deletes };
}

/** Reads the warnings of the last LOAD: true when they are all repeated keys; anything else fails, naming the columns. */
async function readWarnings(into: LoadInto, file: string): Promise<boolean> {
  const warnings = (await into.session.query('SHOW WARNINGS LIMIT 5')) as { Code: number; Message: string }[];
  const other = warnings.filter((w) => Number(w.Code) !== DUPLICATE_KEY);
  if (other.length === 0 && warnings.length > 0) return true;
  const said = other.map((w) => namedColumns(w.Message, into)).join('; ');
  throw new DqError('invalidResponse', `MySQL could not take every value of ${path.basename(file)}, a result file of ${into.table}: ${said}.`, {
    hint: 'The table keeps its last complete sync. Sync it again; if it fails the same way, report the table and its schema version to the provider, with this message.',
  });
}

/** A server message about the stage's column `c3` as one about the service's column it holds. */
function namedColumns(message: string, into: LoadInto): string {
  return message.replace(/column '(c(\d+))'/g, (whole, _c: string, i: string) => {
    const column = into.load[Number(i)]?.column;
    return column ? `column "${column.name}"` : whole;
  });
}

/** A value as an SQL literal (backslash escapes are on: the session's sql_mode leaves NO_BACKSLASH_ESCAPES out). */
function sqlLiteral(value: FieldValue): string {
  if (value === null) return 'NULL';
  return `'${value.replace(/[\0\n\r\x1a\\'"]/g, (ch) => ({ '\0': '\\0', '\n': '\\n', '\r': '\\r', '\x1a': '\\Z', '\\': '\\\\', "'": "\\'", '"': '\\"' })[ch]!)}'`;
}

/** One file by multi-row INSERTs (a server without LOCAL INFILE); a repeated key ends a load without stage as `duplicates`. */
async function insertRows(into: LoadInto, file: string, firstOrdinal: number): Promise<LoadResult> {
  const { session } = into;
  const reader = new RecordReader(into.load, { table: into.table, file }, into.staged);
  const head = `INSERT INTO ${quoteIdent(into.into)} (${into.columns.map(quoteIdent).join(', ')}) VALUES `;
  const result: LoadResult = { records: 0, loaded: 0, duplicates: false, deletes: 0 };
  let batch: string[] = [];
  let chars = 0;
  let line = 0;
  let rest = '';
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const sql = head + batch.join(',');
    batch = [];
    chars = 0;
    try {
      result.loaded += (await session.change(sql)).affectedRows;
    } catch (err) {
      if (!into.staged && mysqlErrno(err) === DUPLICATE_KEY) {
        result.duplicates = true;
        throw STOP;
      }
      // a value the strict session refused: said of the service's column, not the stage's
      if (err instanceof Error && 'sqlMessage' in err && typeof err.sqlMessage === 'string') err.sqlMessage = namedColumns(err.sqlMessage, into);
      throw err;
    }
  };
  const take = async (text: string): Promise<void> => {
    line++;
    const row = reader.row(text.endsWith('\r') ? text.slice(0, -1) : text, line);
    if (row === undefined) return;
    const values = row.map(sqlLiteral);
    if (into.staged) values.push(String(firstOrdinal + result.records));
    result.records++;
    const tuple = `(${values.join(',')})`;
    batch.push(tuple);
    chars += tuple.length;
    if (batch.length >= INSERT_ROWS || chars >= INSERT_CHARS) await flush();
  };
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const text = rest + chunk.toString('utf8');
      const end = text.lastIndexOf('\n');
      rest = end === -1 ? text : text.slice(end + 1);
      const lines = end === -1 ? [] : text.slice(0, end).split('\n');
      (async () => {
        for (const l of lines) await take(l);
      })().then(() => done(), done);
    },
    final(done) {
      (async () => {
        if (rest !== '') await take(rest);
        await flush();
      })().then(() => done(), done);
    },
  });
  const { source, streams } = await linesOf(file, into.table);
  try {
    await pipeline([source, ...streams, sink], { signal: into.signal });
  } catch (err) {
    if (err !== STOP) throw err;
  }
  result.deletes = reader.deletes;
  if (!result.duplicates && result.loaded !== result.records) {
    throw new DqError('invalidResponse', `MySQL took ${result.loaded} rows from the ${result.records} records of ${path.basename(file)}, a result file of ${into.table}, where each record is one row.`, {
      hint: 'The table keeps its last complete sync. Sync it again; if it fails the same way, report the table to the provider.',
    });
  }
  return result;
}

/** Ends a load whose table refused a repeated key (not a failure: the caller merges). */
const STOP = new Error('a repeated key');
