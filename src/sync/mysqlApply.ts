// One run's apply to MySQL, on the session that holds the table's lock (taken here when the
// caller holds none): a snapshot (mysqlSnapshot.ts: loaded into a new table, swapped in with its
// meta row in one RENAME) or a set of changes (mysqlChanges.ts: one transaction with its meta
// row). An abort ends the session at once: the server rolls back what it had open, and the table
// keeps its last complete run; so does a failure or a lost connection at any step.

import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { applyChanges } from './mysqlChanges';
import type { MysqlEndpoint } from './mysqlConnection';
import { mysqlCancelled, mysqlError } from './mysqlErrors';
import type { LoadMode } from './mysqlLoad';
import type { MysqlMetaTable } from './mysqlMetaTable';
import { applySnapshot, type MysqlStepContext } from './mysqlSnapshot';
import { shownTable } from './mysqlSql';
import type { MysqlTableLocks } from './mysqlTableLock';
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
export async function applyToMysql(ctx: MysqlApplyContext, plan: ApplyPlan): Promise<ApplyResult> {
  const { endpoint, locks, logger, clock } = ctx;
  const { table, signal } = plan;
  const name = shownTable(table.namespace, table.table);
  let lock = locks.of(table.namespace, table.table);
  let ownRelease: (() => Promise<void>) | undefined;
  if (!lock) {
    ownRelease = await locks.take(table.namespace, table.table, signal);
    lock = locks.of(table.namespace, table.table)!;
  }
  const { session } = lock;
  await lock.quiet();
  const doing = `applying the ${plan.kind === 'snapshot' ? 'snapshot' : 'changes'} of ${name}`;
  const started = clock.now();
  // the server rolls back what the session had open when it ends, and frees its locks
  const onAbort = (): void => session.destroy();
  let reached = false;
  try {
    if (!session.usable) throw locks.lost(name, lock);
    signal?.addEventListener('abort', onAbort, { once: true });
    signal?.throwIfAborted();
    const { keyCollation } = await endpoint.serverFacts(session);
    reached = true;
    const step: MysqlStepContext = { session, plan, meta: ctx.meta, mode: ctx.mode, keyCollation, database: endpoint.database, logger };
    let result: ApplyResult;
    if (plan.kind === 'snapshot') {
      const rows = await applySnapshot(step);
      result = { upserted: rows, deleted: 0, rows };
    } else {
      result = await applyChanges(step, endpoint.label);
    }
    logger.info(`mysql: ${name}: ${plan.kind} applied: ${result.upserted} upserted, ${result.deleted} deleted, ${result.rows} rows (${formatDuration(clock.now() - started, 'long')})`);
    return result;
  } catch (err) {
    const failure = signal?.aborted ? mysqlCancelled(doing, true) : !reached && !session.usable ? locks.lost(name, lock) : mysqlError(err, endpoint.errorContext(doing, true));
    logger.debug(`mysql: ${name}: ${failure.message}`);
    throw failure;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (ownRelease) await ownRelease();
  }
}
