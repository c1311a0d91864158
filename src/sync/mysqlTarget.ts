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
import { applyToMysql } from './mysqlApply';
import { MysqlEndpoint, type MysqlEndpointOptions } from './mysqlConnection';
import { mysqlCancelled } from './mysqlErrors';
import type { LoadMode } from './mysqlLoad';
import { MysqlMetaTable } from './mysqlMetaTable';
import { tableExists } from './mysqlSnapshot';
import { mysqlNameKey, mysqlNameProblem, NAMING_RULE, shownTable, tableName } from './mysqlSql';
import { MysqlTableLocks } from './mysqlTableLock';
import { ServerTarget, type ServerTargetOptions } from './serverTarget';
import type { ApplyPlan, ApplyResult } from './syncTarget';
import type { ReleaseLock } from './targetLock';
import { checkColumnNames, shownName } from './targetNames';

export interface MysqlTargetOptions extends ServerTargetOptions, MysqlEndpointOptions {
  /** `mysql://user@host:3306/database`; a password here works but is best kept elsewhere */
  url: string;
}

export class MysqlTarget extends ServerTarget<MysqlEndpoint> {
  readonly namingRule = NAMING_RULE;
  protected readonly meta: MysqlMetaTable;
  protected readonly locks: MysqlTableLocks;
  private readonly mode: LoadMode;

  constructor(options: MysqlTargetOptions) {
    super(new MysqlEndpoint(options), { name: 'MySQL', cancelled: mysqlCancelled }, options);
    this.meta = new MysqlMetaTable(this.endpoint, this.readOnly, this.lockWaitMs);
    this.locks = new MysqlTableLocks(this.lockOptions());
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

  override async open(signal?: AbortSignal): Promise<void> {
    await super.open(signal);
    if (this.readOnly) return;
    const facts = await this.meta.onSession('connecting', (session) => this.endpoint.serverFacts(session));
    this.logger.debug(`mysql: ${this.label}: server ${facts.version}, keys in ${facts.keyCollation}, local_infile ${facts.localInfile ? 'on' : 'off'}`);
    if (!facts.localInfile) this.mode.refused('local_infile is OFF');
  }

  override async lockTable(namespace: string, table: string, signal?: AbortSignal): Promise<ReleaseLock> {
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

  hasTable(namespace: string, table: string): Promise<boolean> {
    const doing = `looking for the table ${tableName(namespace, table)}`;
    return this.meta.onSession(doing, (session) => tableExists(session, tableName(namespace, table)));
  }

  protected async applyChecked(plan: ApplyPlan): Promise<ApplyResult> {
    const { table } = plan;
    this.checkTableName(table.namespace, table.table);
    checkColumnNames(this, table);
    return applyToMysql({ endpoint: this.endpoint, locks: this.locks, meta: this.meta, mode: this.mode, logger: this.logger, clock: this.clock }, plan);
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
