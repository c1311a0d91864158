// The PostgreSQL sync target (`postgresql://...`): one schema per namespace, one table per
// service table with its key columns as primary key, and the meta table
// `public.dq_sync_state`. A run streams the job's gzip JSONL objects into a temporary
// staging table with COPY, then replaces the table (snapshot) or merges the last record of
// each key (`INSERT ... ON CONFLICT`, `DELETE ... USING`), and upserts the meta row, all in
// one transaction: a failure, an abort or a lost connection leaves the last complete run.
// Each table is applied on its own session, which holds the table's advisory lock, so two
// syncs (cron, editor) never apply the same table at once and tables can run side by side.
// That session holds the lock from before the job is created until the apply ends, so while
// the job runs and its files download it runs a light statement now and then: a server with
// idle_session_timeout, a pooler or a firewall would otherwise close it as idle, and the lock
// with it. (Taking the lock again at apply time would leave a gap in which another sync could
// apply the table; keeping the one lock leaves none.) Opened read-only (sync status), the
// target creates and changes nothing: a database never synced to reads as no tables. A meta
// table from before sources were recorded gains the column when the user may change it (its
// owner); for a user who may only read and write its rows the sync goes on without recording
// sources, and says what the owner should run.

import { DqError, isDqError } from '../client/errors';
import { systemClock, type Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { PostgresEndpoint, type PostgresSession } from './postgresConnection';
import { copyFileToStage } from './postgresCopy';
import { IDLE_SESSION_TIMED_OUT, maskPassword, postgresError } from './postgresErrors';
import {
  ADD_SOURCE_COLUMN,
  addColumn,
  ADOPT_SOURCE,
  catalogType,
  CREATE_META_TABLE,
  CREATE_STAGE,
  createLastTable,
  createTable,
  deleteChanges,
  insertSnapshot,
  isoFromUtcText,
  keyColumns,
  LAST_TABLE,
  LOCK_HOLDER,
  LOCK_KEYS,
  lockKeyName,
  lockName,
  META_COLUMNS,
  META_DDL_LOCK,
  META_SCHEMA,
  META_TABLE,
  NAME_BYTES,
  postgresName,
  primaryKeyClause,
  qualifiedName,
  quoteIdent,
  selectMetaRows,
  stageNeedsMerge,
  TABLE_SHAPE,
  upsertChanges,
  upsertMetaRow,
} from './postgresSql';
import { targetColumnsOf } from './syncColumns';
import { checkColumnNames } from './targetNames';
import type { ApplyPlan, ApplyResult, SyncedTable, SyncState, SyncTarget, TargetTable } from './syncTarget';

export interface PostgresTargetOptions {
  /** `postgresql://user@host:port/database`; a password here works but is best kept elsewhere */
  url: string;
  logger: Logger;
  clock?: Clock;
  /** how long `lockTable` waits for another sync to finish the table (default 30 s) */
  lockWaitMs?: number;
  /**
   * how often a session holding a table's lock runs a light statement while the job runs and
   * its files download (default 30 s; a third of the server's idle_session_timeout when that
   * is shorter), so that nothing closes it as idle
   */
  keepAliveMs?: number;
  /** where PGPASSWORD, PGPASSFILE and PGSSLMODE are read (process.env by default) */
  env?: NodeJS.ProcessEnv;
  /** where ~/.pgpass is looked for (the user's home by default) */
  homeDir?: string;
  /** only reads the meta table (dq sync-status): creates and changes nothing */
  readOnly?: boolean;
}

interface TableLock {
  session: PostgresSession;
  release: () => Promise<void>;
  /** stops the keep-alive statements, so the apply has the session to itself */
  quiet: () => Promise<void>;
  /** what the driver reported when the connection was lost */
  lostWith?: Error & { code?: string };
}

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

const DEFAULT_LOCK_WAIT_MS = 30_000;
const DEFAULT_KEEP_ALIVE_MS = 30_000;
/** statements are never sent more often than this, whatever the server's idle timeout */
const MIN_KEEP_ALIVE_MS = 100;
/** the server's idle_session_timeout for this session, in ms (PostgreSQL 14 and later; 0 = off) */
const IDLE_SESSION_TIMEOUT = `SELECT setting FROM pg_settings WHERE name = 'idle_session_timeout' AND unit = 'ms'`;
const KEEP_ALIVE = 'SELECT 1';

/** One table's meta row; parameters: namespace, table. */
const WHERE_TABLE = `WHERE namespace = $1 AND "table" = $2`;
/** SQLSTATE of a statement the user lacks the privilege for (here: ALTER TABLE by one who does not own it) */
const INSUFFICIENT_PRIVILEGE = '42501';

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

/** `"etl"`: a name as a GRANT names it, from what the session says (a placeholder when unknown). */
function grantName(name: string | undefined, placeholder: string): string {
  return name ? quoteIdent(name) : placeholder;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export class PostgresTarget implements SyncTarget {
  readonly label: string;
  readonly namingRule = `PostgreSQL keeps only the first ${NAME_BYTES} bytes of a name`;
  private readonly endpoint: PostgresEndpoint;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly lockWaitMs: number;
  private readonly keepAliveMs: number;
  private readonly readOnly: boolean;
  /**
   * whether the meta table has the column source: false for one from before sources were
   * recorded that this user may not change, whose rows are then read and written without it
   */
  private recordsSources = true;
  private main?: PostgresSession;
  /** the meta session runs one statement at a time, whoever asks */
  private mainQueue: Promise<unknown> = Promise.resolve();
  private readonly locks = new Map<string, TableLock>();

  constructor(options: PostgresTargetOptions) {
    this.endpoint = new PostgresEndpoint({ url: options.url, logger: options.logger, env: options.env, homeDir: options.homeDir });
    this.label = this.endpoint.label;
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;
    this.lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
    this.keepAliveMs = Math.max(MIN_KEEP_ALIVE_MS, options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS);
    this.readOnly = options.readOnly === true;
  }

  nameKey(name: string): string {
    return postgresName(name);
  }

  async open(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw this.cancelled('connecting');
    await this.onMain('connecting', async (session) => {
      if (this.readOnly) return; // connected: what is there is read when asked
      const columns = await this.metaColumns(session);
      this.recordsSources = true;
      if (columns.size === 0) {
        // two first syncs at once: the lock makes the second find the table the first created
        const privilege =
          `The meta table ${META_TABLE} is made in the schema ${META_SCHEMA}, where PostgreSQL 15 and later let only its owner create by default: ` +
          `GRANT CREATE ON SCHEMA ${META_SCHEMA} TO ${grantName(session.client.user, '<user>')}; (or have a user who may create there run the first sync).`;
        await this.inShortTransaction(session, 'creating the meta table', [[META_DDL_LOCK, [META_TABLE]], [CREATE_META_TABLE]], privilege);
        this.logger.debug(`postgres: ${this.label}: created the meta table ${META_TABLE}`);
      } else if (!columns.has('source')) {
        // a meta table from before sources were recorded: its rows are adopted by their next sync
        await this.addSourceColumn(session);
      }
    });
  }

  /**
   * Adds the column source to a meta table from before sources were recorded. Only its owner
   * may: a user granted no more than reading and writing its rows syncs as before, without
   * recording sources, and is told what the owner should run.
   */
  private async addSourceColumn(session: PostgresSession): Promise<void> {
    const alter = `ALTER TABLE ${META_TABLE} ADD COLUMN source text;`;
    try {
      await this.inShortTransaction(session, 'adding the column source to the meta table', [[META_DDL_LOCK, [META_TABLE]], [ADD_SOURCE_COLUMN]]);
      this.logger.debug(`postgres: ${this.label}: added the column source to the meta table ${META_TABLE}`);
    } catch (err) {
      if (!isDqError(err) || err.details?.code !== INSUFFICIENT_PRIVILEGE) throw err;
      this.recordsSources = false;
      const said = err.cause instanceof Error ? err.cause.message : err.message;
      this.logger.warn(
        `the meta table ${META_TABLE} in PostgreSQL at ${this.label} has no column source, and only its owner may add it (the server said: ${said}). ` +
          `Syncing without recording which service each table came from, so changes from another service or other credentials are not refused. ` +
          `Have the owner of ${META_TABLE} run: ${alter}`,
      );
    }
  }

  /** The meta table's columns by name; none when it is missing. */
  private async metaColumns(session: PostgresSession): Promise<Set<string>> {
    const { rows } = await this.run<{ name: string }>(session, 'reading the meta table', META_COLUMNS);
    return new Set(rows.map((r) => r.name));
  }

  async lockTable(namespace: string, table: string, signal?: AbortSignal): Promise<() => Promise<void>> {
    const name = lockName(namespace, table);
    const key = lockKeyName(namespace, table);
    if (this.locks.has(key)) throw new DqError('usage', `${name} is already being synced by this run.`);
    const session = await this.endpoint.connect(`locking ${name}`);
    const lock: TableLock = { session, release: async () => undefined, quiet: async () => undefined };
    // the first error the driver reports is why the connection was lost (the session's own listener only logs it)
    session.client.on('error', (err: Error & { code?: string }) => (lock.lostWith ??= err));
    const started = this.clock.now();
    let pause = 200;
    let keepAliveMs: number;
    try {
      keepAliveMs = await this.keepAliveInterval(session);
      let told = false;
      for (;;) {
        signal?.throwIfAborted();
        const { rows } = await session.client.query<{ got: boolean }>(`SELECT pg_try_advisory_lock(${LOCK_KEYS}) AS got`, [key]);
        if (rows[0]?.got) break;
        const waited = this.clock.now() - started;
        if (waited >= this.lockWaitMs) throw await this.lockHeld(session, name, key, waited);
        if (!told) {
          told = true;
          this.logger.warn(`waiting up to ${seconds(this.lockWaitMs - waited)} for ${name} in PostgreSQL at ${this.label}: another sync${await this.holderOf(session, key)} is applying it.`);
        }
        // the pause between tries stays under the server's idle timeout too
        await this.clock.sleep(Math.min(pause, keepAliveMs, this.lockWaitMs - waited), signal);
        pause = Math.min(pause * 2, 2_000);
      }
    } catch (err) {
      await session.close();
      throw signal?.aborted ? this.cancelled(`waiting for the lock of ${name}`) : postgresError(err, this.endpoint.errorContext(`locking ${name}`));
    }
    const stopKeepAlive = new AbortController();
    const keepingAlive = this.keepAlive(session, name, keepAliveMs, stopKeepAlive.signal);
    lock.quiet = async () => {
      stopKeepAlive.abort();
      await keepingAlive;
    };
    let released = false;
    lock.release = async (): Promise<void> => {
      if (released) return;
      released = true;
      this.locks.delete(key);
      await lock.quiet();
      try {
        if (session.usable) await session.client.query(`SELECT pg_advisory_unlock(${LOCK_KEYS})`, [key]);
      } catch (err) {
        this.logger.debug(`postgres: unlocking ${name}: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        // the session's end releases the lock in any case
        await session.close();
      }
    };
    this.locks.set(key, lock);
    this.logger.debug(`postgres: ${this.label}: locked ${name} (a statement every ${seconds(keepAliveMs)} keeps the lock's session alive)`);
    return lock.release;
  }

  /** How often the lock's session runs a statement: the configured interval, or less for the server's idle_session_timeout. */
  private async keepAliveInterval(session: PostgresSession): Promise<number> {
    const { rows } = await session.client.query<{ setting: string }>(IDLE_SESSION_TIMEOUT);
    const idleMs = Number(rows[0]?.setting);
    const every = Number.isFinite(idleMs) && idleMs > 0 ? Math.min(this.keepAliveMs, idleMs / 3) : this.keepAliveMs;
    return Math.max(MIN_KEEP_ALIVE_MS, Math.floor(every));
  }

  /** Runs a light statement on the lock's session every `everyMs` until stopped or the session is lost. */
  private async keepAlive(session: PostgresSession, name: string, everyMs: number, stop: AbortSignal): Promise<void> {
    for (;;) {
      try {
        await this.clock.sleep(everyMs, stop);
      } catch {
        return; // stopped
      }
      if (stop.aborted || !session.usable) return;
      try {
        await session.client.query(KEEP_ALIVE);
      } catch (err) {
        this.logger.debug(`postgres: keeping the session that holds the lock of ${name} alive: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
    }
  }

  async readState(namespace: string, table: string): Promise<SyncState | undefined> {
    const rows = await this.readMeta(WHERE_TABLE, [namespace, table]);
    return rows[0] ? stateOf(rows[0]) : undefined;
  }

  async listStates(): Promise<SyncState[]> {
    return (await this.readMeta('ORDER BY namespace, "table"')).map(stateOf);
  }

  async syncedTables(): Promise<SyncedTable[]> {
    const doing = 'reading the meta table';
    return this.onMain(doing, async (session) => {
      if (this.readOnly && (await this.metaColumns(session)).size === 0) return [];
      const { rows } = await this.run<SyncedTable>(session, doing, `SELECT namespace, "table" FROM ${META_TABLE}`);
      return rows.map((r) => ({ namespace: r.namespace, table: r.table }));
    });
  }

  async hasTable(namespace: string, table: string): Promise<boolean> {
    const doing = `looking for the table ${lockName(namespace, table)}`;
    return this.onMain(doing, async (session) => {
      const { rows } = await this.run<{ found: boolean }>(session, doing, `SELECT to_regclass($1) IS NOT NULL AS found`, [qualifiedName(namespace, table)]);
      return rows[0]?.found === true;
    });
  }

  async adoptSource(namespace: string, table: string, source: string, replacing?: string): Promise<void> {
    if (this.readOnly || !this.recordsSources) return;
    const doing = 'recording the source in the meta table';
    await this.onMain(doing, (session) => this.run(session, doing, ADOPT_SOURCE, [namespace, table, source, replacing ?? null]));
  }

  /** Meta rows (`rest` is the WHERE or ORDER BY). Read-only, a missing meta table is no rows; an old one unchanged has no sources. */
  private readMeta(rest: string, params?: unknown[]): Promise<MetaRow[]> {
    const doing = 'reading the meta table';
    return this.onMain(doing, async (session) => {
      let hasSource = this.recordsSources;
      if (this.readOnly) {
        const columns = await this.metaColumns(session);
        if (columns.size === 0) return [];
        hasSource = columns.has('source');
      }
      const privilege = `Let the user read the meta table: GRANT SELECT ON ${META_TABLE} TO ${grantName(session.client.user, '<user>')};`;
      return (await this.run<MetaRow>(session, doing, `${selectMetaRows(hasSource)} ${rest}`, params, privilege)).rows;
    });
  }

  /** Runs work on the meta session (opened again when the last one was lost), one at a time. */
  private onMain<T>(doing: string, work: (session: PostgresSession) => Promise<T>): Promise<T> {
    const done = this.mainQueue.then(async () => work(await this.mainSession(doing)));
    this.mainQueue = done.catch(() => undefined);
    return done;
  }

  async apply(plan: ApplyPlan): Promise<ApplyResult> {
    const { table, signal } = plan;
    const name = lockName(table.namespace, table.table);
    if (this.readOnly) throw new DqError('usage', `PostgreSQL at ${this.label} was opened only to read what was synced.`);
    if (keyColumns(table).length === 0) throw new DqError('usage', `${name} has no key columns, so its rows cannot be merged.`);
    checkColumnNames(this, table);
    const key = lockKeyName(table.namespace, table.table);
    let lock = this.locks.get(key);
    let ownRelease: (() => Promise<void>) | undefined;
    if (!lock) {
      ownRelease = await this.lockTable(table.namespace, table.table, signal);
      lock = this.locks.get(key)!;
    }
    const { session } = lock;
    await lock.quiet();
    const doing = `applying the ${plan.kind === 'snapshot' ? 'snapshot' : 'changes'} of ${name}`;
    const started = this.clock.now();
    let cancelling: Promise<boolean> | undefined;
    const onAbort = (): void => {
      if (session.pid !== undefined) cancelling ??= this.endpoint.cancel(session.pid);
    };
    let inTransaction = false;
    /** the lock's session answered its first statement of the apply: it outlived the wait */
    let reached = false;
    try {
      if (!session.usable) throw this.lockLost(name, lock);
      signal?.addEventListener('abort', onAbort, { once: true });
      signal?.throwIfAborted();
      await this.ensureSchema(session, table.namespace);
      reached = true;
      const q = (sql: string, params?: unknown[]) => {
        signal?.throwIfAborted();
        return session.client.query(sql, params);
      };
      await q('BEGIN');
      inTransaction = true;
      await q(`SET LOCAL work_mem = '64MB'`);
      await q(CREATE_STAGE);
      let records = 0;
      for (const [i, file] of plan.files.entries()) {
        records += await copyFileToStage(session.client, file, name, signal);
        this.logger.debug(`postgres: ${name}: staged file ${i + 1} of ${plan.files.length} (${records} records so far)`);
      }
      let upserted: number;
      let deleted = 0;
      if (plan.kind === 'snapshot') {
        const created = await this.emptyTable(session, table, q);
        const merge = (await q(stageNeedsMerge(table))).rows[0]?.needed === true;
        upserted = (await q(insertSnapshot(table, merge))).rowCount ?? 0;
        if (created) await q(`ALTER TABLE ${qualifiedName(table.namespace, table.table)} ADD ${primaryKeyClause(table)}`);
      } else {
        const found = await q(`SELECT to_regclass($1) IS NOT NULL AS found`, [qualifiedName(table.namespace, table.table)]);
        if (!found.rows[0]?.found) {
          throw new DqError('snapshotRequired', `The table ${name} is missing from PostgreSQL at ${this.label}, so its changes have nowhere to go.`, {
            hint: 'Sync it with a fresh snapshot (--resnapshot) to create it again.',
          });
        }
        for (const column of plan.addedColumns) await q(addColumn(table, column));
        await q(createLastTable(table));
        await q(`ANALYZE ${LAST_TABLE}`);
        deleted = (await q(deleteChanges(table))).rowCount ?? 0;
        upserted = (await q(upsertChanges(table))).rowCount ?? 0;
      }
      const counted = await q(`SELECT count(*)::text AS n FROM ${qualifiedName(table.namespace, table.table)}`);
      const rows = Number(counted.rows[0].n);
      const { state } = plan;
      const meta = [table.namespace, table.table, state.point, state.schemaVersion, JSON.stringify(state.schema), rows, state.ranAt];
      await q(upsertMetaRow(this.recordsSources), this.recordsSources ? [...meta, state.source ?? null] : meta);
      await q('COMMIT');
      inTransaction = false;
      // an abort that came too late to matter: its cancel must not hit the session's next statement
      if (cancelling) await cancelling;
      this.logger.info(
        `postgres: ${name}: ${plan.kind} applied from ${records} records: ${upserted} upserted, ${deleted} deleted, ${rows} rows (${seconds(this.clock.now() - started)})`,
      );
      return { upserted, deleted, rows };
    } catch (err) {
      if (cancelling) await cancelling;
      if (inTransaction && session.usable) {
        try {
          await session.client.query('ROLLBACK');
        } catch {
          // the server rolls back when the session ends
          await session.close();
        }
      }
      const failure = signal?.aborted
        ? this.cancelled(doing, true)
        : !reached && !session.usable
          ? this.lockLost(name, lock)
          : postgresError(err, this.endpoint.errorContext(doing, true));
      this.logger.debug(`postgres: ${name}: ${failure.message}`);
      throw failure;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (ownRelease) await ownRelease();
    }
  }

  async close(): Promise<void> {
    for (const lock of [...this.locks.values()]) await lock.release();
    await this.mainQueue;
    await this.main?.close();
    this.main = undefined;
  }

  /** The session for the meta table, opened again when the last one was lost. */
  private async mainSession(doing: string): Promise<PostgresSession> {
    if (!this.main?.usable) {
      await this.main?.close();
      this.main = undefined;
      this.main = await this.endpoint.connect(doing);
    }
    return this.main;
  }

  /** Runs one statement; `privilege` is what to grant should the server deny it. */
  private async run<T extends object = Record<string, unknown>>(session: PostgresSession, doing: string, sql: string, params?: unknown[], privilege?: string) {
    try {
      return await session.client.query<T & Record<string, unknown>>(sql, params);
    } catch (err) {
      throw postgresError(err, { ...this.endpoint.errorContext(doing), privilege });
    }
  }

  /** Runs statements in a transaction of their own, committed at once; `privilege` is what to grant should the server deny it. */
  private async inShortTransaction(session: PostgresSession, doing: string, statements: [string, unknown[]?][], privilege?: string) {
    try {
      await session.client.query('BEGIN');
      const results = [];
      for (const [sql, params] of statements) results.push(await session.client.query(sql, params));
      await session.client.query('COMMIT');
      return results;
    } catch (err) {
      if (session.usable) await session.client.query('ROLLBACK').catch(() => undefined);
      throw postgresError(err, { ...this.endpoint.errorContext(doing), privilege });
    }
  }

  /**
   * The namespace's schema, created in a transaction of its own before the run's: an empty
   * schema is harmless, and holding its creation open would make other tables wait.
   */
  private async ensureSchema(session: PostgresSession, namespace: string): Promise<void> {
    const { rows } = await session.client.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [namespace]);
    if (rows.length > 0) return;
    await this.inShortTransaction(
      session,
      `creating the schema ${namespace}`,
      [
        [META_DDL_LOCK, [`schema ${namespace}`]],
        [`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(namespace)}`],
      ],
      `Each namespace gets a schema of its own: GRANT CREATE ON DATABASE ${grantName(session.client.database, '<database>')} TO ${grantName(session.client.user, '<user>')}; (or create the schema ${quoteIdent(namespace)} for the user, with it as owner).`,
    );
  }

  /**
   * Empties the table for a snapshot. A table whose key and column types still match is
   * truncated (views, grants and comments on it survive), gaining any new column; any other
   * is dropped. Returns true when the table was created anew (without its key yet: the key
   * is added after loading, which is faster than keeping it up to date row by row).
   */
  private async emptyTable(session: PostgresSession, table: TargetTable, q: (sql: string, params?: unknown[]) => Promise<unknown>): Promise<boolean> {
    const qualified = qualifiedName(table.namespace, table.table);
    const { rows } = await session.client.query<{ name: string; type: string; key_position: number }>(TABLE_SHAPE, [qualified]);
    if (rows.length > 0) {
      const existing = new Map(rows.map((r) => [r.name, r]));
      const typesMatch = table.columns.every((c) => {
        const found = existing.get(c.name);
        return found === undefined || found.type === catalogType(c.type);
      });
      const key = rows.filter((r) => r.key_position > 0).sort((a, b) => a.key_position - b.key_position).map((r) => r.name);
      const wanted = keyColumns(table).map((c) => c.name);
      if (typesMatch && key.join('\u0000') === wanted.join('\u0000')) {
        for (const column of table.columns) if (!existing.has(column.name)) await q(addColumn(table, column));
        const removed = await this.removedColumns(session, table, [...existing.keys()]);
        if (removed.length > 0) {
          this.logger.info(`postgres: ${table.namespace}.${table.table}: dropping the columns its schema no longer has: ${removed.join(', ')}`);
          for (const name of removed) await q(`ALTER TABLE ${qualified} DROP COLUMN ${quoteIdent(name)}`);
        }
        await q(`TRUNCATE ${qualified}`);
        return false;
      }
      this.logger.info(`postgres: ${table.namespace}.${table.table}: its columns or key changed; the snapshot replaces the table`);
      await q(`DROP TABLE ${qualified}`);
    }
    await q(createTable(table, false));
    return true;
  }

  /**
   * Columns of the table that the last synced schema had and the new one has not. Columns
   * the sync never made (someone's own, or a table made from a script before its first sync)
   * are left alone.
   */
  private async removedColumns(session: PostgresSession, table: TargetTable, present: readonly string[]): Promise<string[]> {
    const { rows } = await session.client.query<MetaRow>(`${selectMetaRows(this.recordsSources)} ${WHERE_TABLE}`, [table.namespace, table.table]);
    const last = rows[0];
    if (!last) return [];
    let before: Set<string>;
    try {
      before = new Set(targetColumnsOf({ version: last.schema_version, schema: last.schema }).map((c) => c.name));
    } catch {
      // a stored schema that no longer reads as columns names nothing to drop
      return [];
    }
    const now = new Set(table.columns.map((c) => c.name));
    return present.filter((name) => before.has(name) && !now.has(name));
  }

  /** Who holds the lock of a table, as ` (application, server process N from host)`; empty when unknown. */
  private async holderOf(session: PostgresSession, key: string): Promise<string> {
    try {
      const { rows } = await session.client.query<{ pid: number; application_name: string | null; client_addr: string | null }>(LOCK_HOLDER, [key]);
      const row = rows[0];
      if (!row) return '';
      const who = row.application_name ? `${row.application_name}, ` : '';
      const from = row.client_addr ? ` from ${row.client_addr}` : '';
      return ` (${who}server process ${row.pid}${from})`;
    } catch {
      // who holds it is a courtesy; the message stands without it
      return '';
    }
  }

  private async lockHeld(session: PostgresSession, name: string, key: string, waited: number): Promise<DqError> {
    const holder = await this.holderOf(session, key);
    return new DqError('io', `Another sync${holder} is applying ${name} in PostgreSQL at ${this.label}; waited ${seconds(waited)}.`, {
      hint: 'Run the sync again when it has finished.',
      operation: 'postgres',
    });
  }

  /** The lock's session was gone when the apply came to use it: what most likely closed it. */
  private lockLost(name: string, lock: TableLock): DqError {
    const lost = lock.lostWith;
    const said = lost?.message ? ` (the server said: ${maskPassword(lost.message, this.endpoint.errorContext('').password)})` : '';
    const why =
      lost?.code === IDLE_SESSION_TIMED_OUT
        ? `the server closed it as idle (idle_session_timeout)${said}`
        : `most likely something closed it as idle: the server (idle_session_timeout), a connection pooler or a firewall${said}`;
    return new DqError('network', `The connection that held the lock of ${name} in PostgreSQL at ${this.label} was lost while the data was fetched: ${why}. The table keeps its last complete run.`, {
      hint: 'Run the sync again. If it keeps happening, ask whoever runs the database to let idle connections live longer (idle_session_timeout, or the idle timeout of a pooler or firewall in between).',
      operation: 'postgres',
    });
  }

  private cancelled(doing: string, applying = false): DqError {
    return new DqError('cancelled', `Stopped while ${doing}${applying ? '; the table keeps its last complete run' : ''}.`);
  }
}
