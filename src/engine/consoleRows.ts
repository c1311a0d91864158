// The rows of a SQL console statement, run once and kept in a table of the engine's own. Every
// window, the row count and an export read that table, so a statement whose order is not fixed
// (a GROUP BY without ORDER BY) pages without rows twice or missing, and statements before the
// last one run only once.
// A query (SELECT, FROM, VALUES, WITH, DESCRIBE, SUMMARIZE, …) is kept by DuckDB itself, as
// `CREATE TABLE … AS SELECT * FROM (<the statement>)`: the table's blocks are the buffer
// manager's, so a result larger than the memory limit spills to the engine's temp folder rather
// than being held in the process (2 million rows with a 240-byte column, under the default
// 256 MiB limit: about 350 MiB at its peak, against 1.5 to 1.8 GiB with the result held whole).
// The table is made in one transaction, so a statement cancelled or failing part-way leaves
// nothing behind.
// A statement that cannot be wrapped so (PRAGMA, EXPLAIN, CALL, SET, INSERT … RETURNING, text
// whose last statement cannot be told apart, or a statement inside a transaction the user
// began, whose table other connections would not see) is run as it is: its result is complete,
// and held in memory, before its chunks are appended to the table (a streamed result that fails
// part-way ends like a short one: DuckDB's Node client hands out an empty chunk, not the error).

