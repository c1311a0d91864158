// The PostgreSQL sync target (`postgresql://...`): one schema per namespace, one table per
// service table with its key columns as primary key, and the meta table
// `public.dq_sync_state`. Its parts: the connection and its sessions (postgresConnection.ts),
// the meta table and its session (postgresMetaTable.ts), the table locks, one session per
// table kept alive while the job runs (postgresTableLock.ts), and the apply, one transaction
// per table and run with the meta row in it (postgresApply.ts: snapshot and changes apart).
// Opened read-only (sync status), the target creates and changes nothing: a database never
// synced to reads as no tables.

import { applyToPostgres } from './postgresApply';
import { PostgresEndpoint, type PostgresEndpointOptions } from './postgresConnection';
import { postgresCancelled } from './postgresErrors';
import { PostgresMetaTable } from './postgresMetaTable';
import { lockName, NAME_BYTES, postgresName, qualifiedName } from './postgresSql';
import { PostgresTableLocks } from './postgresTableLock';
import { ServerTarget, type ServerTargetOptions } from './serverTarget';
import type { ApplyPlan, ApplyResult } from './syncTarget';
import { checkColumnNames } from './targetNames';

export interface PostgresTargetOptions extends ServerTargetOptions, PostgresEndpointOptions {
  /** `postgresql://user@host:port/database`; a password here works but is best kept elsewhere */
  url: string;
}

export class PostgresTarget extends ServerTarget<PostgresEndpoint> {
  readonly namingRule = `PostgreSQL keeps only the first ${NAME_BYTES} bytes of a name`;
  /** each load decompresses every file to its end, and a file that is not whole gzip fails it */
  readonly checksGzip = true;
  protected readonly meta: PostgresMetaTable;
  protected readonly locks: PostgresTableLocks;

  constructor(options: PostgresTargetOptions) {
    super(new PostgresEndpoint(options), { name: 'PostgreSQL', cancelled: postgresCancelled }, options);
    this.meta = new PostgresMetaTable(this.endpoint, this.logger, this.readOnly);
    this.locks = new PostgresTableLocks(this.lockOptions());
  }

  nameKey(name: string): string {
    return postgresName(name);
  }

  hasTable(namespace: string, table: string): Promise<boolean> {
    const doing = `looking for the table ${lockName(namespace, table)}`;
    return this.meta.onSession(doing, async (session) => {
      const { rows } = await this.endpoint.run<{ found: boolean }>(session, doing, `SELECT to_regclass($1) IS NOT NULL AS found`, [qualifiedName(namespace, table)]);
      return rows[0]?.found === true;
    });
  }

  protected async applyChecked(plan: ApplyPlan): Promise<ApplyResult> {
    checkColumnNames(this, plan.table);
    return applyToPostgres({ endpoint: this.endpoint, locks: this.locks, meta: this.meta, logger: this.logger, clock: this.clock }, plan);
  }
}
