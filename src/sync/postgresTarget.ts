// The PostgreSQL sync target (`postgresql://...`): one schema per namespace, one table per
// service table with its key columns as primary key, and the meta table
// `public.dq_sync_state`. Its parts: the connection and its sessions (postgresConnection.ts),
// the meta table and its session (postgresMetaTable.ts), the table locks, one session per
// table kept alive while the job runs (postgresTableLock.ts), and the apply, one transaction
// per table and run with the meta row in it (postgresApply.ts: snapshot and changes apart).
// Opened read-only (sync status), the target creates and changes nothing: a database never
// synced to reads as no tables.

import { DqError } from '../client/errors';
import { systemClock, type Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { applyToPostgres } from './postgresApply';
import { PostgresEndpoint } from './postgresConnection';
import { postgresCancelled } from './postgresErrors';
import { PostgresMetaTable } from './postgresMetaTable';
import { keyColumns, lockName, NAME_BYTES, postgresName, qualifiedName } from './postgresSql';
import { PostgresTableLocks } from './postgresTableLock';
import { MIN_KEEP_ALIVE_MS } from './serverTableLock';
import type { ApplyPlan, ApplyResult, SyncedTable, SyncState, SyncTarget } from './syncTarget';
import { DEFAULT_LOCK_WAIT_MS, type ReleaseLock } from './targetLock';
import { checkColumnNames } from './targetNames';

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

const DEFAULT_KEEP_ALIVE_MS = 30_000;

export class PostgresTarget implements SyncTarget {
  readonly label: string;
  readonly namingRule = `PostgreSQL keeps only the first ${NAME_BYTES} bytes of a name`;
  /** each load decompresses every file to its end, and a file that is not whole gzip fails it */
  readonly checksGzip = true;
  private readonly endpoint: PostgresEndpoint;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly readOnly: boolean;
  private readonly meta: PostgresMetaTable;
  private readonly locks: PostgresTableLocks;

  constructor(options: PostgresTargetOptions) {
    this.endpoint = new PostgresEndpoint({ url: options.url, logger: options.logger, env: options.env, homeDir: options.homeDir });
    this.label = this.endpoint.label;
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;
    this.readOnly = options.readOnly === true;
    this.meta = new PostgresMetaTable(this.endpoint, this.logger, this.readOnly);
    this.locks = new PostgresTableLocks({
      endpoint: this.endpoint,
      logger: this.logger,
      clock: this.clock,
      lockWaitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
      keepAliveMs: Math.max(MIN_KEEP_ALIVE_MS, options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS),
    });
  }

  nameKey(name: string): string {
    return postgresName(name);
  }

  async open(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw postgresCancelled('connecting');
    await this.meta.open();
  }

  lockTable(namespace: string, table: string, signal?: AbortSignal): Promise<ReleaseLock> {
    return this.locks.take(namespace, table, signal);
  }

  readState(namespace: string, table: string): Promise<SyncState | undefined> {
    return this.meta.read(namespace, table);
  }

  listStates(): Promise<SyncState[]> {
    return this.meta.list();
  }

  syncedTables(): Promise<SyncedTable[]> {
    return this.meta.syncedTables();
  }

  hasTable(namespace: string, table: string): Promise<boolean> {
    const doing = `looking for the table ${lockName(namespace, table)}`;
    return this.meta.onSession(doing, async (session) => {
      const { rows } = await this.endpoint.run<{ found: boolean }>(session, doing, `SELECT to_regclass($1) IS NOT NULL AS found`, [qualifiedName(namespace, table)]);
      return rows[0]?.found === true;
    });
  }

  adoptSource(namespace: string, table: string, source: string, replacing?: string): Promise<void> {
    return this.meta.adoptSource(namespace, table, source, replacing);
  }

  async apply(plan: ApplyPlan): Promise<ApplyResult> {
    const { table } = plan;
    if (this.readOnly) throw new DqError('usage', `PostgreSQL at ${this.label} was opened only to read what was synced.`);
    if (keyColumns(table).length === 0) throw new DqError('usage', `${lockName(table.namespace, table.table)} has no key columns, so its rows cannot be merged.`);
    checkColumnNames(this, table);
    return applyToPostgres({ endpoint: this.endpoint, locks: this.locks, meta: this.meta, logger: this.logger, clock: this.clock }, plan);
  }

  async close(): Promise<void> {
    await this.locks.releaseAll();
    await this.meta.close();
  }
}
