// The MySQL and MariaDB sync target (`mysql://user@host:3306/database`, or `mariadb://`): MySQL 8
// and MariaDB 10.11 and later, through mysql2. Every table lives in the URL's one database as
// `<namespace>__<table>` (`canvas__users`), with its key columns as primary key, beside the meta
// table `dq_sync_state` (the columns the other targets' meta tables have). Its parts: the
// connection and its sessions (mysqlConnection.ts), the meta table (mysqlMetaTable.ts), the table
// locks, one user-level lock and session per table (mysqlTableLock.ts), and the apply
// (mysqlApply.ts): a snapshot loaded into a new table and swapped in with its meta row in one
// RENAME (mysqlSnapshot.ts), a change set in one transaction with its meta row
// (mysqlChanges.ts), both streaming the result files in by LOAD DATA LOCAL INFILE, or batched
// INSERTs on a server that forbids it (mysqlLoad.ts, said once as a warning). Names MySQL cannot
// take (longer than 64 characters, ...) are refused before any job, naming the table. Opened
// read-only (sync status), the target creates and changes nothing: a database never synced to
// reads as no tables.

import { DqError } from '../client/errors';
import { systemClock, type Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { applyToMysql } from './mysqlApply';
import { MysqlEndpoint } from './mysqlConnection';
import { mysqlCancelled } from './mysqlErrors';
import type { LoadMode } from './mysqlLoad';
import { MysqlMetaTable } from './mysqlMetaTable';
import { tableExists } from './mysqlSnapshot';
import { keyColumns, mysqlNameKey, mysqlNameProblem, NAMING_RULE, shownTable, tableName } from './mysqlSql';
import { MysqlTableLocks } from './mysqlTableLock';
import { MIN_KEEP_ALIVE_MS } from './serverTableLock';
import type { ApplyPlan, ApplyResult, SyncedTable, SyncState, SyncTarget } from './syncTarget';
import { DEFAULT_LOCK_WAIT_MS, type ReleaseLock } from './targetLock';
import { checkColumnNames, shownName } from './targetNames';

export interface MysqlTargetOptions {
  /** `mysql://user@host:3306/database`; a password here works but is best kept elsewhere */
  url: string;
  logger: Logger;
  clock?: Clock;
  /** how long `lockTable` waits for another sync to finish the table (default 30 s) */
  lockWaitMs?: number;
  /** how often a session holding a table's lock runs a light statement while the job runs (default 30 s) */
  keepAliveMs?: number;
  /** where MYSQL_PWD and HOME are read (process.env by default) */
  env?: NodeJS.ProcessEnv;
  /** where ~/.my.cnf is looked for (the user's home by default) */
  homeDir?: string;
  /** only reads the meta table (dq sync-status): creates and changes nothing */
  readOnly?: boolean;
}

const DEFAULT_KEEP_ALIVE_MS = 30_000;

export class MysqlTarget implements SyncTarget {
  readonly label: string;
  readonly namingRule = NAMING_RULE;
  private readonly endpoint: MysqlEndpoint;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly readOnly: boolean;
  private readonly meta: MysqlMetaTable;
  private readonly locks: MysqlTableLocks;
  private readonly mode: LoadMode;

  constructor(options: MysqlTargetOptions) {
    this.endpoint = new MysqlEndpoint({ url: options.url, logger: options.logger, env: options.env, homeDir: options.homeDir });
    this.label = this.endpoint.label;
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;
    this.readOnly = options.readOnly === true;
    const lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
    this.meta = new MysqlMetaTable(this.endpoint, this.readOnly, lockWaitMs);
    this.locks = new MysqlTableLocks({
      endpoint: this.endpoint,
      logger: this.logger,
      clock: this.clock,
      lockWaitMs,
      keepAliveMs: Math.max(MIN_KEEP_ALIVE_MS, options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS),
    });
    let told = false;
    const label = this.label;
    const logger = this.logger;
    this.mode = {
      localInfile: true,
      refused(said: string) {
        this.localInfile = false;
        if (told) return;
        told = true;
        logger.warn(
          `MySQL at ${label} does not allow LOAD DATA LOCAL INFILE (${said}): loading by multi-row INSERTs instead, which is slower. ` +
            'For full speed, have an administrator run SET GLOBAL local_infile = 1.',
        );
      },
    };
  }

  nameKey(name: string): string {
    return mysqlNameKey(name);
  }

  columnNameProblem(name: string): string | undefined {
    return mysqlNameProblem(name);
  }

  async open(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw mysqlCancelled('connecting');
    await this.meta.open();
    if (this.readOnly) return;
    const facts = await this.meta.onSession('connecting', (session) => this.endpoint.serverFacts(session));
    this.logger.debug(`mysql: ${this.label}: server ${facts.version}, keys in ${facts.keyCollation}, local_infile ${facts.localInfile ? 'on' : 'off'}`);
    if (!facts.localInfile) this.mode.refused('local_infile is OFF');
  }

  async lockTable(namespace: string, table: string, signal?: AbortSignal): Promise<ReleaseLock> {
    this.checkTableName(namespace, table);
    // a table of another namespace may have the same name here: `a__b` + `c` and `a` + `b__c`
    const key = mysqlNameKey(tableName(namespace, table));
    const other = (await this.meta.syncedTables()).find((s) => s.namespace !== namespace && mysqlNameKey(tableName(s.namespace, s.table)) === key);
    if (other) {
      throw new DqError('usage', `${shownName(shownTable(namespace, table))} would be the MySQL table ${shownName(tableName(namespace, table))}, which ${shownName(shownTable(other.namespace, other.table))} already fills in ${this.label}. It was not synced.`, {
        hint: `Sync ${shownTable(namespace, table)} to another database (--to).`,
      });
    }
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
    const doing = `looking for the table ${tableName(namespace, table)}`;
    return this.meta.onSession(doing, (session) => tableExists(session, tableName(namespace, table)));
  }

  adoptSource(namespace: string, table: string, source: string, replacing?: string): Promise<void> {
    return this.meta.adoptSource(namespace, table, source, replacing);
  }

  async apply(plan: ApplyPlan): Promise<ApplyResult> {
    const { table } = plan;
    if (this.readOnly) throw new DqError('usage', `MySQL at ${this.label} was opened only to read what was synced.`);
    if (keyColumns(table).length === 0) throw new DqError('usage', `${shownTable(table.namespace, table.table)} has no key columns, so its rows cannot be merged.`);
    this.checkTableName(table.namespace, table.table);
    checkColumnNames(this, table);
    return applyToMysql({ endpoint: this.endpoint, locks: this.locks, meta: this.meta, mode: this.mode, logger: this.logger, clock: this.clock }, plan);
  }

  async close(): Promise<void> {
    await this.locks.releaseAll();
    await this.meta.close();
  }

  /** Refuses a service table whose MySQL table name MySQL would not take, before anything is asked of the service for it. */
  private checkTableName(namespace: string, table: string): void {
    const name = tableName(namespace, table);
    const why = mysqlNameProblem(name);
    if (why === undefined) return;
    throw new DqError('usage', `${shownName(shownTable(namespace, table))} would be the MySQL table ${shownName(name)}, which ${why}. It was not synced.`, {
      hint: `Sync ${shownTable(namespace, table)} to another kind of target (--to), where the name fits; the other tables sync on.`,
    });
  }
}
