// The engine's work inside its child process: results opened as views over their files,
// pages, counts, the SQL console, registered views and exports, on one in-memory DuckDB.
//
// Each request runs on its own connection, so cancelling one interrupts only that query.
// Opening a result reads its first rows (from its first file when each file reads alike) and
// keeps them, so the preview's first windows need no second read. Meanwhile the result is
// copied into a table of its own (resultStore.ts), file by file in the files' order, so a
// row's rowid is its place in the result; the copy of a file gives way to any request that
// reads files (it is interrupted, and done again once no such request came for half a second),
// so such a request has the cores and the memory to itself. Until the copy is complete:
// - a page of rows already copied is read from the table by rowid; a page further on from the
//   file that holds it, once a count has given each file's rows (a JSONL file decompressed and
//   its lines split in Node, only the page's lines parsed, fileLines.ts, and the lines around
//   the page kept for the pages next to it); else from all files;
// - a count counts the files not copied yet, and each file's rows are kept;
// - a sort reads the copied rows from the table and the others from their files, ties broken
//   by each row's place, as the complete table breaks them: the order never changes. A sorted
//   page that ends past SORTED_FROM_FILES rows, and a sorted export, wait for the copy instead:
//   DuckDB would sort every row of the files, which runs out of memory on large results;
// - a filter reads the files, which keep the result's order.
// A complete copy is kept when its result closes, and the next open of the same files attaches
// it instead of copying them again (keptCopies.ts); opening files already open shares them.
// Once complete, everything is read from the table: a sort or a filter as a top-N whose other
// columns DuckDB reads late, for the rows it keeps; deeper into the view, by the view's row
// positions (the rowids in its order) around the page, kept for the pages next to it
// (rowPositions.ts).
// A statement may run on a database file (a synced database): attached read-only for the
// requests that use it and detached as soon as none does, so the file is never held idle.
// A gzip file cut short where its lines happen to be whole reads to DuckDB as a shorter file,
// and would be previewed short without a word: every request that reads a result's files to
// their end (a count, a sort, a filter page that reaches the view's end, an export, the copy)
// has them read to their end alongside (fileEnds.ts, once per file), and fails naming the
// damaged file. Once damage is known, such requests fail at once, and plain pages are served
// only where they lie before it. A console statement has the files of the views it names read
// to their end alongside (once per file), and a damaged view fails it naming the file. The
// read to the end leaves restart points, from which a far window of a JSONL file is read
// (fileEnds.ts, gzipIndex.ts). Files opened without their table's schema are read as text
// (sourcePlan.ts). Pages carry text values longer than CUT_CHARS as their start and length; one
// cell's whole value is read on request (longValues.ts). DuckDB reads and writes only in the
// engine's folder and the folders of the files opened (sandboxStatements).

import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement, DuckDBResultReader, DuckDBType } from '@duckdb/node-api';
import { copyFile, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DAMAGED_VIEW_MARK, EngineError, isEngineError, toEngineError, type StatementOrigin } from './engineErrors';
import type { AttachedDatabase, ExportSource, ExportTarget, KeptSqlPage, OpenedResult, Page, ResultColumn, ResultSource, SqlPage, View } from './engineProtocol';
import { columnList, isPlain, partsOf, positionsOrder, viewQuery, viewRows, type ReadResult, type Reads } from './resultQueries';
import type { KeptCopies } from './keptCopies';
import { ResultStore } from './resultStore';
import { jsonRows } from './rowValues';
import { CUT_ROWS, readShaped, type RowShape } from './longValues';
import { ConsoleRows } from './consoleRows';
import { FileEnds, fileVersion, untilCancelled } from './fileEnds';
import { countRecords, DamagedFile, recordSpan, type Around, type LineSpan } from './fileLines';
import { inspectFiles } from './sourceFiles';
import { UnpackedFiles } from './unpackedFiles';
import { jsonlLines, planSource, readableTypeOf, readerCall, readsAlikeFileByFile, type FileColumn, type SourcePlan } from './sourcePlan';
import { withServiceTimes } from './csvTimes';
import { quoteIdent, quoteString, typedFilterValues } from './sqlText';

/** One request in flight: the connection running its query, so a cancel can interrupt it. */
export interface Work {
  running?: DuckDBConnection;
  cancelled: boolean;
  progress(rows: number): void;
}

/** A JSONL result's files with a schema: a window of one file is read as its lines (fileLines.ts). */
interface LineWindows {
  paths: string[];
  gzip: boolean;
  /** the rows of the lines given as the statement's one parameter (sourcePlan.ts) */
  sql: string;
}

