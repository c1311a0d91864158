// The engine's work inside its child process: results opened as views over their files,
// pages, counts, the SQL console, registered views and exports, on one in-memory DuckDB.
//
// Each request runs on its own connection, so cancelling one interrupts only that query.
// An opened result is first served straight from its files (the first rows come at once);
// meanwhile it is converted into a temporary Parquet file, and once that is written the
// result's view points at it, so far pages, sorts and counts no longer rescan gzip text.
// A statement may run on a database file (a synced database): attached read-only for the
// requests that use it and detached as soon as none does, so the file is never held idle.

import type { DuckDBConnection, DuckDBInstance, DuckDBResultReader, DuckDBType } from '@duckdb/node-api';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { EngineError, toEngineError } from './engineErrors';
import type { AttachedDatabase, ExportSource, ExportTarget, OpenedResult, Page, ResultColumn, ResultSource, SqlPage, View } from './engineProtocol';
import { jsonRows } from './rowValues';
import { inspectFiles } from './sourceFiles';
import { planSource, readableTypeOf, readerCall, type FileColumn, type SourcePlan } from './sourcePlan';
import { orderClause, quoteIdent, quoteString, typedFilterValues, whereClause, type BoundSql } from './sqlText';

/** One request in flight: the connection running its query, so a cancel can interrupt it. */
export interface Work {
  running?: DuckDBConnection;
  cancelled: boolean;
  progress(rows: number): void;
}

interface OpenResult {
  id: string;
  view: string;
  source: string;
  columns: ResultColumn[];
  /** the view reads the converted Parquet file (with its `file_row_number`) */
  converted: boolean;
  closed: boolean;
  conversion?: Promise<void>;
  converting?: DuckDBConnection;
  files: string[];
}

const PROGRESS_MS = 250;
const ROW_ORDER = 'file_row_number';
/** Catalog names DuckDB keeps for itself: a database is never attached under them. */
const RESERVED_ALIASES = new Set(['memory', 'system', 'temp', 'main']);

/** A database file attached read-only, and how many requests use it now. */
interface Attachment {
  path: string;
  users: number;
}

