// Results opened as views over their files: their pages, windows and counts. Opening a result
// reads its first rows (from its first file when each file reads alike) and keeps them, so the
// preview's first windows need no second read. Meanwhile the result is copied into a table of
// its own (copyScheduler.ts); until the copy is complete (filePages.ts for plain pages):
// - a sort reads the copied rows from the table and the others from their files, ties broken
//   by each row's place, as the complete table breaks them: the order never changes. A sorted
//   page that ends past SORTED_FROM_FILES rows waits for the copy instead: DuckDB would sort
//   every row of the files, which runs out of memory on large results;
// - a filter reads the files, which keep the result's order.
// A complete copy is kept when its result closes, and the next open of the same files attaches
// it instead of copying them again (keptCopies.ts); opening files already open shares them.
// Once complete, everything is read from the table: a sort or a filter as a top-N whose other
// columns DuckDB reads late, for the rows it keeps; deeper into the view, by the view's row
// positions (the rowids in its order) around the page, kept for the pages next to it
// (rowPositions.ts). Pages carry text values longer than CUT_CHARS as their start and length;
// one cell's whole value is read on request (longValues.ts).

import type { DuckDBInstance } from '@duckdb/node-api';
import { join } from 'node:path';
import type { CopyScheduler } from './copyScheduler';
import type { DamageChecks } from './damageChecks';
import { EngineError, toEngineError } from './engineErrors';
import type { OpenedResult, Page, ResultSource, View } from './engineProtocol';
import { TOP_N_ROWS } from './engineSettings';
import { whole, type RunWork, type Work } from './engineWork';
import type { FilePages } from './filePages';
import type { KeptCopies } from './keptCopies';
import { CUT_ROWS, readShaped, type RowShape } from './longValues';
import { allFiles, type OpenResult } from './openResult';
import { planResult } from './resultPlan';
import { columnList, isPlain, positionsOrder, viewQuery, viewRows, type Reads } from './resultQueries';
import { ResultStore, type CatalogLock } from './resultStore';
import { quoteIdent } from './sqlText';
import type { UnpackedFiles } from './unpackedFiles';
import { checkFilterValues, withUsersWhere } from './usersWhere';

/** rows read and kept when a result is opened: the first windows of a preview */
const FIRST_ROWS = 1000;
/**
 * A sorted page that ends past this many rows waits for the copy rather than sort the files:
 * DuckDB keeps a top-N only up to 5,000 rows (or 0.7% of the rows it expects, and it expects
 * far too few of JSON files) and sorts every row beyond, which at the default memory limit
 * runs out of memory on large results (2 million rows of 8 files did at offset 5,000).
 */
const SORTED_FROM_FILES = 5000;

/** What the reader works with: the engine's database and folder, and its other parts. */
export interface ReaderParts {
  db: DuckDBInstance;
  workDir: string;
  log: (message: string) => void;
  kept: KeptCopies;
  run: RunWork;
  unpacker: UnpackedFiles;
  checks: DamageChecks;
  copies: CopyScheduler;
  filePages: FilePages;
  /** ATTACH and DETACH one at a time (attachedDatabases.ts) */
  catalogLock: CatalogLock;
}

export class ResultReader {
  private readonly results = new Map<string, OpenResult>();

  constructor(private readonly parts: ReaderParts) {}