interface OpenResult extends ReadResult {
  id: string;
  /** a JSONL result's files, whose windows are read as lines and only the window's parsed (fileLines.ts) */
  lineWindows?: LineWindows;
  /** the result's first rows, read when it was opened */
  firstRows: unknown[][];
  /** `firstRows` are all the rows there are */
  allRowsRead: boolean;
  store: ResultStore;
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

/** A view of the SQL console over a job's files (`canvas.users`). */
interface ConsoleView {
  name: string;
  /** the quoted schema and view */
  qualified: string;
  columns: ResultColumn[];
  /** what it reads: the plan's SELECT over its files */
  sql: string;
  /** its gzip files (JSONL, CSV, TSV), read to their end before a statement naming it runs */
  gzipFiles: string[];
  /** files unpacked for it */
  unpacked: string[];
  /** its gzip files read to their end: the damage found (the view was then replaced by one that fails naming it) */
  checked?: Promise<EngineError | undefined>;
  /** the versions of its files `checked` is about: a job downloaded again is checked again */
  checkedVersions?: string;
  /** it was replaced by one that fails naming the damage */
  failing?: boolean;
  /** a newer registration took its name */
  replaced: boolean;
}

const PROGRESS_MS = 250;
/** rows read and kept when a result is opened: the first windows of a preview */
const FIRST_ROWS = 1000;
/**
 * A sorted or filtered page that ends within this many rows is a top-N over the table (DuckDB
 * reads the other columns late, for the rows it keeps, up to `late_materialization_max_rows`);
 * deeper pages read the view's row positions.
 */
const TOP_N_ROWS = 10_000;
/** A window that starts this far into a JSONL file reads the file's lines rather than its records. */
const LINE_WINDOW_FROM = 1000;
/**
 * Records read on either side of such a window and kept for the windows next to it (those the
 * preview asks for as it scrolls on), so they need no second pass over the file.
 */
const LINES_AROUND: Around = { before: 1000, after: 2000, bytes: 4 * 1024 * 1024 };
/**
 * A copy that gave way resumes once no request has read results' files for this long, so a
 * burst of requests (far pages asked one after the other) has the cores to itself throughout.
 */
const COPY_RESUMES_AFTER_MS = 500;
/** JSONL files whose lines are counted at the same time (each inflates on a thread of its own). */
const FILES_COUNTED_AT_ONCE = 2;
/**
 * A sorted page that ends past this many rows waits for the copy rather than sort the files:
 * DuckDB keeps a top-N only up to 5,000 rows (or 0.7% of the rows it expects, and it expects
 * far too few of JSON files) and sorts every row beyond, which at the default memory limit
 * runs out of memory on large results (2 million rows of 8 files did at offset 5,000).
 */
const SORTED_FROM_FILES = 5000;
/** Catalog names DuckDB keeps for itself: a database is never attached under them. */
const RESERVED_ALIASES = new Set(['memory', 'system', 'temp', 'main']);

/** Settings the engine's database starts with, for the way results are read and copied. */
export const ENGINE_SETTINGS = [
  // late materialization for every top-N a page makes, not only those of at most 50 rows
  `SET GLOBAL late_materialization_max_rows = ${TOP_N_ROWS}`,
  // the rowids a top-N keeps (a window of rows) filter the scan that reads their columns
  'SET GLOBAL dynamic_or_filter_threshold = 1000',
  // memory freed by a file's copy goes back to the system between files (a copy of 16 files
  // of 128 MiB peaked at about 335 MiB with these, 400 to 415 without)
  "SET GLOBAL allocator_flush_threshold = '16MB'",
  'SET GLOBAL allocator_background_threads = true',
];

/**
 * The statements that shut DuckDB in (run last, once, as the engine starts): it may read and
 * write only in `folders` (the engine's own folder, the results' folders), so neither a
 * preview's WHERE nor a console statement can read other files (`read_text('/etc/hostname')`),
 * attach other databases or write elsewhere. Once external access is off DuckDB refuses to
 * turn it on again or to change the folders, the temp directory or the extensions loaded, so
 * the configuration needs no lock (which would also stop the engine's own memory-limit changes).
 */
export function sandboxStatements(folders: readonly string[]): string[] {
  const unique = [...new Set(folders.map((folder) => folder.replace(/[\\/]+$/, '')).filter((folder) => folder !== ''))];
  return [`SET GLOBAL allowed_directories = [${unique.map(quoteString).join(', ')}]`, 'SET GLOBAL enable_external_access = false'];
}

/** A database file attached read-only, and how many requests use it now. */
interface Attachment {
  path: string;
  users: number;
}

export class ResultEngine {
  private readonly results = new Map<string, OpenResult>();
  private readonly consoleViews = new Map<string, ConsoleView>();
  /** console views are made and replaced one at a time */
  private viewWork: Promise<unknown> = Promise.resolve();
  /** gzip files read to their end, for all results and views */
  private readonly ends: FileEnds;
  /** gzip Parquet unpacked, for all results and views */
  private readonly unpacker: UnpackedFiles;
  private readonly attachments = new Map<string, Attachment>();
  /** ATTACH and DETACH run one at a time, so a detach never races an attach of the same name */
  private catalogWork: Promise<unknown> = Promise.resolve();
  /** requests reading results' files now: copies wait for them, so they have the cores and memory */
  private fileReaders = 0;
  private readonly fileReadersDone: (() => void)[] = [];
  /** runs out COPY_RESUMES_AFTER_MS after the last request reading files ended */
  private copiesWait?: NodeJS.Timeout;
  /** exports written so far, naming their partial files */
  private exports = 0;
  /** the lines last read from a file not yet copied, and around them */
  private recentLines?: { result: OpenResult; file: number; span: LineSpan };

  constructor(
    private readonly db: DuckDBInstance,
    private readonly statementKinds: Record<number, string>,
    private readonly workDir: string,
    private readonly log: (message: string) => void,
    private readonly kept: KeptCopies,
  ) {
    this.consoleRows = new ConsoleRows({ db, statementKinds, onDatabase: (conn, database, task) => this.onDatabase(conn, database, task) });
    this.unpacker = new UnpackedFiles(workDir);
    this.ends = new FileEnds(workDir);
  }

  /** SQL console statements' rows, kept once each has completed */
  readonly consoleRows: ConsoleRows;

  async open(work: Work, id: string, source: ResultSource): Promise<OpenedResult> {
    await this.closeHandle(id);
    const key = await this.kept.keyOf(source);
    const open = key === undefined ? undefined : [...this.results.values()].find((r) => r.key === key && !r.closed);
    if (open) {
      open.holders++;
      this.results.set(id, open);
      return { handle: id, columns: open.columns, typesInferred: source.schema === undefined };
    }
    const plan = await this.plan(work, source);
    const keeping = key !== undefined && this.kept.enabled ? { copies: this.kept, key } : undefined;
    const result: OpenResult = {
      id,
      view: quoteIdent(`dq_result_${id}`),
      columns: plan.columns,
      perFile: plan.perFile,
      lineWindows: plan.lineWindows,
      firstRows: [],
      allRowsRead: false,
      store: new ResultStore(this.db, (task) => this.oneAtATime(task), join(this.workDir, `result-${id}.duckdb`), `dq_store_${id}`, plan.fileCount, keeping),
      key,
      holders: 1,
      closed: false,
      copyingFile: false,
      gaveWay: false,
      unpacked: plan.unpacked,
      gzipFiles: plan.gzipFiles,
    };
    try {
      const keptAt = key === undefined ? undefined : await this.kept.find(key);
      if (keptAt && (await result.store.adopt(keptAt))) this.log(`result ${id}: the kept copy of its ${result.store.convertedRows} rows is used`);
      await this.run(work, async (conn) => {
        await conn.run(`CREATE OR REPLACE VIEW ${result.view} AS ${plan.sql}`);
        const first = result.perFile && result.perFile.length > 1 ? `(${result.perFile[0]})` : result.view;
        result.firstRows = await readShaped(conn, `SELECT ${columnList(result.columns)} FROM ${first} LIMIT ${FIRST_ROWS}`, [], result.columns, CUT_ROWS);
      });
      // these rows may be all the first file has: it is shown whole only once it is known to be
      if (result.firstRows.length < FIRST_ROWS) await this.checkWhole(result, 0, () => work.cancelled);
    } catch (err) {
      await this.drop(result);
      throw err;
    }
    if (result.firstRows.length < FIRST_ROWS) {
      if (plan.fileCount === 1 || !result.perFile) result.allRowsRead = true;
      else result.store.fileRows[0] = result.firstRows.length;
    }
    this.results.set(id, result);
    result.conversion = result.store.complete ? Promise.resolve() : this.convert(result);
    return { handle: id, columns: plan.columns, typesInferred: source.schema === undefined };
  }

  /**
   * Opens a result, waits until its copy is complete and closes it again, so the copy is kept
   * for its first preview. Cancelling stops the copy (nothing is kept).
   */
  async prepare(work: Work, id: string, source: ResultSource): Promise<{ rows: number; kept: boolean }> {
    await this.open(work, id, source);
    const result = this.result(id);
    let rows: number;
    try {
      await this.untilCopied(work, result);
      if (result.copyFailure?.kind === 'corrupt') throw result.copyFailure;
      if (!result.store.complete) throw new EngineError('io', `The result could not be copied: ${result.copyFailure?.message.replace(/\.$/, '') ?? 'it was closed'}.`);
      rows = result.store.convertedRows;
    } finally {
      await this.closeHandle(id);
    }
    return { rows, kept: result.store.kept };
  }

