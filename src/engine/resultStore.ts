// A result's own copy: a DuckDB database file in the engine's work folder holding one table of
// the result's rows, filled from the result's files one file at a time and in their order, so
// a row's rowid is its place in the result. While the copy is being made the file is attached
// only while the copy or a request uses it: detaching drops the blocks DuckDB cached for it,
// so during the copy the engine holds about one file's worth of work however large the result.
// Once the copy is complete the file stays attached (DuckDB then caches the blocks queries
// read, within the engine's memory limit) until the result is closed; then it is deleted.
//
// A page sorted or filtered deep into the result (beyond what a top-N keeps) reads the view's
// row positions: the rowids in the view's order, kept in a table built on the first such page.

import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { rm } from 'node:fs/promises';
import { EngineError } from './engineErrors';
import { quoteIdent, quoteString, type BoundSql } from './sqlText';

/** Runs catalog changes (ATTACH, DETACH) one at a time. */
export type CatalogLock = <T>(task: () => Promise<T>) => Promise<T>;

/** How a file-by-file copy takes turns with the requests that read the result's files. */
export interface CopyTurns {
  /** resolves when the next file may be copied */
  turn(): Promise<void>;
  /** runs the copy of one file (which a request may interrupt) */
  copying<T>(copy: () => Promise<T>): Promise<T>;
  /** the copy just interrupted gave way to a request (and is to be done again) */
  gaveWay(): boolean;
  /** the result is closed: copy nothing more */
  stopped(): boolean;
}

/** Views whose row positions are kept; the least recently used goes when one more is built. */
const KEPT_POSITIONS = 3;

interface Positions {
  table: string;
  ready: Promise<void>;
  lastUsed: number;
  readers: number;
}

export class ResultStore {
  /** `"alias".rows` */
  readonly table: string;
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
  private readonly positions = new Map<string, Positions>();
  private positionTables = 0;
  private uses = 0;

  constructor(
    private readonly db: DuckDBInstance,
    private readonly catalog: CatalogLock,
    readonly path: string,
    private readonly alias: string,
    fileCount: number,
  ) {
    this.table = `${quoteIdent(alias)}.rows`;
    this.fileRows = new Array<number | undefined>(fileCount).fill(undefined);
  }

  /**
   * Copies the result into the table. With `perFile` (one SELECT per file, each typed as
   * `source`) file by file: each file starts once `turn` allows, and a file whose copy is
   * interrupted while `gaveWay()` says it gave way to a request is copied again; it stops
   * between files once `stopped()`. Without `perFile`, in one statement over `source`.
   */
  async convert(conn: DuckDBConnection, source: string, perFile: string[] | undefined, o: CopyTurns): Promise<void> {
    const count = async (sql: string): Promise<number> => Number((await conn.runAndReadAll(sql)).getRowsJson()[0][0]);
    if (!perFile) {
      this.convertedRows = await this.use(() => count(`CREATE TABLE ${this.table} AS SELECT * FROM ${source}`));
      this.convertedFiles = this.fileRows.length;
    } else {
      await this.use(() => conn.run(`CREATE TABLE ${this.table} AS SELECT * FROM ${source} LIMIT 0`));
      for (let i = 0; i < perFile.length; ) {
        await o.turn();
        if (o.stopped()) return;
        let rows: number;
        try {
          rows = await this.use(() => o.copying(() => count(`INSERT INTO ${this.table} ${perFile[i]}`)));
        } catch (err) {
          if (o.gaveWay() && !o.stopped()) continue;
          throw err;
        }
        this.fileRows[i] = rows;
        this.convertedRows += rows;
        this.convertedFiles = ++i;
      }
    }
    await this.catalog(async () => {
      if (this.closed) return;
      this.complete = true;
      await this.attach();
    });
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
   * Reads `limit` rows of a view from `offset` on by their positions in the view, kept in a
   * table built from `order` (the view's WHERE and ORDER BY over the table, ties broken by
   * rowid) on its first deep page: `read` runs the query. Runs inside `use`, on `conn`.
   */
  async readPositioned<T>(conn: DuckDBConnection, columns: string[], order: BoundSql, offset: number, limit: number, read: (sql: string) => Promise<T>): Promise<T> {
    const positions = this.positionsOf(conn, order);
    try {
      await positions.ready;
      const selected = columns.map((c) => `t.${c}`).join(', ');
      const range = `rowid >= ${offset} AND rowid < ${offset + limit}`;
      return await read(`SELECT ${selected} FROM (SELECT rowid AS pos, rid FROM ${positions.table} WHERE ${range}) p JOIN ${this.table} t ON t.rowid = p.rid ORDER BY p.pos`);
    } finally {
      positions.readers--;
      await this.forgetLeastUsed(conn);
    }
  }

  /** Waits for the requests using the file, then detaches and deletes it. */
  async close(): Promise<void> {
    const idle = await this.catalog(async () => {
      this.closed = true;
      return this.users === 0 ? undefined : new Promise<void>((resolve) => (this.whenIdle = resolve));
    });
    await idle;
    await this.catalog(() => this.detach());
    await Promise.all([this.path, `${this.path}.wal`].map((f) => rm(f, { force: true })));
  }

  private positionsOf(conn: DuckDBConnection, order: BoundSql): Positions {
    const key = JSON.stringify([order.sql, order.params]);
    let positions = this.positions.get(key);
    if (!positions) {
      const table = `${quoteIdent(this.alias)}.${quoteIdent(`positions_${++this.positionTables}`)}`;
      const ready = (async () => {
        try {
          await conn.run(`CREATE TABLE ${table} (rid BIGINT)`);
          await conn.run(`INSERT INTO ${table} SELECT rowid FROM ${this.table}${order.sql}`, order.params);
        } catch (err) {
          await conn.run(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
          throw err;
        }
      })();
      positions = { table, ready, lastUsed: 0, readers: 0 };
      this.positions.set(key, positions);
      ready.catch(() => {
        if (this.positions.get(key) === positions) this.positions.delete(key);
      });
    }
    positions.readers++;
    positions.lastUsed = ++this.uses;
    return positions;
  }

  /** Drops the tables of the least recently used views beyond KEPT_POSITIONS that no request reads. */
  private async forgetLeastUsed(conn: DuckDBConnection): Promise<void> {
    const idle = [...this.positions].filter(([, p]) => p.readers === 0).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [key, positions] of idle.slice(0, Math.max(0, this.positions.size - KEPT_POSITIONS))) {
      this.positions.delete(key);
      await conn.run(`DROP TABLE IF EXISTS ${positions.table}`).catch(() => undefined);
    }
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
