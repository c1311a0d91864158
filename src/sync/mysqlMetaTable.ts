// The meta table of the MySQL target, `dq_sync_state` in the URL's database, and the session it
// is read on (one statement at a time, opened again when the last one was lost). Opening creates
// it when missing; opened read-only, nothing is created: a database never synced to reads as no
// rows. Every write of the meta table (a run's meta row, a snapshot's swap, a source adopted)
// happens under one user-level lock of the database (`metaLockName`), held for the moments the
// write takes: a snapshot swaps in a copy of the whole meta table together with its table (see
// mysqlSnapshot.ts), and no other write may fall between its copy and its swap.

import { DqError } from '../client/errors';
import { SerialQueue } from '../core/serialQueue';
import { metaRowValues } from './metaRow';
import type { MysqlEndpoint, MysqlSession } from './mysqlConnection';
import { mysqlErrno, mysqlError } from './mysqlErrors';
import { isoFromDatetime, utcDatetime } from './mysqlRecords';
import { ADOPT_SOURCE, createMetaTable, META_TABLE, metaLockName, SELECT_META_ROWS, tableName } from './mysqlSql';
import { formatDuration } from '../core/durationText';
import type { ApplyPlan, SyncedTable, SyncState } from './syncTarget';

interface MetaRow {
  namespace: string;
  table: string;
  point: string;
  schema_version: number;
  schema: string;
  row_count: string;
  ran_at: string;
  source: string | null;
}

const READING = 'reading the meta table';
const NO_SUCH_TABLE = 1146;

function stateOf(row: MetaRow): SyncState {
  return {
    namespace: row.namespace,
    table: row.table,
    point: isoFromDatetime(row.point),
    schemaVersion: Number(row.schema_version),
    schema: JSON.parse(row.schema) as SyncState['schema'],
    rows: Number(row.row_count),
    ranAt: isoFromDatetime(row.ran_at),
    ...(row.source === null ? {} : { source: row.source }),
  };
}

/** A point or time the meta row stores, as DATETIME(6) text in UTC. */
function stored(iso: string, what: string): string {
  const text = utcDatetime(iso);
  if (text === undefined) throw new DqError('invalidResponse', `The ${what} ${iso} is not a time MySQL can store.`);
  return text;
}

/** The parameters of `upsertMetaRow`, from the plan and the rows the table holds. */
export function metaRowParams(plan: Pick<ApplyPlan, 'table' | 'state'>, rows: number, database: string): unknown[] {
  const [namespace, table, point, version, schema, count, ranAt, source] = metaRowValues(plan, rows);
  return [namespace, table, database, tableName(String(namespace), String(table)), stored(String(point), 'point'), version, schema, count, stored(String(ranAt), 'run time'), source];
}

export class MysqlMetaTable {
  private main?: MysqlSession;
  private readonly queue = new SerialQueue();

  constructor(
    private readonly endpoint: MysqlEndpoint,
    private readonly readOnly: boolean,
    private readonly lockWaitMs: number,
  ) {}

  /** Connects the meta session; creates the meta table when missing (not when read-only). */
  open(): Promise<void> {
    return this.onSession('connecting', async (session) => {
      if (this.readOnly) return;
      const { keyCollation } = await this.endpoint.serverFacts(session);
      await this.endpoint.run(session, 'creating the meta table', createMetaTable(META_TABLE, keyCollation));
    });
  }

  async read(namespace: string, table: string): Promise<SyncState | undefined> {
    const rows = await this.rows('WHERE namespace = ? AND `table` = ?', [namespace, table]);
    return rows[0] ? stateOf(rows[0]) : undefined;
  }

  async list(): Promise<SyncState[]> {
    return (await this.rows('ORDER BY namespace, `table`')).map(stateOf);
  }

  syncedTables(): Promise<SyncedTable[]> {
    return this.onSession(READING, async (session) => {
      try {
        const rows = (await session.query(`SELECT namespace, \`table\` FROM ${META_TABLE}`)) as SyncedTable[];
        return rows.map((r) => ({ namespace: r.namespace, table: r.table }));
      } catch (err) {
        if (mysqlErrno(err) === NO_SUCH_TABLE) return [];
        throw mysqlError(err, this.endpoint.errorContext(READING));
      }
    });
  }

  async adoptSource(namespace: string, table: string, source: string, replacing?: string): Promise<void> {
    if (this.readOnly) return;
    const doing = 'recording the source in the meta table';
    await this.onSession(doing, (session) =>
      this.underMetaLock(session, doing, async () => {
        await session.query(ADOPT_SOURCE, [source, namespace, table, replacing ?? null]);
      }),
    );
  }

  /**
   * Runs `work` on `session` holding the meta table's lock, waiting up to the lock wait for
   * another sync's write; failures of `work` are its own.
   */
  async underMetaLock<T>(session: MysqlSession, doing: string, work: () => Promise<T>): Promise<T> {
    const name = metaLockName(this.endpoint.database);
    const wait = Math.max(1, Math.ceil(this.lockWaitMs / 1000));
    let got: unknown;
    try {
      [{ got }] = (await session.query('SELECT GET_LOCK(?, ?) AS got', [name, wait])) as { got: unknown }[];
    } catch (err) {
      throw mysqlError(err, this.endpoint.errorContext(doing, true));
    }
    if (Number(got) !== 1) {
      throw new DqError('io', `Another sync has been writing the meta table ${META_TABLE} in MySQL at ${this.endpoint.label} for ${formatDuration(wait * 1000, 'long')} while ${doing}; the table keeps its last complete run.`, {
        hint: 'Run the sync again when the other sync has finished.',
        operation: 'mysql',
      });
    }
    try {
      return await work();
    } finally {
      if (session.usable) await session.query('DO RELEASE_LOCK(?)', [name]).catch(() => undefined);
    }
  }

  /** Runs work on the meta session (opened again when the last one was lost), one at a time. */
  onSession<T>(doing: string, work: (session: MysqlSession) => Promise<T>): Promise<T> {
    return this.queue.run(async () => work(await this.session(doing)));
  }

  /** Waits for the statements under way, then closes the meta session. */
  async close(): Promise<void> {
    await this.queue.idle();
    await this.main?.close();
    this.main = undefined;
  }

  /** Meta rows (`rest` is the WHERE or ORDER BY); a missing meta table is no rows. */
  private rows(rest: string, params?: unknown[]): Promise<MetaRow[]> {
    return this.onSession(READING, async (session) => {
      try {
        return (await session.query(`${SELECT_META_ROWS} ${rest}`, params)) as MetaRow[];
      } catch (err) {
        if (mysqlErrno(err) === NO_SUCH_TABLE) return [];
        throw mysqlError(err, this.endpoint.errorContext(READING));
      }
    });
  }

  private async session(doing: string): Promise<MysqlSession> {
    if (!this.main?.usable) {
      await this.main?.close();
      this.main = undefined;
      this.main = await this.endpoint.connect(doing);
    }
    return this.main;
  }
}