  /** Rows of a view; text values longer than CUT_CHARS come as their start and length (longValues.ts). */
  page(work: Work, id: string, view: View, offset: number, limit: number): Promise<Page> {
    return this.shapedPage(work, id, view, offset, limit, CUT_ROWS);
  }

  /** The whole value of one cell of a view: row `offset`, column `column` (by place). */
  async cell(work: Work, id: string, view: View, offset: number, column: number): Promise<unknown> {
    const result = this.result(id);
    if (!Number.isSafeInteger(column) || column < 0 || column >= result.columns.length) {
      throw new EngineError('syntax', `The result has no column ${column + 1}: it has ${result.columns.length}.`);
    }
    const { rows } = await this.shapedPage(work, id, view, offset, 1, { column });
    if (rows.length === 0) throw new EngineError('io', `The view has no row ${offset + 1} (any more). Scroll to the row again.`);
    return rows[0][0];
  }

  private shapedPage(work: Work, id: string, view: View, offset: number, limit: number, shape: RowShape): Promise<Page> {
    const result = this.result(id);
    whole(offset);
    whole(limit);
    const page = (rows: unknown[][]): Page => ({ columns: result.columns, rows, offset });
    if (isPlain(view)) {
      // the rows kept at the open are cut: a whole value is read
      const kept = 'cut' in shape && (result.allRowsRead || offset + limit <= result.firstRows.length);
      if (kept) return Promise.resolve(page(result.firstRows.slice(offset, offset + limit)));
      return this.run(work, async (conn) => page(await this.plainRows(conn, work, result, offset, limit, shape)));
    }
    if (result.damage) return Promise.reject(result.damage);
    return this.run(work, async (conn) => {
      await checkFilterValues(conn, view, result.columns);
      const shaped = (sql: string, params: string[] = []): Promise<unknown[][]> => readShaped(conn, sql, params, result.columns, shape);
      const sorted = (view.sort ?? []).length > 0;
      if (sorted && offset + limit > SORTED_FROM_FILES) await this.untilCopied(work, result);
      const query = viewQuery(result, view);
      return withUsersWhere(conn, view, result.columns, () => this.reading(result, query, work, async () => {
        if (!query.complete || offset + limit <= TOP_N_ROWS) {
          const read = (): Promise<unknown[][]> => shaped(`${query.sql} LIMIT ${limit} OFFSET ${offset}`, query.params);
          if (!query.readsFiles) return page(await read());
          // a sort reads every row; a filter's page that ends short has read the files to their end
          if (sorted) return page(await this.checkingEnds(result, this.allFiles(result), work, read));
          const rows = await read();
          if (rows.length < limit) await this.checkingEnds(result, this.allFiles(result), work, () => Promise.resolve());
          return page(rows);
        }
        const columns = result.columns.map((c) => quoteIdent(c.name));
        const order = positionsOrder(result, view);
        return page(await result.store.readPositioned(conn, columns, order, offset, limit, (sql) => shaped(sql)));
      }));
    });
  }

  count(work: Work, id: string, view: View): Promise<number> {
    const result = this.result(id);
    const { store } = result;
    if (result.damage) return Promise.reject(result.damage);
    if (isPlain(view) && result.allRowsRead) return Promise.resolve(result.firstRows.length);
    return this.run(work, async (conn) => {
      await checkFilterValues(conn, view, result.columns);
      if (isPlain(view) && result.perFile && !store.complete) {
        await this.countFiles(conn, work, result, result.perFile);
        return store.fileRows.reduce((sum: number, rows) => sum + (rows ?? 0), 0);
      }
      const rows = viewRows(result, view, false);
      const counted = async (): Promise<number> => Number((await conn.runAndReadAll(`SELECT count(*) FROM ${rows.sql}`, rows.params)).getRowsJson()[0][0]);
      // a count reads every file it reads to its end
      const total = rows.readsFiles ? (): Promise<number> => this.checkingEnds(result, this.allFiles(result), work, counted) : counted;
      return withUsersWhere(conn, view, result.columns, () => this.reading(result, rows, work, total));
    });
  }

  async sql(work: Work, text: string, offset: number, limit: number, database?: AttachedDatabase): Promise<SqlPage> {
    const damage = database ? undefined : await this.viewsChecked(work, text);
    if (damage) throw damage;
    return this.run(work, (conn) => this.onDatabase(conn, database, async () => {
      const last = await lastStatement(conn, text);
      const reader = await last.streamAndReadUntil(whole(offset) + whole(limit));
      return {
        columns: columnsOf(reader),
        rows: jsonRows(reader, offset).slice(0, limit),
        offset,
        statementKind: this.statementKinds[last.statementType] ?? 'UNKNOWN',
      };
    }), 'sql');
  }

  /** A console statement, run once: its first `limit` rows now, the rest kept as `id` (consoleRows.ts). */
  async sqlKept(work: Work, id: string, text: string, limit: number, database?: AttachedDatabase): Promise<KeptSqlPage> {
    if (work.cancelled) throw new EngineError('cancelled', 'The query was cancelled.');
    // the files of the views it names are read to their end alongside: a damaged one fails it
    let ran = false;
    let settled = false;
    // a view failing for damage is checked first: its files, downloaded again, may be whole now
    if (!database && this.namedViews(text).some((view) => view.failing)) {
      const found = await this.viewsChecked(work, text);
      if (found) throw found;
    }
    const damage = database ? Promise.resolve(undefined) : this.viewsChecked({ get cancelled() { return work.cancelled || settled; } }, text).catch(() => undefined);
    try {
      const page = await this.consoleRows.run(work, id, text, limit, (conn) => lastStatement(conn, text), database);
      ran = true;
      const found = await damage;
      if (found) throw found;
      if (work.cancelled) throw new EngineError('cancelled', 'The query was cancelled.');
      return page;
    } catch (err) {
      const e = toEngineError(err, 'sql');
      // a failure damage may explain (a row of a file cut mid-line) waits for the files' ends; another does not
      const found = !ran && (e.kind === 'corrupt' || e.kind === 'io' || e.kind === 'schema') ? await damage : undefined;
      settled = true;
      if (ran) await this.consoleRows.drop(id);
      throw found ?? e;
    }
  }

