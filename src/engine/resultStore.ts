// A result's own copy: a DuckDB database file in the engine's work folder holding one table of
// the result's rows, filled from the result's files a file (or a few) at a time and in their
// order, so a row's rowid is its place in the result. While the copy is being made the file is
// attached only while the copy or a request uses it: detaching drops the blocks DuckDB cached
// for it, so during the copy the engine holds a few files' worth of work however large the result.
// Once the copy is complete the file stays attached (DuckDB then caches the blocks queries
// read, within the engine's memory limit) until the result is closed; then it is kept for the
// next open of the same files (keptCopies.ts) or, when copies are not kept, deleted. A copy
// records each file's row count in a table of its own, so a kept copy is whole again at once.
//
// A page sorted or filtered deep into the result (beyond what a top-N keeps) reads the view's
// row positions: the rowids in the view's order, kept in tables of the file (rowPositions.ts).

import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { rm } from 'node:fs/promises';
import { EngineError } from './engineErrors';
import type { KeptCopies } from './keptCopies';
import { RowPositions, type ViewOrder } from './rowPositions';
import { quoteIdent, quoteString } from './sqlText';

/** The SELECT of the result's files `first` to `end` (not included), their rows in the files' order. */
export type FilesSql = (first: number, end: number) => string;

/** Runs catalog changes (ATTACH, DETACH) one at a time. */
export type CatalogLock = <T>(task: () => Promise<T>) => Promise<T>;

/** How a file-by-file copy takes turns with the requests that read the result's files. */
export interface CopyTurns {
  /** resolves when the next file may be copied */
  turn(): Promise<void>;
  /** how many files the next statement copies (more at once use more cores) */
  filesAtOnce(): number;
  /** runs the copy of the files `files` (which a request may interrupt) */
  copying<T>(files: number[], copy: () => Promise<T>): Promise<T>;
  /** the rows of each of `files` copied together, where known (else left unknown) */
  rowsOf(files: number[]): Promise<(number | undefined)[]>;
  /** the copy just interrupted gave way to a request (and is to be done again) */
  gaveWay(): boolean;
  /** the result is closed: copy nothing more */
  stopped(): boolean;
  /** a copy made in one statement over every file (no `files`): runs it, and may refuse it before it counts as complete */
  copyingAll?<T>(copy: () => Promise<T>): Promise<T>;
}

/** Where a complete copy is kept when its result closes. */
export interface Keeping {
  copies: KeptCopies;
  key: string;
}

export class ResultStore {
  /** `"alias".rows` */
  readonly table: string;
  /** the database file: in the engine's work folder while it is made, then where it is kept */
  path: string;
  /** the file is a kept copy (it outlives the result) */
  kept = false;
  /** each file's row count, once the conversion or a count has read it */
  readonly fileRows: (number | undefined)[];
  /** the files copied so far: their rows are the table's first `convertedRows` rows */
  convertedFiles = 0;
  convertedRows = 0;
  /** every file is copied: the table is the whole result */
  complete = false;
  private users = 0;
  private attached = false;
  private closed = false;
  private whenIdle?: () => void;
  private readonly positions: RowPositions;

  constructor(
    private readonly db: DuckDBInstance,
    private readonly catalog: CatalogLock,
    path: string,
    private readonly alias: string,
    fileCount: number,
    private readonly keeping?: Keeping,
  ) {
    this.path = path;
    this.table = `${quoteIdent(alias)}.rows`;
    this.positions = new RowPositions(this.table, quoteIdent(alias));
    this.fileRows = new Array<number | undefined>(fileCount).fill(undefined);
  }

  /**
   * Copies the result into the table. With `files` (a SELECT of files `first` to `end`, typed
   * as `source`, whose rows come in the files' order) a few files at a time (`filesAtOnce`),
   * in the files' order: each statement starts once `turn` allows, and one interrupted while
   * `gaveWay()` says it gave way to a request is run again; it stops between statements once
   * `stopped()`. Without `files`, in one statement over `source`.
   */
  async convert(conn: DuckDBConnection, source: string, files: FilesSql | undefined, o: CopyTurns): Promise<void> {
    const count = async (sql: string): Promise<number> => Number((await conn.runAndReadAll(sql)).getRowsJson()[0][0]);
    if (!files) {
      const all = (): Promise<number> => count(`CREATE TABLE ${this.table} AS SELECT * FROM ${source}`);
      this.convertedRows = await this.use(() => (o.copyingAll ? o.copyingAll(all) : all()));
      this.convertedFiles = this.fileRows.length;
    } else {
      await this.use(() => conn.run(`CREATE TABLE ${this.table} AS SELECT * FROM ${source} LIMIT 0`));
      const fileCount = this.fileRows.length;
      for (let i = 0; i < fileCount; ) {
        await o.turn();
        if (o.stopped()) return;
        const end = Math.min(fileCount, i + Math.max(1, o.filesAtOnce()));
        const copied = Array.from({ length: end - i }, (_, n) => i + n);
        let rows: number;
        try {
          rows = await this.use(() => o.copying(copied, () => count(`INSERT INTO ${this.table} ${files(i, end)}`)));
        } catch (err) {
          if (o.gaveWay() && !o.stopped()) continue;
          throw err;
        }
        if (copied.length === 1) this.fileRows[i] = rows;
        else this.learnRows(copied, rows, await o.rowsOf(copied));
        this.convertedRows += rows;
        this.convertedFiles = i = end;
      }
    }
    const counts = quoteString(JSON.stringify({ rows: this.convertedRows, fileRows: this.fileRows }));
    await this.use(() => conn.run(`CREATE TABLE ${this.countsTable} AS SELECT ${counts} AS counts`));
    await this.catalog(async () => {
      if (this.closed) return;
      this.complete = true;
      await this.attach();
    });
  }

