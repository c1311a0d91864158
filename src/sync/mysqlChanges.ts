// A set of changes applied to MySQL, in one transaction with the run's meta row. New columns are
// added first (an ALTER TABLE commits on its own in MySQL; an added column that a failed run
// leaves behind is empty, and the next run finds it there and fills it). The job's records are
// loaded into the session's staging table, and the last record of each key (newest commit time,
// then the later in the files) into `dq_last`; then one transaction deletes the keys whose last
// record is a delete, upserts the others (INSERT ... ON DUPLICATE KEY UPDATE), counts the rows
// and writes the meta row, and commits under the meta table's lock. A failure, an abort or a lost
// connection before the COMMIT rolls it all back (the server does when the session ends). A
// table that is missing has nowhere to take changes: it needs a snapshot.

import { DqError } from '../client/errors';
import { loadFiles } from './mysqlLoad';
import { metaRowParams } from './mysqlMetaTable';
import { loadColumns, tableExists, type MysqlStepContext } from './mysqlSnapshot';
import {
  addColumn,
  COUNT_UPSERTS,
  createLastTable,
  createStage,
  deleteChanges,
  LAST_TABLE,
  META_TABLE,
  mysqlNameKey,
  quoteIdent,
  shownTable,
  STAGE_TABLE,
  stageLoadColumns,
  tableName,
  upsertChanges,
  upsertMetaRow,
} from './mysqlSql';

/** Applies the staged changes; returns the rows upserted and deleted, and the rows the table holds after. */
export async function applyChanges(ctx: MysqlStepContext, label: string): Promise<{ upserted: number; deleted: number; rows: number }> {
  const { session, plan, keyCollation, meta, database } = ctx;
  const { table } = plan;
  const name = tableName(table.namespace, table.table);
  const shown = shownTable(table.namespace, table.table);
  if (!(await tableExists(session, name))) {
    throw new DqError('snapshotRequired', `The table ${name} (${shown}) is missing from MySQL at ${label}, so its changes have nowhere to go.`, {
      hint: 'Sync it with a fresh snapshot (--resnapshot) to create it again.',
    });
  }
  if (plan.addedColumns.length > 0) {
    const present = new Set(((await session.query(`SHOW COLUMNS FROM ${quoteIdent(name)}`)) as { Field: string }[]).map((c) => mysqlNameKey(c.Field)));
    for (const column of plan.addedColumns) {
      if (!present.has(mysqlNameKey(column.name))) await session.query(addColumn(name, column, table, keyCollation));
    }
  }
  await session.query(`DROP TEMPORARY TABLE IF EXISTS ${STAGE_TABLE}, ${LAST_TABLE}`);
  await session.query(createStage(table, keyCollation));
  await loadFiles({ session, into: STAGE_TABLE, columns: stageLoadColumns(table), load: loadColumns(table), staged: true, table: shown, mode: ctx.mode, signal: plan.signal }, plan.files);
  await session.query(createLastTable(table));
  plan.signal?.throwIfAborted();
  await session.query('START TRANSACTION');
  try {
    const deleted = (await session.change(deleteChanges(table, name))).affectedRows;
    const [{ n }] = (await session.query(COUNT_UPSERTS)) as { n: unknown }[];
    await session.query(upsertChanges(table, name));
    const [{ rows }] = (await session.query(`SELECT COUNT(*) AS \`rows\` FROM ${quoteIdent(name)}`)) as { rows: unknown }[];
    plan.signal?.throwIfAborted();
    await meta.underMetaLock(session, `applying the changes of ${shown}`, async () => {
      await session.query(upsertMetaRow(META_TABLE), metaRowParams(plan, Number(rows), database));
      await session.query('COMMIT');
    });
    await session.query(`DROP TEMPORARY TABLE IF EXISTS ${STAGE_TABLE}, ${LAST_TABLE}`);
    return { upserted: Number(n), deleted, rows: Number(rows) };
  } catch (err) {
    if (session.usable) await session.query('ROLLBACK').catch(() => session.destroy());
    throw err;
  }
}