  /**
   * `namespace.table` becomes view `table` in schema `namespace`, reading the files directly.
   * Its gzip files are read to their end in the background (a statement naming the view waits
   * for that): a damaged one makes the view fail, naming the file. A view registered again
   * lets go of what the one it replaces unpacked.
   */
  async registerView(work: Work, name: string, source: ResultSource): Promise<void> {
    const plan = await this.plan(work, source);
    const dot = name.indexOf('.');
    const schema = dot > 0 ? name.slice(0, dot) : undefined;
    const qualified = schema ? `${quoteIdent(schema)}.${quoteIdent(name.slice(dot + 1))}` : quoteIdent(name);
    const view: ConsoleView = { name, qualified, sql: plan.sql, columns: plan.columns, gzipFiles: plan.gzipFiles ?? [], unpacked: plan.unpacked, replaced: false };
    let replaced: ConsoleView | undefined;
    try {
      replaced = await this.run(work, (conn) => this.viewDdl(async () => {
        if (schema) await conn.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
        await conn.run(`CREATE OR REPLACE VIEW ${qualified} AS ${plan.sql}`);
        const previous = this.consoleViews.get(name);
        this.consoleViews.set(name, view);
        if (previous) previous.replaced = true;
        return previous;
      }));
    } catch (err) {
      await this.unpacker.release(plan.unpacked);
      throw err;
    }
    await this.unpacker.release(replaced?.unpacked ?? []);
  }

  listViews(): { name: string; columns: ResultColumn[] }[] {
    return [...this.consoleViews.values()].map(({ name, columns }) => ({ name, columns }));
  }

  /**
   * Writes into the engine's work folder (DuckDB may write nowhere else) and moves the file under
   * its name when complete, so a cancelled export leaves no partial file under its name. A
   * result's files are read to their end alongside (a damaged one fails the export); a sorted export of a result waits for its copy (reporting the rows copied).
   */
  async export(work: Work, source: ExportSource, target: ExportTarget): Promise<{ rows: number; path: string }> {
    const result = 'handle' in source ? this.result(source.handle) : undefined;
    const view = 'handle' in source ? (source.view ?? {}) : {};
    const database = 'sql' in source ? source.database : undefined;
    const partial = join(this.workDir, `export-${++this.exports}-${basename(target.path)}.partial`);
    const options = target.format === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT parquet';
    if (result?.damage) throw result.damage;
    const damage = 'sql' in source ? await this.viewsChecked(work, source.sql) : undefined;
    if (damage) throw damage;
    // the rows reported only go up: those copied while the export waits, then those written
    let reported = 0;
    const progress = (rows: number): void => {
      if (rows <= reported) return;
      reported = rows;
      work.progress(rows);
    };
    const exported = this.run(work, (conn) => this.onDatabase(conn, database, async () => {
      if (result) await checkFilterValues(conn, view, result.columns);
      if (result && (view.sort ?? []).length > 0) await this.untilCopied(work, result, progress);
      // a console statement's kept rows are written once they are all in
      const keptQuery = 'kept' in source ? await this.consoleRows.exportQuery(source.kept, work) : undefined;
      const query = result
        ? viewQuery(result, view)
        : { sql: keptQuery ?? withoutTrailingSemicolons((source as { sql: string }).sql), params: [], readsStore: false, readsFiles: false };
      const write = async (): Promise<number> => {
        const rows = target.format === 'csv' ? await withServiceTimes(conn, query.sql, query.params) : query.sql;
        return Number((await conn.runAndReadAll(`COPY (${rows}\n) TO ${quoteString(partial)} (${options})`, query.params)).getRowsJson()[0][0]);
      };
      const copy = async (): Promise<{ rows: number; path: string }> => {
        await conn.run('SET enable_progress_bar = true; SET enable_progress_bar_print = false');
        const timer = setInterval(() => progress(Math.max(0, Number(conn.progress.rows_processed))), PROGRESS_MS);
        try {
          // put under its name only once the files it read are known to be whole
          const rows = await (result && query.readsFiles ? this.checkingEnds(result, this.allFiles(result), work, write) : write());
          await putInPlace(partial, target.path);
          work.progress(rows);
          return { rows, path: target.path };
        } catch (err) {
          await rm(partial, { force: true });
          throw unwritable(err, partial, target.path) ?? err;
        } finally {
          clearInterval(timer);
        }
      };
      return result ? withUsersWhere(conn, view, result.columns, () => this.reading(result, query, work, copy)) : copy();
    }), result ? 'files' : 'sql');
    return exported;
  }

  /** Settings changed while the engine runs: DuckDB's memory limit, the kept copies' budget. */
  async configure(changes: { memoryLimitMb?: number; keptCopiesMb?: number }): Promise<void> {
    if (changes.keptCopiesMb !== undefined) {
      this.kept.budgetMb = changes.keptCopiesMb;
      await this.kept.trim(this.openFiles());
    }
    if (changes.memoryLimitMb === undefined) return;
    const conn = await this.db.connect();
    try {
      await conn.run(`SET GLOBAL memory_limit = '${Math.floor(changes.memoryLimitMb)}MB'`);
    } finally {
      conn.closeSync();
    }
  }

  async closeHandle(id: string): Promise<void> {
    const result = this.results.get(id);
    if (!result) return;
    this.results.delete(id);
    if (--result.holders > 0) return;
    result.closed = true;
    result.converting?.interrupt();
    result.closing?.();
    await result.conversion;
    await this.drop(result);
    if (result.store.kept) await this.kept.trim(this.openFiles());
  }

  /**
   * Waits until the files of the console views a statement names are read to their end (a
   * damaged view then fails the statement, naming the file). A view counts as named when its
   * table's name appears in the text as a word: a wait too many costs no more than the wait.
   */
  private async viewsChecked(work: Pick<Work, 'cancelled'>, text: string): Promise<EngineError | undefined> {
    const named = this.namedViews(text);
    if (named.length === 0) return undefined;
    const damage = await untilCancelled(Promise.all(named.map((view) => this.checkView(view))), () => work.cancelled);
    return damage.find((d) => d !== undefined);
  }

  /** The console views over gzip files whose table a statement names. */
  private namedViews(text: string): ConsoleView[] {
    return [...this.consoleViews.values()].filter((view) => view.gzipFiles.length > 0 && !view.replaced && mentions(text, view.name));
  }

  /**
   * Reads a console view's gzip files to their end, once for each version of them: the damage
   * found, if any. A damaged view is replaced by one that fails naming the file, and made again
   * once its files (downloaded again) are whole.
   */
  private async checkView(view: ConsoleView): Promise<EngineError | undefined> {
    const versions = (await Promise.all(view.gzipFiles.map(fileVersion))).join('\n');
    if (view.checked && view.checkedVersions === versions) return view.checked;
    view.checkedVersions = versions;
    const checked = (async (): Promise<EngineError | undefined> => {
      for (const path of view.gzipFiles) {
        try {
          await this.ends.records(path, () => view.replaced);
        } catch (err) {
          const e = toEngineError(err);
          // a file that cannot be read for another reason fails the statements that read it
          if (e.kind !== 'corrupt') return undefined;
          await this.failView(view, e);
          return e;
        }
      }
      if (view.failing) await this.mendView(view);
      return undefined;
    })();
    view.checked = checked;
    return checked;
  }