  /** The rows of files copied together, where known: those counted, and one left unknown among them. */
  private learnRows(files: number[], rows: number, known: (number | undefined)[]): void {
    files.forEach((file, n) => (this.fileRows[file] ??= known[n]));
    const unknown = files.filter((file) => this.fileRows[file] === undefined);
    if (unknown.length === 1) this.fileRows[unknown[0]] = rows - files.reduce((sum, file) => sum + (this.fileRows[file] ?? 0), 0);
  }

  /**
   * Takes the kept copy at `path` as this result's complete table. False when it cannot be
   * read: then it is discarded, unless another engine holds it, and the result is copied anew.
   */
  async adopt(path: string): Promise<boolean> {
    const made = this.path;
    try {
      await this.catalog(async () => {
        this.path = path;
        await this.attach();
        const conn = await this.db.connect();
        try {
          const [[text]] = (await conn.runAndReadAll(`SELECT counts FROM ${this.countsTable}`)).getRowsJson();
          const counts = JSON.parse(String(text)) as { rows: number; fileRows: (number | null)[] };
          if (counts.fileRows.length !== this.fileRows.length) throw new Error('the copy has another number of files');
          counts.fileRows.forEach((rows, i) => (this.fileRows[i] = rows ?? undefined));
          this.convertedRows = counts.rows;
        } finally {
          conn.closeSync();
        }
        this.convertedFiles = this.fileRows.length;
        this.complete = true;
        this.kept = true;
      });
      return true;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await this.catalog(() => this.detach()).catch(() => undefined);
      this.path = made;
      if (!/conflicting lock|could not set lock/i.test(message)) await this.keeping?.copies.discard(path);
      return false;
    }
  }

  /** Runs `task` with the file attached as `alias`. */
  async use<T>(task: () => Promise<T>): Promise<T> {
    await this.catalog(async () => {
      if (this.closed) throw new EngineError('io', 'This result is no longer open. Open it again.');
      await this.attach();
      this.users++;
    });
    try {
      return await task();
    } finally {
      await this.catalog(async () => {
        if (--this.users > 0) return;
        if (this.closed) this.whenIdle?.();
        else if (!this.complete) await this.detach();
      });
    }
  }

  /**
   * Reads `limit` rows of a view from `offset` on by their places in the view's `order`
   * (rowPositions.ts): `read` runs the query. Runs inside `use`, on `conn`.
   */
  readPositioned<T>(conn: DuckDBConnection, columns: string[], order: ViewOrder, offset: number, limit: number, read: (sql: string) => Promise<T>): Promise<T> {
    return this.positions.read(conn, columns, order, offset, limit, read);
  }

  /**
   * Waits for the requests using the file, then detaches it and keeps it when it is complete
   * (without the views' row positions), else deletes it.
   */
  async close(): Promise<void> {
    // the wait for the users is handed out wrapped: returned bare, the lock's task would adopt it
    // and hold the lock that the users need to leave
    const idle = await this.catalog(async () => {
      this.closed = true;
      return { users: this.users === 0 ? undefined : new Promise<void>((resolve) => (this.whenIdle = resolve)) };
    });
    await idle.users;
    const keep = this.complete && this.keeping !== undefined && this.keeping.copies.enabled;
    await this.catalog(async () => {
      const tables = this.positions.drain();
      if ((keep || this.kept) && this.attached) {
        for (const table of tables) await this.onOwnConnection(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
      }
      await this.detach();
    });
    if (this.kept) return;
    const keptAt = keep ? await this.keeping!.copies.keep(this.path, this.keeping!.key) : undefined;
    if (keptAt) {
      this.path = keptAt;
      this.kept = true;
      return;
    }
    await Promise.all([this.path, `${this.path}.wal`].map((f) => rm(f, { force: true })));
  }

  private get countsTable(): string {
    return `${quoteIdent(this.alias)}.dq_copy_counts`;
  }

  private async attach(): Promise<void> {
    if (this.attached) return;
    await this.onOwnConnection(`ATTACH ${quoteString(this.path)} AS ${quoteIdent(this.alias)}`);
    this.attached = true;
  }

  private async detach(): Promise<void> {
    if (!this.attached) return;
    this.attached = false;
    await this.onOwnConnection(`DETACH ${quoteIdent(this.alias)}`);
  }

  private async onOwnConnection(sql: string): Promise<void> {
    const conn = await this.db.connect();
    try {
      await conn.run(sql);
    } finally {
      conn.closeSync();
    }
  }
}