import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';
import { cancelledError, EngineError, toEngineError } from './engineErrors';
import type { AttachedDatabase, KeptSqlPage, ResultColumn } from './engineProtocol';
import { readableTypeOf } from './sourcePlan';
import { CUT_ROWS, readShaped, type RowShape } from './longValues';
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
   * `parse` runs the statements before the last on the connection and prepares the last.
   */
  async run(work: ConsoleWork, id: string, text: string, limit: number, parse: (conn: DuckDBConnection) => Promise<DuckDBPreparedStatement>, database?: AttachedDatabase): Promise<KeptSqlPage> {
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
          const made = statementKind === 'SELECT' ? await this.madeByDuckDb(conn, text, last, kept, id) : false;
          if (made) return;
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
      // a cancel that came as the rows were kept: they are let go, as those of one that came earlier
      if (work.cancelled && !answered) throw cancelledError();
    } catch (err) {
      await this.drop(id);
      throw work.cancelled ? cancelledError() : err;
    }
    const rows = await this.rows(id, 0, limit);
    return { columns: kept.columns, rows, offset: 0, statementKind, ...(kept.done ? { total: kept.rows } : {}) };
  }

  /**
   * Keeps the rows of `last`, a query, as DuckDB's own `CREATE TABLE … AS` of its text wrapped as
   * a subquery, on `conn` (which has run the statements before it). False, having kept nothing,
   * when the text cannot be wrapped so: the caller runs `last` as it is.
   */
  private async madeByDuckDb(conn: DuckDBConnection, text: string, last: DuckDBPreparedStatement, kept: Kept, id: string): Promise<boolean> {
    const statement = await lastStatementText(conn, text);
    // in a transaction the user began, the table would be seen by no other connection, and go when it ends
    if (statement === undefined || (await inTransaction(conn))) return false;
    const columns: ResultColumn[] = [];
    for (let i = 0; i < last.columnCount; i++) {
      const type = String(last.columnType(i));
      columns.push({ name: last.columnName(i), type: readableTypeOf(type), sqlType: type });
    }
    if (columns.length === 0) return false;
    await this.schemaMade();
    const names = columns.map((_, i) => `c${i}`).join(', ');
    // on lines of their own: a statement may end in a line comment
    const create = await conn.prepare(`CREATE TABLE ${kept.table} AS SELECT * FROM (\n${statement}\n) AS dq_statement(${names})`).catch(() => undefined);
    if (!create) return false;
    kept.columns = columns;
    // held from here: dropping `id` (a newer statement, a closed grid) interrupts the statement
    this.kept.set(id, kept);
    const made = await create.runAndReadAll();
    const rows = Number(made.getRowsJson()[0]?.[0] ?? 0);
    const shape = await conn.runAndReadAll(`SELECT * FROM ${kept.table} LIMIT 0`);
    if (shape.columnCount !== columns.length) {
      // never the case for text DuckDB split as we did (lastStatementText checks it): kept as the statement itself says
      await conn.run(`DROP TABLE IF EXISTS ${kept.table}`);
      return false;
    }
    kept.rows = rows;
    return true;
  }

  /**
   * Rows `offset` to `offset + limit` of kept rows, once they have arrived (or all there are):
   * text values longer than CUT_CHARS as their start and length, or as `shape` asks (longValues.ts).
   */
  async rows(id: string, offset: number, limit: number, signal?: ConsoleWork, shape: RowShape = CUT_ROWS): Promise<unknown[][]> {
    const kept = await this.until(id, (k) => k.rows >= offset + limit, signal);
    if (kept.columns.length === 0) return [];
    const conn = await this.host.db.connect();
    try {
      const names = kept.columns.map((_, i) => `c${i}`).join(', ');
      return await readShaped(conn, `SELECT ${names} FROM ${kept.table} WHERE rowid >= ${offset} AND rowid < ${offset + limit} ORDER BY rowid`, [], kept.columns, shape);
    } finally {
      conn.closeSync();
    }
  }

  /** The whole value of one kept cell: row `offset`, column `column` (by place). */
  async cell(id: string, offset: number, column: number, signal?: ConsoleWork): Promise<unknown> {
    const [row] = await this.rows(id, offset, 1, signal, { column });
    if (!row) throw new EngineError('io', `The statement gave no row ${offset + 1} and column ${column + 1}. Run it again.`);
    return row[0];
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

  /** The kept rows as a relation (what follows FROM) under their own column names, and those columns, once all are in: a chart's. */
  async relation(id: string, work?: ConsoleWork): Promise<{ sql: string; columns: ResultColumn[] }> {
    const kept = await this.until(id, () => false, work);
    if (kept.columns.length === 0) throw new EngineError('syntax', 'The statement gave no rows to chart.');
    return { sql: `(SELECT ${kept.columns.map((c, i) => `c${i} AS ${quoteIdent(c.name)}`).join(', ')} FROM ${kept.table}) AS dq_kept`, columns: kept.columns };
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
        if (work?.cancelled) reject(cancelledError());
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

/**
 * The text of the last statement of `text`, once DuckDB's parser agrees with where it was cut:
 * the text after the cut is one statement, the text before it all the others (a PIVOT without
 * IN, which DuckDB parses as two statements, fails this). Undefined when it does not agree.
 */
async function lastStatementText(conn: DuckDBConnection, text: string): Promise<string | undefined> {
  const split = splitLastStatement(text);
  if (!split) return undefined;
  const count = async (sql: string): Promise<number> => (await conn.extractStatements(sql)).count;
  try {
    const all = await count(text);
    if ((await count(split.last)) !== 1) return undefined;
    const before = split.hasBefore ? await count(split.before) : 0;
    return before === all - 1 ? split.last : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `conn` is in a transaction the user began (BEGIN): outside one, each statement is a transaction of its own. */
async function inTransaction(conn: DuckDBConnection): Promise<boolean> {
  const id = async (): Promise<unknown> => (await conn.runAndReadAll('SELECT txid_current()')).getRowsJson()[0][0];
  return (await id()) === (await id());
}

/** A character that goes on an identifier or keyword (so `$` or `'` after it starts no quote of its own). */
const WORD = /[A-Za-z0-9_$\u0080-\uffff]/;
/** The opening of a dollar-quoted string: `$$` or `$tag$`. */
const DOLLAR_TAG = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/;

/**
 * `text` cut before its last statement: at the last `;` outside quotes, quoted identifiers,
 * dollar-quoted strings and comments that has more than comments and space after it. `last` is
 * that statement (comments and `;` after it left out), `before` the text up to the cut, and
 * `hasBefore` whether `before` holds any statement at all. Undefined for text that ends inside a
 * quote or a comment. Judged by characters only: lastStatementText has DuckDB check the cut.
 */
export function splitLastStatement(text: string): { before: string; last: string; hasBefore: boolean } | undefined {
  /** statements: where each starts and ends (end: its `;` or the end of the text), and whether it holds anything */
  const statements: { start: number; end: number; content: boolean }[] = [];
  let current = { start: 0, end: text.length, content: false };
  let i = 0;
  const closing = (close: string, from: number, doubled: boolean, escapes = false): number => {
    for (let j = from; j < text.length; j++) {
      if (escapes && text[j] === '\\') {
        j++;
        continue;
      }
      if (text.startsWith(close, j)) {
        if (doubled && text.startsWith(close, j + close.length)) {
          j += close.length;
          continue;
        }
        return j + close.length;
      }
    }
    return -1;
  };
  while (i < text.length) {
    const c = text[i];
    const word = i > 0 && WORD.test(text[i - 1]);
    let next: number;
    if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
      continue;
    } else if (c === '/' && text[i + 1] === '*') {
      // block comments nest
      let depth = 0;
      next = -1;
      for (let j = i; j < text.length; j++) {
        if (text.startsWith('/*', j)) {
          depth++;
          j++;
        } else if (text.startsWith('*/', j)) {
          depth--;
          j++;
          if (depth === 0) {
            next = j + 1;
            break;
          }
        }
      }
      if (next < 0) return undefined;
      i = next;
      continue;
    } else if (c === ';') {
      current.end = i;
      statements.push(current);
      current = { start: i + 1, end: text.length, content: false };
      i++;
      continue;
    } else if (c === "'") {
      // E'…' takes backslash escapes; any other '…' only doubled quotes
      const escapes = (text[i - 1] === 'E' || text[i - 1] === 'e') && !(i > 1 && WORD.test(text[i - 2]));
      next = closing("'", i + 1, true, escapes);
    } else if (c === '"') {
      next = closing('"', i + 1, true);
    } else if (c === '$' && !word && DOLLAR_TAG.test(text.slice(i, i + 256))) {
      const tag = DOLLAR_TAG.exec(text.slice(i, i + 256))![0];
      const end = text.indexOf(tag, i + tag.length);
      next = end < 0 ? -1 : end + tag.length;
    } else {
      if (!/\s/.test(c)) current.content = true;
      i++;
      continue;
    }
    if (next < 0) return undefined;
    current.content = true;
    i = next;
  }
  statements.push(current);
  const held = statements.filter((s) => s.content);
  const last = held.at(-1);
  if (!last) return undefined;
  const before = last.start > 0 ? text.slice(0, last.start) : '';
  return { before, last: text.slice(last.start, last.end), hasBefore: held.length > 1 };
}