export class ResultEngine {
  private readonly results = new Map<string, OpenResult>();
  private readonly views = new Map<string, ResultColumn[]>();
  private readonly attachments = new Map<string, Attachment>();
  /** ATTACH and DETACH run one at a time, so a detach never races an attach of the same name */
  private catalogWork: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: DuckDBInstance,
    private readonly statementKinds: Record<number, string>,
    private readonly workDir: string,
    private readonly log: (message: string) => void,
  ) {}

  async open(work: Work, id: string, source: ResultSource): Promise<OpenedResult> {
    await this.closeHandle(id);
    const plan = await this.plan(work, source);
    const result: OpenResult = {
      id,
      view: quoteIdent(`dq_result_${id}`),
      source: quoteIdent(`dq_result_${id}_files`),
      columns: plan.columns,
      converted: false,
      closed: false,
      files: plan.unpacked,
    };
    try {
      await this.run(work, async (conn) => {
        await conn.run(`CREATE OR REPLACE VIEW ${result.source} AS ${plan.sql}`);
        await conn.run(`CREATE OR REPLACE VIEW ${result.view} AS SELECT * FROM ${result.source}`);
        await conn.run(`SELECT * FROM ${result.view} LIMIT 1`);
      });
    } catch (err) {
      await this.drop(result);
      throw err;
    }
    this.results.set(id, result);
    result.conversion = this.convert(result);
    return { handle: id, columns: plan.columns, typesInferred: source.schema === undefined };
  }

  page(work: Work, id: string, view: View, offset: number, limit: number): Promise<Page> {
    const result = this.result(id);
    const query = this.viewQuery(result, view);
    return this.run(work, async (conn) => {
      await checkFilterValues(conn, view, result.columns);
      const reader = await conn.runAndReadAll(`${query.sql} LIMIT ${whole(limit)} OFFSET ${whole(offset)}`, query.params);
      return { columns: result.columns, rows: jsonRows(reader), offset };
    });
  }

  count(work: Work, id: string, view: View): Promise<number> {
    const result = this.result(id);
    const where = whereClause(view, result.columns);
    return this.run(work, async (conn) => {
      await checkFilterValues(conn, view, result.columns);
      const reader = await conn.runAndReadAll(`SELECT count(*) FROM ${result.view}${where.sql}`, where.params);
      return Number(reader.getRowsJson()[0][0]);
    });
  }

  sql(work: Work, text: string, offset: number, limit: number, database?: AttachedDatabase): Promise<SqlPage> {
    return this.run(work, (conn) => this.onDatabase(conn, database, async () => {
      const statements = await conn.extractStatements(text);
      if (statements.count === 0) throw new EngineError('syntax', 'There is no SQL statement to run. Write one, then run it.');
      for (let i = 0; i < statements.count - 1; i++) await (await statements.prepare(i)).run();
      const last = await statements.prepare(statements.count - 1);
      const reader = await last.streamAndReadUntil(whole(offset) + whole(limit));
      return {
        columns: columnsOf(reader),
        rows: jsonRows(reader, offset).slice(0, limit),
        offset,
        statementKind: this.statementKinds[last.statementType] ?? 'UNKNOWN',
      };
    }));
  }

  /** `namespace.table` becomes view `table` in schema `namespace`, reading the files directly. */
  async registerView(work: Work, name: string, source: ResultSource): Promise<void> {
    const plan = await this.plan(work, source);
    const dot = name.indexOf('.');
    const schema = dot > 0 ? name.slice(0, dot) : undefined;
    const qualified = schema ? `${quoteIdent(schema)}.${quoteIdent(name.slice(dot + 1))}` : quoteIdent(name);
    await this.run(work, async (conn) => {
      if (schema) await conn.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      await conn.run(`CREATE OR REPLACE VIEW ${qualified} AS ${plan.sql}`);
    });
    this.views.set(name, plan.columns);
  }

  listViews(): { name: string; columns: ResultColumn[] }[] {
    return [...this.views].map(([name, columns]) => ({ name, columns }));
  }

  /** Writes beside the target and renames when complete, so a cancelled export leaves no partial file under its name. */
  export(work: Work, source: ExportSource, target: ExportTarget): Promise<{ rows: number; path: string }> {
    const result = 'handle' in source ? this.result(source.handle) : undefined;
    const view = 'handle' in source ? (source.view ?? {}) : {};
    const query = result ? this.viewQuery(result, view) : { sql: withoutTrailingSemicolons((source as { sql: string }).sql), params: [] };
    const database = 'sql' in source ? source.database : undefined;
    const partial = `${target.path}.partial`;
    const options = target.format === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT parquet';
    return this.run(work, (conn) => this.onDatabase(conn, database, async () => {
      if (result) await checkFilterValues(conn, view, result.columns);
      await conn.run('SET enable_progress_bar = true; SET enable_progress_bar_print = false');
      const timer = setInterval(() => work.progress(Math.max(0, Number(conn.progress.rows_processed))), PROGRESS_MS);
      try {
        const reader = await conn.runAndReadAll(`COPY (${query.sql}\n) TO ${quoteString(partial)} (${options})`, query.params);
        await rename(partial, target.path);
        const rows = Number(reader.getRowsJson()[0][0]);
        work.progress(rows);
        return { rows, path: target.path };
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      } finally {
        clearInterval(timer);
      }
    }));
  }

  async closeHandle(id: string): Promise<void> {
    const result = this.results.get(id);
    if (!result) return;
    this.results.delete(id);
    result.closed = true;
    result.converting?.interrupt();
    await result.conversion;
    await this.drop(result);
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

  private result(id: string): OpenResult {
    const result = this.results.get(id);
    if (!result) throw new EngineError('io', 'This result is no longer open. Open it again.');
    return result;
  }

  private viewQuery(result: OpenResult, view: View): BoundSql {
    const where = whereClause(view, result.columns);
    const order = orderClause(view, result.columns, result.converted ? ROW_ORDER : undefined);
    const columns = result.columns.map((c) => quoteIdent(c.name)).join(', ');
    return { sql: `SELECT ${columns} FROM ${result.view}${where.sql}${order}`, params: where.params };
  }

  private async plan(work: Work, source: ResultSource): Promise<SourcePlan & { unpacked: string[] }> {
    const files = await inspectFiles(source, this.workDir);
    const reader = readerCall(files.format, files.paths, { gzip: files.gzip, schema: source.schema });
    const described = files.format === 'jsonl' && source.schema ? [] : await this.run(work, (conn) => describe(conn, reader));
    return { ...planSource(files.format, reader, described, source.schema), unpacked: files.unpacked };
  }

  /** Converts the result into a temporary Parquet file in the background, then serves from it. */
  private async convert(result: OpenResult): Promise<void> {
    const file = join(this.workDir, `result-${result.id}.parquet`);
    result.files.push(file);
    let conn: DuckDBConnection | undefined;
    try {
      conn = await this.db.connect();
      result.converting = conn;
      if (result.closed) return;
      await conn.run(`COPY (SELECT * FROM ${result.source}) TO ${quoteString(file)} (FORMAT parquet)`);
      if (result.closed) return;
      await conn.run(`CREATE OR REPLACE VIEW ${result.view} AS SELECT * FROM read_parquet(${quoteString(file)}, ${ROW_ORDER}=true)`);
      result.converted = true;
    } catch (err) {
      if (!result.closed) this.log(`result ${result.id} stays read from its files: ${toEngineError(err).message}`);
    } finally {
      result.converting = undefined;
      conn?.closeSync();
    }
  }

  private async drop(result: OpenResult): Promise<void> {
    const conn = await this.db.connect();
    try {
      await conn.run(`DROP VIEW IF EXISTS ${result.view}`);
      await conn.run(`DROP VIEW IF EXISTS ${result.source}`);
    } finally {
      conn.closeSync();
    }
    await Promise.all(result.files.map((f) => rm(f, { force: true })));
  }

  private async run<T>(work: Work, task: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    if (work.cancelled) throw new EngineError('cancelled', 'The query was cancelled.');
    const conn = await this.db.connect();
    work.running = conn;
    try {
      if (work.cancelled) throw new EngineError('cancelled', 'The query was cancelled.');
      return await task(conn);
    } catch (err) {
      throw toEngineError(err);
    } finally {
      work.running = undefined;
      conn.closeSync();
    }
  }
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

function whole(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new EngineError('syntax', `${n} is not a row offset or count: use a whole number of 0 or more.`);
  return n;
}

function withoutTrailingSemicolons(sql: string): string {
  return sql.trim().replace(/(;\s*)+$/, '');
}
