// One run's apply to PostgreSQL, on the session that holds the table's lock (serverApply.ts:
// taken there when the caller holds none): the namespace's schema is made first, in a
// transaction of its own (an empty schema is harmless, and holding its creation open would
// make other tables wait); then one transaction loads the job's gzip JSONL objects with COPY,
// as a snapshot or as changes (postgresLoad.ts: typed rows where it can, jsonb records where it
// must), counts the rows and upserts the meta row. A failure, an abort (which cancels the
// running statement from the side) or a lost connection rolls it all back, or the server does
// when the session ends: the table keeps its last complete run.

import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { PostgresEndpoint, PostgresSession } from './postgresConnection';
import { postgresCancelled, postgresError } from './postgresErrors';
import type { PostgresMetaTable } from './postgresMetaTable';
import { loadRecords } from './postgresLoad';
import { grantName, META_DDL_LOCK, qualifiedName, quoteIdent } from './postgresSql';
import type { PostgresTableLocks } from './postgresTableLock';
import { applyOnLockedSession } from './serverApply';
import { formatDuration } from '../core/durationText';
import type { ApplyPlan, ApplyResult } from './syncTarget';

export interface PostgresApplyContext {
  endpoint: PostgresEndpoint;
  locks: PostgresTableLocks;
  meta: PostgresMetaTable;
  logger: Logger;
  clock: Clock;
}

/** Applies the plan in one transaction on the table's locked session; all or nothing. */
export function applyToPostgres(ctx: PostgresApplyContext, plan: ApplyPlan): Promise<ApplyResult> {
  const { endpoint, meta, logger } = ctx;
  const { table, signal } = plan;
  let cancelling: Promise<boolean> | undefined;
  return applyOnLockedSession(
    {
      locks: ctx.locks,
      plan,
      logger,
      clock: ctx.clock,
      logName: 'postgres',
      onAbort: ({ session }) => {
        if (session.pid !== undefined) cancelling ??= endpoint.cancel(session.pid);
      },
      cancelled: (doing) => postgresCancelled(doing, true),
      failed: (err, doing) => postgresError(err, endpoint.errorContext(doing, true)),
    },
    async ({ lock: { session }, name, started, reached }) => {
      let inTransaction = false;
      try {
        await ensureSchema(endpoint, session, table.namespace);
        reached();
        const q = (sql: string, params?: unknown[]) => {
          signal?.throwIfAborted();
          return session.client.query(sql, params);
        };
        await q('BEGIN');
        inTransaction = true;
        await q(`SET LOCAL work_mem = '64MB'`);
        const { records, upserted, deleted, rows: known } = await loadRecords({ session, q, plan, meta, logger, label: endpoint.label });
        const rows = known ?? Number((await q(`SELECT count(*)::text AS n FROM ${qualifiedName(table.namespace, table.table)}`)).rows[0].n);
        await meta.writeInApply(q, plan, rows);
        await q('COMMIT');
        inTransaction = false;
        // an abort that came too late to matter: its cancel must not hit the session's next statement
        if (cancelling) await cancelling;
        logger.info(`postgres: ${name}: ${plan.kind} applied from ${records} records: ${upserted} upserted, ${deleted} deleted, ${rows} rows (${formatDuration(ctx.clock.now() - started, 'long')})`);
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
        throw err;
      }
    },
  );
}

/** The namespace's schema, created in a transaction of its own before the run's. */
async function ensureSchema(endpoint: PostgresEndpoint, session: PostgresSession, namespace: string): Promise<void> {
  const { rows } = await session.client.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [namespace]);
  if (rows.length > 0) return;
  await endpoint.inShortTransaction(
    session,
    `creating the schema ${namespace}`,
    [
      [META_DDL_LOCK, [`schema ${namespace}`]],
      [`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(namespace)}`],
    ],
    `Each namespace gets a schema of its own: GRANT CREATE ON DATABASE ${grantName(session.client.database, '<database>')} TO ${grantName(session.client.user, '<user>')}; (or create the schema ${quoteIdent(namespace)} for the user, with it as owner).`,
  );
}
