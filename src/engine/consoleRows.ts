// The rows of a SQL console statement, run once and kept: each chunk of its result is appended
// to a table of the engine's own, the first window is answered as soon as it is in, and the
// rest is appended behind it. Every later window, the row count and an export read that table,
// so a statement whose order is not fixed (a GROUP BY without ORDER BY) pages without rows twice
// or missing, and statements before the last one run only once. The result is complete before
// its first chunk is read: a streamed one that fails part-way ends like a short one (DuckDB's
// Node client hands out an empty chunk, not the error), and would be kept cut short.

import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';
import { EngineError, toEngineError } from './engineErrors';
import type { AttachedDatabase, KeptSqlPage, ResultColumn } from './engineProtocol';
import { readableTypeOf } from './sourcePlan';
import { jsonRows } from './rowValues';
import { quoteIdent } from './sqlText';

/** The schema of the kept rows, in the in-memory catalog (a statement may run with a database file as its default). */
const SCHEMA = 'memory.dq_console';

/** Rows appended between two flushes once the first window is out: what a waiting window may read. */
const FLUSH_ROWS = 20_000;

export interface ConsoleRowsHost {
  db: DuckDBInstance;
  statementKinds: Record<number, string>;
  /** runs `task` with `database` attached (and the default catalog) for as long as it runs */
  onDatabase<T>(conn: DuckDBConnection, database: AttachedDatabase | undefined, task: () => Promise<T>): Promise<T>;
}

/** A request's hooks: interrupting its connection cancels it. */
export interface ConsoleWork {
  running?: DuckDBConnection;
  cancelled: boolean;
}

interface Kept {
  table: string;
  columns: ResultColumn[];
  /** rows appended and flushed: readable */
  rows: number;
  done: boolean;
  failure?: EngineError;
  /** the connection running the statement, until its rows are all kept */
  conn?: DuckDBConnection;
  /** asked whenever `rows`, `done` or `failure` change; each answers true once it is done waiting */
  waiting: Set<() => boolean>;
  filled: Promise<void>;
}

export class ConsoleRows {
  private readonly kept = new Map<string, Kept>();
  /** statements whose rows were let go (a newer statement took their place): not an engine restart */
  private readonly dropped = new Set<string>();
  /** the schema of the kept rows, made once: statements made at once would conflict making it */
  private schema?: Promise<void>;

  constructor(private readonly host: ConsoleRowsHost) {}