  async open(work: Work, id: string, source: ResultSource): Promise<OpenedResult> {
    const { kept, log } = this.parts;
    await this.closeHandle(id);
    const key = await kept.keyOf(source);
    const open = key === undefined ? undefined : [...this.results.values()].find((r) => r.key === key && !r.closed);
    if (open) {
      open.holders++;
      this.results.set(id, open);
      return { handle: id, columns: open.columns, typesInferred: source.schema === undefined };
    }
    const plan = await planResult(work, source, this.parts.unpacker, this.parts.run);
    const keeping = key !== undefined && kept.enabled ? { copies: kept, key } : undefined;
    const result: OpenResult = {
      id,
      view: quoteIdent(`dq_result_${id}`),
      columns: plan.columns,
      perFile: plan.perFile,
      filesSql: plan.filesSql,
      hurried: 0,
      lineWindows: plan.lineWindows,
      firstRows: [],
      allRowsRead: false,
      store: new ResultStore(this.parts.db, this.parts.catalogLock, join(this.parts.workDir, `result-${id}.duckdb`), `dq_store_${id}`, plan.fileCount, keeping),
      key,
      holders: 1,
      closed: false,
      copyingFile: false,
      gaveWay: false,
      unpacked: plan.unpacked,
      gzipFiles: plan.gzipFiles,
    };
    try {
      const keptAt = key === undefined ? undefined : await kept.find(key);
      if (keptAt && (await result.store.adopt(keptAt))) log(`result ${id}: the kept copy of its ${result.store.convertedRows} rows is used`);
      await this.parts.run(work, async (conn) => {
        await conn.run(`CREATE OR REPLACE VIEW ${result.view} AS ${plan.sql}`);
        const first = result.perFile && result.perFile.length > 1 ? `(${result.perFile[0]})` : result.view;
        result.firstRows = await readShaped(conn, `SELECT ${columnList(result.columns)} FROM ${first} LIMIT ${FIRST_ROWS}`, [], result.columns, CUT_ROWS);
      });
      // these rows may be all the first file has: it is shown whole only once it is known to be
      if (result.firstRows.length < FIRST_ROWS) await this.parts.checks.checkWhole(result, 0, () => work.cancelled);
    } catch (err) {
      await this.drop(result);
      throw err;
    }
    if (result.firstRows.length < FIRST_ROWS) {
      if (plan.fileCount === 1 || !result.perFile) result.allRowsRead = true;
      else result.store.fileRows[0] = result.firstRows.length;
    }
    this.results.set(id, result);
    result.conversion = result.store.complete ? Promise.resolve() : this.parts.copies.convert(result);
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
      await this.parts.copies.untilCopied(work, result);
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

  count(work: Work, id: string, view: View): Promise<number> {
    const result = this.result(id);
    const { store } = result;
    const { checks } = this.parts;
    if (result.damage) return Promise.reject(result.damage);
    if (isPlain(view) && result.allRowsRead) return Promise.resolve(result.firstRows.length);
    return this.parts.run(work, async (conn) => {
      await checkFilterValues(conn, view, result.columns);
      if (isPlain(view) && result.perFile && !store.complete) {
        await this.parts.filePages.countFiles(conn, work, result, result.perFile);
        return store.fileRows.reduce((sum: number, rows) => sum + (rows ?? 0), 0);
      }
      const rows = viewRows(result, view, false);
      const counted = async (): Promise<number> => Number((await conn.runAndReadAll(`SELECT count(*) FROM ${rows.sql}`, rows.params)).getRowsJson()[0][0]);
      // a count reads every file it reads to its end
      const total = rows.readsFiles ? (): Promise<number> => checks.checkingEnds(result, allFiles(result), work, counted) : counted;
      return withUsersWhere(conn, view, result.columns, () => this.reading(result, rows, work, total));
    });
  }

  async closeHandle(id: string): Promise<void> {
    const result = this.results.get(id);
    if (!result) return;
    this.results.delete(id);
    if (--result.holders > 0) return;
    result.closed = true;
    await this.parts.copies.stop(result);
    await this.drop(result);
    if (result.store.kept) await this.parts.kept.trim(this.openFiles());
  }

  /** The result open under `id`. */
  result(id: string): OpenResult {
    const result = this.results.get(id);
    if (!result) throw new EngineError('io', 'This result is no longer open. Open it again.');
    return result;
  }

  /** The results open now. */
  openResults(): Iterable<OpenResult> {
    return this.results.values();
  }

  /** The database files of the open results: kept copies among them are not trimmed away. */
  openFiles(): Set<string> {
    return new Set([...this.results.values()].map((r) => r.store.path));
  }

  /**
   * Runs `task` with the result's table attached when it reads from it, as a reader of files
   * when it reads from them. Out of memory reading the files while the copy is being made is
   * told as such: once the copy is complete, the same request reads the table instead.
   */
  async reading<T>(result: OpenResult, reads: Reads, work: Work, task: () => Promise<T>): Promise<T> {
    const { checks, copies } = this.parts;
    const read = reads.readsFiles ? () => copies.readingFiles(() => checks.namingDamage(result, work, task)) : task;
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

  private shapedPage(work: Work, id: string, view: View, offset: number, limit: number, shape: RowShape): Promise<Page> {
    const result = this.result(id);
    const { checks } = this.parts;
    whole(offset);
    whole(limit);
    const page = (rows: unknown[][]): Page => ({ columns: result.columns, rows, offset });
    if (isPlain(view)) {
      // the rows kept at the open are cut: a whole value is read
      const kept = 'cut' in shape && (result.allRowsRead || offset + limit <= result.firstRows.length);
      if (kept) return Promise.resolve(page(result.firstRows.slice(offset, offset + limit)));
      return this.parts.run(work, async (conn) => page(await this.parts.filePages.plainRows(conn, work, result, offset, limit, shape)));
    }
    if (result.damage) return Promise.reject(result.damage);
    return this.parts.run(work, async (conn) => {
      await checkFilterValues(conn, view, result.columns);
      const shaped = (sql: string, params: string[] = []): Promise<unknown[][]> => readShaped(conn, sql, params, result.columns, shape);
      const sorted = (view.sort ?? []).length > 0;
      if (sorted && offset + limit > SORTED_FROM_FILES) await this.parts.copies.untilCopied(work, result);
      const query = viewQuery(result, view);
      return withUsersWhere(conn, view, result.columns, () => this.reading(result, query, work, async () => {
        if (!query.complete || offset + limit <= TOP_N_ROWS) {
          const read = (): Promise<unknown[][]> => shaped(`${query.sql} LIMIT ${limit} OFFSET ${offset}`, query.params);
          if (!query.readsFiles) return page(await read());
          // a sort reads every row; a filter's page that ends short has read the files to their end
          if (sorted) return page(await checks.checkingEnds(result, allFiles(result), work, read));
          const rows = await read();
          if (rows.length < limit) await checks.checkingEnds(result, allFiles(result), work, () => Promise.resolve());
          return page(rows);
        }
        const columns = result.columns.map((c) => quoteIdent(c.name));
        const order = positionsOrder(result, view);
        return page(await result.store.readPositioned(conn, columns, order, offset, limit, (sql) => shaped(sql)));
      }));
    });
  }

  private async drop(result: OpenResult): Promise<void> {
    this.parts.filePages.forget(result);
    const conn = await this.parts.db.connect();
    try {
      await conn.run(`DROP VIEW IF EXISTS ${result.view}`);
    } finally {
      conn.closeSync();
    }
    await result.store.close();
    await this.parts.unpacker.release(result.unpacked);
  }
}
