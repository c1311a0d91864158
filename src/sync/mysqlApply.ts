// One run's apply to MySQL, on the session that holds the table's lock (serverApply.ts: taken
// there when the caller holds none): a snapshot (mysqlSnapshot.ts: loaded into a new table,
// swapped in with its meta row in one RENAME) or a set of changes (mysqlChanges.ts: one
// transaction with its meta row). An abort ends the session at once: the server rolls back what
// it had open, and the table keeps its last complete run; so does a failure or a lost
// connection at any step.

import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { applyChanges } from './mysqlChanges';
import type { MysqlEndpoint } from './mysqlConnection';
import { mysqlCancelled, mysqlError } from './mysqlErrors';
import type { LoadMode } from './mysqlLoad';
import type { MysqlMetaTable } from './mysqlMetaTable';
import { applySnapshot, type MysqlStepContext } from './mysqlSnapshot';
import type { MysqlTableLocks } from './mysqlTableLock';
import { applyOnLockedSession } from './serverApply';
import { formatDuration } from '../core/durationText';
import type { ApplyPlan, ApplyResult } from './syncTarget';

export interface MysqlApplyContext {
  endpoint: MysqlEndpoint;
  locks: MysqlTableLocks;
  meta: MysqlMetaTable;
  mode: LoadMode;
  logger: Logger;
  clock: Clock;
}

/** Applies the plan on the table's locked session; all or nothing. */
export function applyToMysql(ctx: MysqlApplyContext, plan: ApplyPlan): Promise<ApplyResult> {
  const { endpoint, logger } = ctx;
  return applyOnLockedSession(
    {
      locks: ctx.locks,
      plan,
      logger,
      clock: ctx.clock,
      logName: 'mysql',
      // the server rolls back what the session had open when it ends, and frees its locks
      onAbort: ({ session }) => session.destroy(),
      cancelled: (doing) => mysqlCancelled(doing, true),
      failed: (err, doing) => mysqlError(err, endpoint.errorContext(doing, true)),
    },
    async ({ lock: { session }, name, started, reached }) => {
      const { keyCollation } = await endpoint.serverFacts(session);
      reached();
      const step: MysqlStepContext = { session, plan, meta: ctx.meta, mode: ctx.mode, keyCollation, database: endpoint.database, logger };
      let result: ApplyResult;
      if (plan.kind === 'snapshot') {
        const rows = await applySnapshot(step);
        result = { upserted: rows, deleted: 0, rows };
      } else {
        result = await applyChanges(step, endpoint.label);
      }
      logger.info(`mysql: ${name}: ${plan.kind} applied: ${result.upserted} upserted, ${result.deleted} deleted, ${result.rows} rows (${formatDuration(ctx.clock.now() - started, 'long')})`);
      return result;
    },
  );
}