  /** Puts back the view of files found whole again (downloaded again after they were damaged). */
  private mendView(view: ConsoleView): Promise<void> {
    return this.redefineView(view, `CREATE OR REPLACE VIEW ${view.qualified} AS ${view.sql}`, false, 'its files are whole again', 'could not be made again');
  }

  /** Replaces a console view over a damaged file by one with its columns that fails naming the file. */
  private failView(view: ConsoleView, damage: EngineError): Promise<void> {
    const fails = `error(${quoteString(`${DAMAGED_VIEW_MARK}${view.name}: ${damage.message}`)}) IS NULL`;
    const nulls = view.columns.map((c) => `CAST(NULL AS ${c.sqlType}) AS ${quoteIdent(c.name)}`).join(', ');
    // a view whose columns DuckDB cannot cast to fails just the same without them
    const ddl = [`CREATE OR REPLACE VIEW ${view.qualified} AS SELECT ${nulls || 'NULL AS damaged'} WHERE ${fails}`, `CREATE OR REPLACE VIEW ${view.qualified} AS SELECT NULL AS damaged WHERE ${fails}`];
    return this.redefineView(view, ddl, true, damage.message, 'could not be marked damaged');
  }

  /**
   * Defines a console view anew (the first statement of `ddl` that DuckDB takes), in turn with
   * the other changes to views and not once a newer registration took its name; says so in the log.
   */
  private async redefineView(view: ConsoleView, ddl: string | string[], failing: boolean, done: string, failed: string): Promise<void> {
    const conn = await this.db.connect();
    try {
      await this.viewDdl(async () => {
        if (view.replaced) return;
        const [first, ...others] = typeof ddl === 'string' ? [ddl] : ddl;
        await others.reduce((tried, next) => tried.catch(() => conn.run(next)), conn.run(first));
        view.failing = failing;
      });
      this.log(`SQL console view ${view.name}: ${done}`);
    } catch (err) {
      this.log(`SQL console view ${view.name} ${failed}: ${toEngineError(err).message}`);
    } finally {
      conn.closeSync();
    }
  }

  /** Console views are made and replaced one at a time, so a view marked damaged never replaces a newer registration. */
  private viewDdl<T>(task: () => Promise<T>): Promise<T> {
    const next = this.viewWork.then(task, task);
    this.viewWork = next.catch(() => undefined);
    return next;
  }

  /** Runs `task` with `database` attached and as the connection's default catalog. */
  private async onDatabase<T>(conn: DuckDBConnection, database: AttachedDatabase | undefined, task: () => Promise<T>): Promise<T> {
    if (!database) return task();
    await this.attach(database);
    try {
      await conn.run(`USE ${quoteIdent(database.alias)}`);
      return await task();
    } finally {
      await this.detach(database);
    }
  }

