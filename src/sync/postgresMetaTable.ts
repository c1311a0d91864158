// The meta table of the PostgreSQL target, `public.dq_sync_state`, and the session it is read
// on. The meta session runs one statement at a time, whoever asks, and is opened again when the
// last one was lost. Opening creates the meta table when missing (two first syncs at once: a
// transaction lock makes the second find the table the first created). A meta table from
// before sources were recorded gains the column when the user may change it (its owner); for a
// user who may only read and write its rows the sync goes on without recording sources, and
// says what the owner should run. Opened read-only, nothing is created or changed: a database
// never synced to reads as no rows. A run's meta row is written by the apply, on the table's
// own session, in the transaction that applies its rows (see postgresApply.ts).

import { isDqError } from '../client/errors';
import type { Logger } from '../core/logger';
import { metaRowValues } from './metaRow';
import type { PostgresEndpoint, PostgresQuery, PostgresSession } from './postgresConnection';
import {
  ADD_SOURCE_COLUMN,
  ADOPT_SOURCE,
  CREATE_META_TABLE,
  grantName,
  isoFromUtcText,
  META_COLUMNS,
  META_DDL_LOCK,
  META_SCHEMA,
  META_TABLE,
  selectMetaRows,
  upsertMetaRow,
} from './postgresSql';
import type { ApplyPlan, SyncedTable, SyncState } from './syncTarget';
import { SerialQueue } from '../core/serialQueue';

interface MetaRow {
  namespace: string;
  table: string;
  point: string;
  schema_version: number;
  schema: SyncState['schema'];
  row_count: string;
  ran_at: string;
  source: string | null;
}

/** One table's meta row; parameters: namespace, table. */
const WHERE_TABLE = `WHERE namespace = $1 AND "table" = $2`;
/** SQLSTATE of a statement the user lacks the privilege for (here: ALTER TABLE by one who does not own it) */
const INSUFFICIENT_PRIVILEGE = '42501';
const READING = 'reading the meta table';

function stateOf(row: MetaRow): SyncState {
  return {
    namespace: row.namespace,
    table: row.table,
    point: isoFromUtcText(row.point),
    schemaVersion: row.schema_version,
    schema: row.schema,
    rows: Number(row.row_count),
    ranAt: isoFromUtcText(row.ran_at),
    ...(row.source === null ? {} : { source: row.source }),
  };
}

export class PostgresMetaTable {
  /**
   * whether the meta table has the column source: false for one from before sources were
   * recorded that this user may not change, whose rows are then read and written without it
   */
  private recordsSources = true;
  private main?: PostgresSession;
  private readonly queue = new SerialQueue();

  constructor(
    private readonly endpoint: PostgresEndpoint,
    private readonly logger: Logger,
    private readonly readOnly: boolean,
  ) {}

  /** Connects the meta session; creates the meta table when missing, or adds the column source to an older one. */
  open(): Promise<void> {
    return this.onSession('connecting', async (session) => {
      if (this.readOnly) return; // connected: what is there is read when asked
      const columns = await this.columns(session);
      this.recordsSources = true;
      if (columns.size === 0) {
        const privilege =
          `The meta table ${META_TABLE} is made in the schema ${META_SCHEMA}, where PostgreSQL 15 and later let only its owner create by default: ` +
          `GRANT CREATE ON SCHEMA ${META_SCHEMA} TO ${grantName(session.client.user, '<user>')}; (or have a user who may create there run the first sync).`;
        await this.endpoint.inShortTransaction(session, 'creating the meta table', [[META_DDL_LOCK, [META_TABLE]], [CREATE_META_TABLE]], privilege);
        this.logger.debug(`postgres: ${this.endpoint.label}: created the meta table ${META_TABLE}`);
      } else if (!columns.has('source')) {
        // a meta table from before sources were recorded: its rows are adopted by their next sync
        await this.addSourceColumn(session);
      }
    });
  }

  async read(namespace: string, table: string): Promise<SyncState | undefined> {
    const rows = await this.rows(WHERE_TABLE, [namespace, table]);
    return rows[0] ? stateOf(rows[0]) : undefined;
  }

  async list(): Promise<SyncState[]> {
    return (await this.rows('ORDER BY namespace, "table"')).map(stateOf);
  }