  /**
   * Runs `text` (its statements before the last once, then the last, its result put in a table kept
   * as `id`) and answers its first `limit` rows once they are in; the rest are appended behind.
   */
  async run(work: ConsoleWork, id: string, limit: number, parse: (conn: DuckDBConnection) => Promise<DuckDBPreparedStatement>, database?: AttachedDatabase): Promise<KeptSqlPage> {
    await this.drop(id);
    const conn = await this.host.db.connect();
    work.running = conn;
    let answered = false;
    let statementKind = 'UNKNOWN';
    let sink: DuckDBConnection | undefined;
    const kept: Kept = { table: `${SCHEMA}.${quoteIdent(id)}`, columns: [], rows: 0, done: false, waiting: new Set(), conn, filled: Promise.resolve() };
    const first = new Promise<void>((resolve, reject) => {
      kept.filled = this.host
        .onDatabase(conn, database, async () => {
          const last = await parse(conn);
          statementKind = this.host.statementKinds[last.statementType] ?? 'UNKNOWN';
          const result = await last.run();
          const names = result.columnNames();
          const types = result.columnTypes();
          kept.columns = names.map((name, i) => ({ name, type: readableTypeOf(String(types[i])), sqlType: String(types[i]) }));
          this.kept.set(id, kept);
          // a statement without columns (SET, …) has no rows to keep
          if (types.length === 0) return;
          // the rows go in through a connection of their own
          sink = await this.host.db.connect();
          await this.schemaMade();
          await sink.run(`CREATE TABLE ${kept.table} (${types.map((t, i) => `c${i} ${String(t)}`).join(', ')})`);
          const appender = await sink.createAppender(id, 'dq_console', 'memory');
          let unflushed = 0;
          const flush = (): void => {
            appender.flushSync();
            kept.rows += unflushed;
            unflushed = 0;
            this.changed(kept);
          };
          try {
            for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
              appender.appendDataChunk(chunk);
              unflushed += chunk.rowCount;
              if (!answered && kept.rows + unflushed >= limit) {
                flush();
                answered = true;
                work.running = undefined;
                resolve();
              } else if (answered && unflushed >= FLUSH_ROWS) {
                flush();
              }
            }
            flush();
          } finally {
            appender.closeSync();
          }
        })
        .then(
          () => {
            kept.done = true;
            if (!answered) resolve();
          },
          (err: unknown) => {
            const failure = toEngineError(err, 'sql');
            kept.failure = kept.failure ?? failure;
            if (!answered) reject(failure);
          },
        )
        .finally(() => {
          kept.conn = undefined;
          if (work.running === conn) work.running = undefined;
          conn.closeSync();
          sink?.closeSync();
          this.changed(kept);
        });
    });
    try {
      await first;
    } catch (err) {
      await this.drop(id);
      throw work.cancelled ? new EngineError('cancelled', 'The query was cancelled.') : err;
    }
    const rows = await this.rows(id, 0, limit);
    return { columns: kept.columns, rows, offset: 0, statementKind, ...(kept.done ? { total: kept.rows } : {}) };
  }

  /** Rows `offset` to `offset + limit` of kept rows, once they have arrived (or all there are). */
  async rows(id: string, offset: number, limit: number, signal?: ConsoleWork): Promise<unknown[][]> {
    const kept = await this.until(id, (k) => k.rows >= offset + limit, signal);
    if (kept.columns.length === 0) return [];
    const conn = await this.host.db.connect();
    try {
      const names = kept.columns.map((_, i) => `c${i}`).join(', ');
      return jsonRows(await conn.runAndReadAll(`SELECT ${names} FROM ${kept.table} WHERE rowid >= ${offset} AND rowid < ${offset + limit} ORDER BY rowid`));
    } finally {
      conn.closeSync();
    }
  }

  /** How many rows the statement gave, once all have arrived. */
  async count(id: string, signal?: ConsoleWork): Promise<number> {
    return (await this.until(id, () => false, signal)).rows;
  }

  /** The kept rows as a query under their own column names, for an export, once all are in. */
  async exportQuery(id: string, work?: ConsoleWork): Promise<string> {
    const kept = await this.until(id, () => false, work);
    if (kept.columns.length === 0) throw new EngineError('syntax', 'The statement gave no rows to export.');
    return `SELECT ${kept.columns.map((c, i) => `c${i} AS ${quoteIdent(c.name)}`).join(', ')} FROM ${kept.table} ORDER BY rowid`;
  }

  /** Stops a statement still running and lets go of its rows. */
  async drop(id: string): Promise<void> {
    const kept = this.kept.get(id);
    if (!kept) return;
    this.kept.delete(id);
    this.dropped.add(id);
    kept.conn?.interrupt();
    await kept.filled.catch(() => undefined);
    this.changed(kept);
    const conn = await this.host.db.connect();
    try {
      await conn.run(`DROP TABLE IF EXISTS ${kept.table}`);
    } finally {
      conn.closeSync();
    }
  }

  /** Waits until `enough` holds or every row is in; fails with the statement's failure or a cancel. */
  private until(id: string, enough: (k: Kept) => boolean, work?: ConsoleWork): Promise<Kept> {
    const kept = this.kept.get(id);
    if (!kept) return Promise.reject(this.gone(id));
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        if (work?.cancelled) reject(new EngineError('cancelled', 'The query was cancelled.'));
        else if (kept.failure) reject(kept.failure);
        else if (!this.kept.has(id)) reject(this.gone(id));
        else if (kept.done || enough(kept)) resolve(kept);
        else return false;
        return true;
      };
      if (check()) return;
      const settled = (): boolean => {
        if (!check()) return false;
        clearInterval(poll);
        kept.waiting.delete(settled);
        return true;
      };
      // a cancel comes as a flag on the request, not as a change of the rows
      const poll = setInterval(settled, 100);
      kept.waiting.add(settled);
    });
  }

  private schemaMade(): Promise<void> {
    this.schema ??= (async () => {
      const conn = await this.host.db.connect();
      try {
        await conn.run(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
      } finally {
        conn.closeSync();
      }
    })();
    this.schema.catch(() => (this.schema = undefined));
    return this.schema;
  }

  /** Why a statement's rows are not held: a newer statement replaced it, or the engine restarted. */
  private gone(id: string): EngineError {
    if (this.dropped.has(id)) return new EngineError('cancelled', 'A newer statement took this one\'s place; its rows are no longer held.');
    return new EngineError('io', 'The statement\'s rows are no longer held (the engine restarted). Run the statement again.');
  }

  private changed(kept: Kept): void {
    for (const waiter of [...kept.waiting]) waiter();
  }
}