  private attach(database: AttachedDatabase): Promise<void> {
    return this.oneAtATime(async () => {
      const held = this.attachments.get(database.alias);
      if (held && held.path === database.path) {
        held.users++;
        return;
      }
      if (held) throw new EngineError('io', `Another database is open as "${database.alias}" for a statement still running. Run this one again when it has finished.`);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database.alias) || RESERVED_ALIASES.has(database.alias.toLowerCase())) {
        throw new EngineError('syntax', `"${database.alias}" cannot name an attached database: use a plain name other than ${[...RESERVED_ALIASES].join(', ')}.`);
      }
      const conn = await this.db.connect();
      try {
        await conn.run(`ATTACH ${quoteString(database.path)} AS ${quoteIdent(database.alias)} (READ_ONLY)`);
      } catch (err) {
        throw attachError(database, err);
      } finally {
        conn.closeSync();
      }
      this.attachments.set(database.alias, { path: database.path, users: 1 });
    });
  }

  private detach(database: AttachedDatabase): Promise<void> {
    return this.oneAtATime(async () => {
      const held = this.attachments.get(database.alias);
      if (!held || held.path !== database.path || --held.users > 0) return;
      this.attachments.delete(database.alias);
      const conn = await this.db.connect();
      try {
        await conn.run(`DETACH ${quoteIdent(database.alias)}`);
      } catch (err) {
        this.log(`database ${database.alias} could not be detached: ${toEngineError(err).message}`);
      } finally {
        conn.closeSync();
      }
    });
  }

  private oneAtATime<T>(task: () => Promise<T>): Promise<T> {
    const next = this.catalogWork.then(task, task);
    this.catalogWork = next.catch(() => undefined);
    return next;
  }

  /** The database files of the open results: kept copies among them are not trimmed away. */
  private openFiles(): Set<string> {
    return new Set([...this.results.values()].map((r) => r.store.path));
  }

  private result(id: string): OpenResult {
    const result = this.results.get(id);
    if (!result) throw new EngineError('io', 'This result is no longer open. Open it again.');
    return result;
  }

  /**
   * Runs `task`, a request that reads results' files: the copy of a file under way gives way
   * (it is interrupted, and done again once no request reads files).
   */
  private async readingFiles<T>(task: () => Promise<T>): Promise<T> {
    this.fileReaders++;
    for (const result of this.results.values()) {
      if (!result.copyingFile || !result.converting) continue;
      result.gaveWay = true;
      result.converting.interrupt();
    }
    try {
      return await task();
    } finally {
      if (--this.fileReaders === 0) this.resumeCopiesLater();
    }
  }

  private resumeCopiesLater(): void {
    clearTimeout(this.copiesWait);
    this.copiesWait = setTimeout(() => {
      this.copiesWait = undefined;
      if (this.fileReaders === 0) for (const done of this.fileReadersDone.splice(0)) done();
    }, COPY_RESUMES_AFTER_MS);
    this.copiesWait.unref();
  }

  /** Resolves once no request has read results' files for COPY_RESUMES_AFTER_MS. */
  private filesFree(): Promise<void> {
    return this.fileReaders === 0 && !this.copiesWait ? Promise.resolve() : new Promise((resolve) => this.fileReadersDone.push(resolve));
  }

  /** Records `from` to `from + count` of a result's file when the lines last read hold them all. */
  private nearLines(result: OpenResult, file: number, from: number, count: number): string[] | undefined {
    const recent = this.recentLines;
    if (recent?.result !== result || recent.file !== file) return undefined;
    const { first, lines, atEnd } = recent.span;
    if (from < first || (from + count > first + lines.length && !atEnd)) return undefined;
    return lines.slice(from - first, from - first + count);
  }

  /**
   * Runs `task` with the result's table attached when it reads from it, as a reader of files
   * when it reads from them. Out of memory reading the files while the copy is being made is
   * told as such: once the copy is complete, the same request reads the table instead.
   */
  private async reading<T>(result: OpenResult, reads: Reads, work: Work, task: () => Promise<T>): Promise<T> {
    const read = reads.readsFiles ? () => this.readingFiles(() => this.namingDamage(result, work, task)) : task;
    try {
      return await (reads.readsStore ? result.store.use(read) : read());
    } catch (err) {
      const copying = reads.readsFiles && !result.store.complete && !result.copyFailure && !result.closed;
      if (!copying || toEngineError(err).kind !== 'outOfMemory') throw err;
      throw new EngineError(
        'outOfMemory',
        'Out of memory reading the result\'s files while its copy is still being made. Wait until the copy is complete (a sort or filter then reads the copy, which needs far less memory), then try again.',
      );
    }
  }

  /**
   * Waits until the result's copy is complete (or stopped: closed, damaged or failed), and
   * reports the rows copied as `progress`. Cancellable; fails with the damage when the copy
   * stopped at a damaged file.
   */
  private async untilCopied(work: Work, result: OpenResult, progress?: (rows: number) => void): Promise<void> {
    if (result.store.complete) return;
    let poll: NodeJS.Timeout | undefined;
    const cancelled = new Promise<void>((resolve) => {
      poll = setInterval(() => {
        if (work.cancelled) resolve();
        else progress?.(result.store.convertedRows);
      }, PROGRESS_MS);
    });
    try {
      await Promise.race([result.conversion, cancelled]);
    } finally {
      clearInterval(poll);
    }
    if (work.cancelled) throw new EngineError('cancelled', 'The query was cancelled.');
    if (result.damage) throw result.damage;
  }

  /**
   * Rows `offset` to `offset + limit` in the result's order: from the table as far as it is
   * copied; beyond, from the files that hold them once each file's rows are known; else by
   * reading the files up to `offset`.
   */
  private async plainRows(conn: DuckDBConnection, work: Work, result: OpenResult, offset: number, limit: number, shape: RowShape): Promise<unknown[][]> {
    const { store } = result;
    const columns = columnList(result.columns);
    const shaped = (sql: string, params: string[] = []): Promise<unknown[][]> => readShaped(conn, sql, params, result.columns, shape);
    const fromStore = (start: number, rows: number): Promise<unknown[][]> =>
      store.use(() => shaped(`SELECT ${columns} FROM ${store.table} WHERE rowid >= ${start} AND rowid < ${start + rows} ORDER BY rowid`));
    if (store.complete || offset + limit <= store.convertedRows) return fromStore(offset, limit);
    const parts = result.perFile ? partsOf(result.damage ? this.rowsBeforeDamage(result) : store.fileRows, offset, limit) : undefined;
    // past a damaged file, rows are not where they seem: only those known to lie before the damage are served
    if (result.damage && (!parts || parts.reduce((sum, part) => sum + part.rows, 0) < limit)) throw result.damage;
    const fromFiles = (sql: string): Promise<unknown[][]> => this.readingFiles(() => shaped(sql));
    if (!parts) {
      const rows = await fromFiles(`SELECT ${columns} FROM ${result.view} LIMIT ${limit} OFFSET ${offset}`);
      // a page that ends short read the files to their end, where one cut short reads as shorter
      if (rows.length < limit) await this.checkingEnds(result, this.allFiles(result), work, () => Promise.resolve());
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
        return await this.readingFiles(async () => {
          const path = lines.paths[file];
          // from the restart point before the window, once the file was read to its end
          const span = await recordSpan(path, { gzip: lines.gzip, from, count, cancelled: () => work.cancelled }, LINES_AROUND, (record) => this.ends.restartAt(path, record));
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
  private async countFiles(conn: DuckDBConnection, work: Work, result: OpenResult, perFile: string[]): Promise<void> {
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
      await this.readingFiles(() => Promise.all(Array.from({ length: FILES_COUNTED_AT_ONCE }, counter)));
    }
    const unknown = perFile.flatMap((sql, file) => (known(file) ? [] : [{ sql, file }]));
    if (unknown.length === 0) return;
    const counts = unknown.map(({ sql, file }) => `SELECT ${file} AS file, count(*) AS n FROM (${sql})`).join('\nUNION ALL\n');
    const counted = await this.readingFiles(() => this.checkingEnds(result, unknown.map((u) => u.file), work, () => conn.runAndReadAll(counts)));
    for (const [file, rows] of counted.getRowsJson()) result.store.fileRows[Number(file)] = Number(rows);
  }

  /** A JSONL file's records, counted by its lines (fileLines.ts); a gzip file cut short fails as `corrupt`. */
  private async countLines(result: OpenResult, file: number, cancelled: () => boolean): Promise<number> {
    const lines = result.lineWindows!;
    if (lines.gzip) return (await this.checkWhole(result, file, cancelled))!;
    return countRecords(lines.paths[file], { gzip: false, cancelled });
  }

  /**
   * Each file's rows as far as they are known to lie before the damage: those of the damaged
   * file before it where known (else none), none after it.
   */
  private rowsBeforeDamage(result: OpenResult): (number | undefined)[] {
    const damaged = result.damagedFile ?? 0;
    return result.store.fileRows.map((rows, file) => (file < damaged ? rows : file === damaged ? (result.damagedFileRows ?? 0) : 0));
  }

  /**
   * Reads a gzip file of the result to its end (once for all requests, fileEnds.ts): its
   * records (non-blank lines). Fails as `corrupt` when it is cut short or garbled, and the
   * result then knows its damage.
   */
  private async checkWhole(result: OpenResult, file: number, cancelled: () => boolean): Promise<number | undefined> {
    if (!result.gzipFiles) return undefined;
    try {
      return await this.ends.records(result.gzipFiles[file], cancelled);
    } catch (err) {
      if (isEngineError(err) && err.kind === 'corrupt' && (result.damagedFile === undefined || file < result.damagedFile)) {
        result.damage = err;
        result.damagedFile = file;
        // a JSONL file's whole lines before the damage are its rows there
        result.damagedFileRows = err instanceof DamagedFile && result.lineWindows ? err.records : undefined;
      }
      throw err;
    }
  }

  /**
   * Runs `task`, which reads the files, while the gzip ones among `files` are read to their end
   * on another core: damage found there is the answer, before the task's own answer or failure
   * (DuckDB counts a file cut short where its lines are whole as a shorter one, and reports one
   * cut mid-line as a malformed row).
   */
  private async checkingEnds<T>(result: OpenResult, files: number[], work: Work, task: () => Promise<T>): Promise<T> {
    const gzipFiles = result.gzipFiles;
    const whole = gzipFiles ? await Promise.all(files.map((file) => this.ends.isWhole(gzipFiles[file]))) : [];
    const unchecked = gzipFiles ? files.filter((_, i) => !whole[i]) : [];
    if (unchecked.length === 0) return task();
    let abandoned = false;
    const damage = this.damageIn(result, unchecked, () => work.cancelled || abandoned);
    let value: T;
    try {
      value = await task();
    } catch (err) {
      // a failure that damage may explain waits for the files' ends; another (a mistake, a cancel, memory) does not
      const kind = toEngineError(err).kind;
      if (kind === 'corrupt' || kind === 'io' || kind === 'schema') throw (await damage) ?? err;
      abandoned = true;
      throw err;
    }
    const found = await damage;
    if (found) throw found;
    return value;
  }

  /**
   * Reads the result's `files` to their end, FILES_COUNTED_AT_ONCE at a time: the damage found
   * (undefined when none). A file that could not be read to its end for another reason is left
   * to the request that reads it to judge.
   */
  private async damageIn(result: OpenResult, files: number[], cancelled: () => boolean): Promise<EngineError | undefined> {
    const queue = [...files];
    let found: EngineError | undefined;
    const reader = async (): Promise<void> => {
      for (let file = queue.shift(); file !== undefined && !found && !cancelled(); file = queue.shift()) {
        await this.checkWhole(result, file, cancelled).catch((err: unknown) => {
          const e = toEngineError(err);
          if (e.kind === 'corrupt') found ??= e;
        });
      }
    };
    await Promise.all(Array.from({ length: FILES_COUNTED_AT_ONCE }, reader));
    return found;
  }

  /**
   * Runs `task`, which reads the files; when it fails on damaged data, the gzip files not yet
   * read to their end are, so that a file cut short is named as such rather than as a row
   * DuckDB could not parse.
   */
  private async namingDamage<T>(result: OpenResult, work: Work, task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (err) {
      if (!result.gzipFiles || toEngineError(err).kind !== 'corrupt') throw err;
      throw (await this.damageIn(result, this.allFiles(result), () => work.cancelled || result.closed)) ?? err;
    }
  }

  private allFiles(result: OpenResult): number[] {
    return result.gzipFiles ? result.gzipFiles.map((_, file) => file) : [];
  }

  private async plan(
    work: Work,
    source: ResultSource,
  ): Promise<SourcePlan & { unpacked: string[]; perFile?: string[]; lineWindows?: LineWindows; gzipFiles?: string[]; fileCount: number }> {
    const files = await inspectFiles(source, this.unpacker);
    const options = { gzip: files.gzip, schema: source.schema };
    let reader = readerCall(files.format, files.paths, options);
    let described: FileColumn[] = [];
    try {
      if (files.format !== 'jsonl' || !source.schema) described = await this.run(work, (conn) => describe(conn, reader));
    } catch (err) {
      await this.unpacker.release(files.unpacked);
      throw err;
    }
    // without a schema, JSONL records' parts are read as JSON: their fields as text (sourcePlan.ts)
    if (files.format === 'jsonl' && !source.schema) reader = readerCall(files.format, files.paths, { ...options, jsonParts: described.map((c) => c.name) });
    const perFile = readsAlikeFileByFile(files.format, source.schema)
      ? files.paths.map((path) => planSource(files.format, readerCall(files.format, [path], options), described, source.schema).sql)
      : undefined;
    const schema = source.schema;
    const lineWindows = files.format === 'jsonl' && schema ? { paths: files.paths, gzip: files.gzip, sql: jsonlLines(schema) } : undefined;
    const gzipFiles = files.gzip ? files.paths : undefined;
    return { ...planSource(files.format, reader, described, source.schema), unpacked: files.unpacked, perFile, lineWindows, gzipFiles, fileCount: files.paths.length };
  }

  /** Copies the result into its table in the background; requests read from it as it fills. */
  private async convert(result: OpenResult): Promise<void> {
    let conn: DuckDBConnection | undefined;
    const started = performance.now();
    try {
      conn = await this.db.connect();
      result.converting = conn;
      if (result.closed) return;
      // the files copied are read to their end alongside, on another core: DuckDB would copy a
      // file cut short as a shorter one, and one cut mid-line fails as a malformed row (a
      // damaged file found is the result's damage: the copy stops there)
      const checks: Work = { progress: () => undefined, get cancelled() { return result.closed; } };
      const checked = <T>(files: number[], copy: () => Promise<T>): Promise<T> => this.checkingEnds(result, files, checks, copy);
      await result.store.convert(conn, result.view, result.perFile, {
        turn: () => Promise.race([this.filesFree(), new Promise<void>((resolve) => (result.closing = resolve))]),
        copying: async (copy) => {
          result.copyingFile = true;
          result.gaveWay = false;
          try {
            return await checked([result.store.convertedFiles], copy);
          } finally {
            result.copyingFile = false;
          }
        },
        gaveWay: () => result.gaveWay,
        stopped: () => result.closed || result.damage !== undefined,
        // every file at once (a result without a schema)
        copyingAll: (copy) => checked(this.allFiles(result), copy),
      });
      if (result.store.complete) this.log(`result ${result.id}: ${result.store.convertedRows} rows copied in ${Math.round(performance.now() - started)} ms`);
    } catch (err) {
      result.copyFailure = toEngineError(err);
      if (!result.closed) this.log(`result ${result.id} stays read from its files beyond row ${result.store.convertedRows}: ${result.copyFailure.message}`);
    } finally {
      result.converting = undefined;
      conn?.closeSync();
    }
  }

  private async drop(result: OpenResult): Promise<void> {
    if (this.recentLines?.result === result) this.recentLines = undefined;
    const conn = await this.db.connect();
    try {
      await conn.run(`DROP VIEW IF EXISTS ${result.view}`);
    } finally {
      conn.closeSync();
    }
    await result.store.close();
    await this.unpacker.release(result.unpacked);
  }

  /** Runs `task` on a connection of its own; a failure is judged by where its statement came from (`sql`: the user's). */
  private async run<T>(work: Work, task: (conn: DuckDBConnection) => Promise<T>, origin: StatementOrigin = 'files'): Promise<T> {
    if (work.cancelled) throw new EngineError('cancelled', 'The query was cancelled.');
    const conn = await this.db.connect();
    work.running = conn;
    try {
      if (work.cancelled) throw new EngineError('cancelled', 'The query was cancelled.');
      return await task(conn);
    } catch (err) {
      throw toEngineError(err, origin);
    } finally {
      work.running = undefined;
      conn.closeSync();
    }
  }
}

/**
 * Runs every statement of `text` but the last, and prepares the last: the one whose rows are
 * shown. Text of no statement at all is the user's to correct.
 */
async function lastStatement(conn: DuckDBConnection, text: string): Promise<DuckDBPreparedStatement> {
  const none = new EngineError('syntax', 'There is no SQL statement to run. Write one, then run it.');
  // DuckDB fails on text of only comments and semicolons rather than finding no statement
  const statements = await conn.extractStatements(text).catch((err: unknown) => {
    throw onlyComments(text) ? none : err;
  });
  if (statements.count === 0) throw none;
  for (let i = 0; i < statements.count - 1; i++) await (await statements.prepare(i)).run();
  return statements.prepare(statements.count - 1);
}

/** Text holding nothing but comments, semicolons and white space (judged only once DuckDB has failed on it). */
function onlyComments(text: string): boolean {
  return text.replace(/\/\*[\s\S]*?(\*\/|$)/g, '').replace(/--[^\n]*/g, '').replace(/[;\s]/g, '') === '';
}

/**
 * Puts a file written in the work folder under `target`: renamed, or on another disk copied
 * beside the target first, so no partial file is ever under its name.
 */
async function putInPlace(partial: string, target: string): Promise<void> {
  try {
    await rename(partial, target);
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw cannotWrite(target, err);
  }
  const beside = `${target}.partial`;
  try {
    await copyFile(partial, beside);
    await rename(beside, target);
  } catch (err) {
    await rm(beside, { force: true }).catch(() => undefined);
    throw cannotWrite(target, err);
  } finally {
    await rm(partial, { force: true }).catch(() => undefined);
  }
}

const SYSTEM_REASONS: Record<string, string> = {
  ENOENT: 'No such file or directory',
  ENOTDIR: 'Not a directory',
  EACCES: 'Permission denied',
  EPERM: 'Permission denied',
  EISDIR: 'Is a directory',
  ENOSPC: 'No space left on device',
  EROFS: 'Read-only file system',
};

/** Why a file could not be written, told by the file the user chose: `reason` a system error's code or DuckDB's words. */
function cannotWrite(target: string, reason: unknown): EngineError {
  const code = typeof reason === 'string' ? reason : ((reason as NodeJS.ErrnoException).code ?? '');
  const words = SYSTEM_REASONS[code] ?? code;
  return new EngineError('io', `Cannot write ${target}${words ? ` (${words})` : ''}. Choose a folder that exists and that you may write to.`);
}

/** A failure to write the export's file, told by the file the user chose (not the one written first). */
function unwritable(err: unknown, partial: string, target: string): EngineError | undefined {
  const message = err instanceof Error ? err.message : String(err);
  const at = message.indexOf(partial);
  if (at < 0) return undefined;
  return cannotWrite(target, message.slice(at + partial.length).replace(/^["']?:?\s*/, '').split('\n')[0].trim());
}

async function describe(conn: DuckDBConnection, reader: string): Promise<FileColumn[]> {
  const result = await conn.runAndReadAll(`SELECT * FROM ${reader} LIMIT 0`);
  const types = result.columnTypes();
  return result.columnNames().map((name, i) => fileColumn(name, types[i]));
}

function fileColumn(name: string, type: DuckDBType): FileColumn {
  const column: FileColumn = { name, sqlType: String(type) };
  if ('entryNames' in type && 'entryTypes' in type) column.fields = type.entryNames.map((n, i) => fileColumn(n, type.entryTypes[i]));
  return column;
}

/** A filter value that does not read as its column's type is the user's to correct, not a failure of the data. */
async function checkFilterValues(conn: DuckDBConnection, view: View, columns: ResultColumn[]): Promise<void> {
  for (const { filter, column, type } of typedFilterValues(view, columns)) {
    const reader = await conn.runAndReadAll(`SELECT TRY_CAST(? AS ${type}) IS NULL`, [filter.value ?? '']);
    if (reader.getRowsJson()[0][0] === true) {
      throw new EngineError('syntax', `The filter on ${column.name} needs a value of type ${column.type}, not "${filter.value ?? ''}". Change the filter.`);
    }
  }
}

/**
 * Runs the query of a view. When it fails and the view has the user's WHERE, the failure is
 * judged as the WHERE's or the files' (engineErrors.ts); one of the WHERE's is told again as
 * the WHERE alone fails it, on one row of NULLs of the result's types, so DuckDB points into
 * the WHERE as typed rather than into the engine's query around it.
 */
async function withUsersWhere<T>(conn: DuckDBConnection, view: View, columns: ResultColumn[], task: () => Promise<T>): Promise<T> {
  await oneCondition(conn, view.where);
  try {
    return await task();
  } catch (err) {
    const where = view.where?.trim();
    if (!where || err instanceof EngineError) throw err;
    const failure = toEngineError(err, { where });
    if (failure.kind !== 'syntax') throw failure;
    const nulls = columns.map((c) => `CAST(NULL AS ${c.sqlType}) AS ${quoteIdent(c.name)}`).join(', ');
    // prepared: one statement, whatever the WHERE holds
    const check = async (): Promise<unknown> => (await conn.prepare(`SELECT count(*) FROM (SELECT ${nulls}) WHERE (\n${where}\n)`)).run();
    const alone = await check().then(
      () => undefined,
      (e: unknown) => toEngineError(e, { where }),
    );
    throw alone?.kind === 'syntax' ? alone : failure;
  }
}

/**
 * A WHERE is one condition: text that closes it and goes on with statements of its own (a `;`
 * outside quotes) is refused rather than run. One that does not parse is left to the query,
 * whose error says where.
 */
async function oneCondition(conn: DuckDBConnection, where: string | undefined): Promise<void> {
  const text = where?.trim();
  if (!text) return;
  const statements = await conn.extractStatements(`SELECT 1 WHERE (\n${text}\n)`).then(
    (extracted) => extracted.count,
    () => 1,
  );
  if (statements > 1) {
    throw new EngineError('syntax', 'The WHERE condition holds more than one statement (a ";" outside quotes). Write one condition, such as "value.http_status" = 404; run other statements in the SQL console.');
  }
}

function columnsOf(reader: DuckDBResultReader): ResultColumn[] {
  const types = reader.columnTypes();
  return reader.columnNames().map((name, i) => ({ name, type: readableTypeOf(String(types[i])), sqlType: String(types[i]) }));
}

/** Why a database file could not be opened, in words that say what to do. */
function attachError(database: AttachedDatabase, err: unknown): EngineError {
  const raw = err instanceof Error ? err.message : String(err);
  const holder = /Conflicting lock is held in (.*?) \(PID (\d+)\)/.exec(raw);
  if (holder) {
    return new EngineError(
      'io',
      `The database ${database.path} is open for writing by another process (${holder[1]}, PID ${holder[2]}), such as a sync that is running. Run the statement again when it has finished.`,
    );
  }
  if (/database does not exist/i.test(raw)) {
    return new EngineError('io', `There is no database at ${database.path} yet. Sync a table first, then run the statement again.`);
  }
  return toEngineError(err);
}

/**
 * Whether a statement's text names a console view (`canvas.users`: the schema, a dot, the
 * table, each quoted or not, in any case). A view is only found by its qualified name.
 */
function mentions(text: string, view: string): boolean {
  const dot = view.indexOf('.');
  const part = (name: string): string => `"?${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"?`;
  const name = dot > 0 ? `${part(view.slice(0, dot))}\\s*\\.\\s*${part(view.slice(dot + 1))}` : part(view);
  return new RegExp(`(^|[^A-Za-z0-9_$])${name}($|[^A-Za-z0-9_$])`, 'i').test(text);
}

function whole(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new EngineError('syntax', `${n} is not a row offset or count: use a whole number of 0 or more.`);
  return n;
}

function withoutTrailingSemicolons(sql: string): string {
  return sql.trim().replace(/(;\s*)+$/, '');
}