  syncedTables(): Promise<SyncedTable[]> {
    return this.onSession(READING, async (session) => {
      if (this.readOnly && (await this.columns(session)).size === 0) return [];
      const { rows } = await this.endpoint.run<SyncedTable>(session, READING, `SELECT namespace, "table" FROM ${META_TABLE}`);
      return rows.map((r) => ({ namespace: r.namespace, table: r.table }));
    });
  }

  async adoptSource(namespace: string, table: string, source: string, replacing?: string): Promise<void> {
    if (this.readOnly || !this.recordsSources) return;
    const doing = 'recording the source in the meta table';
    await this.onSession(doing, (session) => this.endpoint.run(session, doing, ADOPT_SOURCE, [namespace, table, source, replacing ?? null]));
  }

  /** The table's meta row as an apply's session sees it, in its transaction (failures are the apply's). */
  async readInApply(session: PostgresSession, namespace: string, table: string): Promise<SyncState | undefined> {
    const { rows } = await session.client.query<MetaRow>(`${selectMetaRows(this.recordsSources)} ${WHERE_TABLE}`, [namespace, table]);
    return rows[0] ? stateOf(rows[0]) : undefined;
  }

  /** Writes the run's meta row in the apply's transaction, so it commits with the rows. */
  async writeInApply(q: PostgresQuery, plan: ApplyPlan, rows: number): Promise<void> {
    await q(upsertMetaRow(this.recordsSources), metaRowValues(plan, rows, this.recordsSources));
  }

  /** Runs work on the meta session (opened again when the last one was lost), one at a time. */
  onSession<T>(doing: string, work: (session: PostgresSession) => Promise<T>): Promise<T> {
    return this.queue.run(async () => work(await this.session(doing)));
  }

  /** Waits for the statements under way, then closes the meta session. */
  async close(): Promise<void> {
    await this.queue.idle();
    await this.main?.close();
    this.main = undefined;
  }

  /**
   * Adds the column source to a meta table from before sources were recorded. Only its owner
   * may: a user granted no more than reading and writing its rows syncs as before, without
   * recording sources, and is told what the owner should run.
   */
  private async addSourceColumn(session: PostgresSession): Promise<void> {
    const alter = `ALTER TABLE ${META_TABLE} ADD COLUMN source text;`;
    try {
      await this.endpoint.inShortTransaction(session, 'adding the column source to the meta table', [[META_DDL_LOCK, [META_TABLE]], [ADD_SOURCE_COLUMN]]);
      this.logger.debug(`postgres: ${this.endpoint.label}: added the column source to the meta table ${META_TABLE}`);
    } catch (err) {
      if (!isDqError(err) || err.details?.code !== INSUFFICIENT_PRIVILEGE) throw err;
      this.recordsSources = false;
      const said = err.cause instanceof Error ? err.cause.message : err.message;
      this.logger.warn(
        `the meta table ${META_TABLE} in PostgreSQL at ${this.endpoint.label} has no column source, and only its owner may add it (the server said: ${said}). ` +
          `Syncing without recording which service each table came from, so changes from another service or other credentials are not refused. ` +
          `Have the owner of ${META_TABLE} run: ${alter}`,
      );
    }
  }

  /** The meta table's columns by name; none when it is missing. */
  private async columns(session: PostgresSession): Promise<Set<string>> {
    const { rows } = await this.endpoint.run<{ name: string }>(session, READING, META_COLUMNS);
    return new Set(rows.map((r) => r.name));
  }

  /** Meta rows (`rest` is the WHERE or ORDER BY). Read-only, a missing meta table is no rows; an old one unchanged has no sources. */
  private rows(rest: string, params?: unknown[]): Promise<MetaRow[]> {
    return this.onSession(READING, async (session) => {
      let hasSource = this.recordsSources;
      if (this.readOnly) {
        const columns = await this.columns(session);
        if (columns.size === 0) return [];
        hasSource = columns.has('source');
      }
      const privilege = `Let the user read the meta table: GRANT SELECT ON ${META_TABLE} TO ${grantName(session.client.user, '<user>')};`;
      return (await this.endpoint.run<MetaRow>(session, READING, `${selectMetaRows(hasSource)} ${rest}`, params, privilege)).rows;
    });
  }

  /** The meta session, opened again when the last one was lost. */
  private async session(doing: string): Promise<PostgresSession> {
    if (!this.main?.usable) {
      await this.main?.close();
      this.main = undefined;
      this.main = await this.endpoint.connect(doing);
    }
    return this.main;
  }
}
