// The embedded sync target: a DuckDB database file with one schema per namespace and the meta
// table `main.dq_sync_state`. Its parts: the file's instance, shared in this process, whose
// writes take turns (duckdbDatabase.ts), the locks, the file between processes and each table
// within this one (duckdbTableLock.ts), the meta table (duckdbMetaTable.ts), and the apply, one
// transaction per table and run with the meta row in it (duckdbApply.ts). Opened read-only
// (sync status), the target creates nothing: a file never synced to reads as no tables.

import * as path from 'node:path';
import { DqError, isDqError } from '../client/errors';
import { systemClock, type Clock } from '../core/clock';
import { nullLogger, type Logger } from '../core/logger';
import { applyToDuckdb, tableExists } from './duckdbApply';
import { closeDatabase, inTurn, openDatabase, withConnection, type OpenDatabase } from './duckdbDatabase';
import { adoptSource, readStates, readSyncedTables } from './duckdbMetaTable';
import { lockDuckdbTable, type DuckdbLockOptions } from './duckdbTableLock';
import type { ApplyPlan, ApplyResult, SyncedTable, SyncState, SyncTarget } from './syncTarget';
import { DEFAULT_LOCK_WAIT_MS, type ReleaseLock } from './targetLock';
import { checkColumnNames, tableKey } from './targetNames';

export interface DuckdbTargetOptions {
  /** the database file; its folder is created when missing */
  path: string;
  logger?: Logger;
  clock?: Clock;
  /** how long to wait for a file or table another sync holds (default 30 s) */
  lockWaitMs?: number;
  /** only read (dq sync-status): never creates the file, and lets other readers in */
  readOnly?: boolean;
}

const SYNC_STATE = 'the sync state';

export class DuckdbTarget implements SyncTarget {
  readonly label: string;
  readonly namingRule = 'DuckDB does not tell upper from lower case apart in names';
  private readonly file: string;
  private readonly logger: Logger;
  private readonly locking: DuckdbLockOptions;
  private readonly readOnly: boolean;
  private database?: OpenDatabase;
  /** opened read-only where there is no file: nothing synced yet */
  private missing = false;

  constructor(options: DuckdbTargetOptions) {
    this.file = path.resolve(options.path);
    this.label = this.file;
    this.logger = options.logger ?? nullLogger;
    this.locking = { clock: options.clock ?? systemClock, logger: this.logger, lockWaitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS };
    this.readOnly = options.readOnly === true;
  }

  async open(signal?: AbortSignal): Promise<void> {
    if (this.database || this.missing) return;
    try {
      this.database = await openDatabase(this.file, { ...this.locking, readOnly: this.readOnly }, signal);
    } catch (err) {
      if (!this.readOnly || !isDqError(err) || err.kind !== 'notFound') throw err;
      this.missing = true; // nothing synced yet: an empty list, and no file created
    }
  }

  /** DuckDB folds ASCII letters only: `T1` is `t1`, `É` stays apart from `é`. */
  nameKey(name: string): string {
    return name.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
  }

  lockTable(namespace: string, table: string, signal?: AbortSignal): Promise<ReleaseLock> {
    const key = `${this.file}\u0000${tableKey(this, namespace, table)}`;
    return lockDuckdbTable(this.file, key, `${namespace}.${table}`, this.locking, signal);
  }

  async readState(namespace: string, table: string): Promise<SyncState | undefined> {
    const states = await this.states('WHERE namespace = $1 AND "table" = $2', [namespace, table]);
    return states[0];
  }

  listStates(): Promise<SyncState[]> {
    return this.states('ORDER BY namespace, "table"', []);
  }

  async syncedTables(): Promise<SyncedTable[]> {
    if (this.missing) return [];
    const database = this.opened();
    return withConnection(database, this.file, SYNC_STATE, (conn) => readSyncedTables(conn, database.catalog));
  }

  async hasTable(namespace: string, table: string): Promise<boolean> {
    if (this.missing) return false;
    return withConnection(this.opened(), this.file, `${namespace}.${table}`, (conn) => tableExists(conn, namespace, table));
  }

  adoptSource(namespace: string, table: string, source: string, replacing?: string): Promise<void> {
    const database = this.opened();
    if (database.readOnly) return Promise.resolve();
    // in turn with the applies, which write the meta table too
    return inTurn(database, () => withConnection(database, this.file, SYNC_STATE, (conn) => adoptSource(conn, database.catalog, namespace, table, source, replacing)));
  }

  apply(plan: ApplyPlan): Promise<ApplyResult> {
    checkColumnNames(this, plan.table);
    const database = this.opened();
    if (database.readOnly) throw new DqError('usage', `The sync database ${this.file} was opened read-only.`);
    return inTurn(database, () => applyToDuckdb(database, this.file, this.logger, plan));
  }

  async close(): Promise<void> {
    const database = this.database;
    if (!database) return;
    this.database = undefined;
    await closeDatabase(this.file, database);
  }

  private async states(rest: string, values: string[]): Promise<SyncState[]> {
    if (this.missing) return [];
    const database = this.opened();
    return withConnection(database, this.file, SYNC_STATE, (conn) => readStates(conn, database.catalog, rest, values));
  }

  private opened(): OpenDatabase {
    if (!this.database) throw new DqError('usage', `The sync database ${this.file} is not open.`, { hint: 'Call open() first.' });
    return this.database;
  }
}
