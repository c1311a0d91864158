// The SQL console's statements: run on the engine's database (or on a database file attached
// for them, attachedDatabases.ts), their rows paged or kept (consoleRows.ts). A statement has
// the files of the views it names read to their end alongside (consoleViews.ts), and a damaged
// view fails it naming the file.

import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBResultReader } from '@duckdb/node-api';
import type { AttachedDatabases } from './attachedDatabases';
import type { ConsoleRows } from './consoleRows';
import type { ConsoleViews } from './consoleViews';
import { cancelledError, EngineError, toEngineError } from './engineErrors';
import type { AttachedDatabase, KeptSqlPage, ResultColumn, SqlPage } from './engineProtocol';
import { whole, type RunWork, type Work } from './engineWork';
import { jsonRows } from './rowValues';
import { readableTypeOf } from './sourcePlan';

export class ConsoleStatements {
  constructor(
    private readonly run: RunWork,
    private readonly statementKinds: Record<number, string>,
    private readonly views: ConsoleViews,
    private readonly rows: ConsoleRows,
    private readonly databases: AttachedDatabases,
  ) {}

  async sql(work: Work, text: string, offset: number, limit: number, database?: AttachedDatabase): Promise<SqlPage> {
    const damage = database ? undefined : await this.views.checked(work, text);
    if (damage) throw damage;
    return this.run(work, (conn) => this.databases.onDatabase(conn, database, async () => {
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
    if (work.cancelled) throw cancelledError();
    // the files of the views it names are read to their end alongside: a damaged one fails it
    let ran = false;
    let settled = false;
    // a view failing for damage is checked first: its files, downloaded again, may be whole now
    if (!database && this.views.namesFailing(text)) {
      const found = await this.views.checked(work, text);
      if (found) throw found;
    }
    const damage = database ? Promise.resolve(undefined) : this.views.checked({ get cancelled() { return work.cancelled || settled; } }, text).catch(() => undefined);
    try {
      const page = await this.rows.run(work, id, text, limit, (conn) => lastStatement(conn, text), database);
      ran = true;
      const found = await damage;
      if (found) throw found;
      if (work.cancelled) throw cancelledError();
      return page;
    } catch (err) {
      const e = toEngineError(err, 'sql');
      // a failure damage may explain (a row of a file cut mid-line) waits for the files' ends; another does not
      const found = !ran && (e.kind === 'corrupt' || e.kind === 'io' || e.kind === 'schema') ? await damage : undefined;
      settled = true;
      if (ran) await this.rows.drop(id);
      throw found ?? e;
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

function columnsOf(reader: DuckDBResultReader): ResultColumn[] {
  const types = reader.columnTypes();
  return reader.columnNames().map((name, i) => ({ name, type: readableTypeOf(String(types[i])), sqlType: String(types[i]) }));
}
