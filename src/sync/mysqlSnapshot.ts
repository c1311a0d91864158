// A snapshot applied to MySQL. MySQL commits every CREATE, ALTER, RENAME and DROP on its own, so
// a snapshot cannot replace a table inside a transaction, and no transaction can hold a table's
// rows and its meta row while the table is made. Instead:
//
// 1. The rows are loaded into a new table of the plan's columns (`dq_new_<id>`, a name fixed per
//    table and guarded by the table's lock; a leftover of a killed run is dropped first), and its
//    primary key is built after the load, in one sorted pass (far faster than keeping a key of
//    random values up to date row by row; a server that requires every table to have a key gets
//    it from the start). A repeated key (the key cannot be built) or a delete among the records
//    means the snapshot must keep the last record of each key: the files then go through the
//    session's staging table, from which each key's last record (newest commit time, then the
//    later in the files) goes into the new table, unless it is a delete.
// 2. Under the meta table's lock, a copy of the meta table (`dq_sync_state_next`) is made with
//    the run's meta row in it, and one RENAME TABLE swaps both in at once: the table's old rows
//    out (`dq_old_<id>`), the new table in under the table's name, the meta table out, its copy
//    in. MySQL 8 and MariaDB 10.6 and later make a RENAME of several tables atomic, so the new
//    rows and their meta row become visible together, in one step, or not at all.
// 3. The old rows and the old meta table are dropped.
//
// A run stopped at any moment (killed, its connection lost, the server restarted) leaves the
// table and its meta row at the last complete run: before the RENAME nothing anyone reads has
// changed, after it the run is complete. What it leaves behind (`dq_new_`, `dq_old_`,
// `dq_sync_state_next`/`_prev`) is dropped by the next snapshot. The swap replaces the table
// object: views name it and keep working, but triggers, extra indexes and columns a person added
// to the old table go with it (a change set keeps them).

import type { Logger } from '../core/logger';
import type { MysqlSession } from './mysqlConnection';
import { DUPLICATE_KEY, mysqlErrno } from './mysqlErrors';
import { loadFiles, type LoadMode } from './mysqlLoad';
import { metaRowParams, type MysqlMetaTable } from './mysqlMetaTable';
import type { LoadColumn } from './mysqlRecords';
import {
  addPrimaryKey,
  createStage,
  createTable,
  insertFromStage,
  META_NEXT,
  META_PREV,
  META_TABLE,
  quoteIdent,
  shownTable,
  STAGE_TABLE,
  stageLoadColumns,
  stageNeedsMerge,
  swapNames,
  tableName,
  textKeyChars,
  upsertMetaRow,
} from './mysqlSql';
import type { ApplyPlan, TargetTable } from './syncTarget';

export interface MysqlStepContext {
  session: MysqlSession;
  plan: ApplyPlan;
  meta: MysqlMetaTable;
  mode: LoadMode;
  keyCollation: string;
  database: string;
  logger: Logger;
}

/** The columns as loaded, each text key with its indexed length. */
export function loadColumns(table: TargetTable): LoadColumn[] {
  const chars = textKeyChars(table);
  return table.columns.map((column) => ({ column, keyChars: column.key && (column.type === 'text' || column.type === 'json') ? chars : undefined }));
}

/** Whether the table exists, as the server resolves its name. */
export async function tableExists(session: MysqlSession, name: string): Promise<boolean> {
  try {
    await session.query(`SELECT 1 FROM ${quoteIdent(name)} LIMIT 0`);
    return true;
  } catch (err) {
    if (mysqlErrno(err) === 1146) return false;
    throw err;
  }
}

/** Server errors that say every table needs a primary key (MySQL's sql_require_primary_key, MariaDB's innodb_force_primary_key). */
const KEY_REQUIRED = new Set([3750, 1173]);

/** Creates the new table without its key (added after the load), or with it where the server requires one; true when it has it. */
async function createFresh(ctx: MysqlStepContext, fresh: string): Promise<boolean> {
  const { session, plan, keyCollation } = ctx;
  try {
    await session.query(createTable(plan.table, fresh, keyCollation, false));
    return false;
  } catch (err) {
    const errno = mysqlErrno(err);
    if (errno === undefined || !KEY_REQUIRED.has(errno)) throw err;
    await session.query(createTable(plan.table, fresh, keyCollation, true));
    return true;
  }
}

/** Adds the key to a table loaded without it; false when a key repeats (the records need merging). */
async function addKey(ctx: MysqlStepContext, fresh: string): Promise<boolean> {
  try {
    await ctx.session.query(addPrimaryKey(ctx.plan.table, fresh));
    return true;
  } catch (err) {
    if (mysqlErrno(err) === DUPLICATE_KEY) return false;
    throw err;
  }
}

/** Replaces the table's rows and its meta row with the snapshot's, together (see the file header); returns the rows loaded. */
export async function applySnapshot(ctx: MysqlStepContext): Promise<number> {
  const { session, plan, keyCollation, logger } = ctx;
  const { table } = plan;
  const shown = shownTable(table.namespace, table.table);
  const { fresh, old } = swapNames(table.namespace, table.table);
  await session.query(`DROP TABLE IF EXISTS ${quoteIdent(fresh)}, ${quoteIdent(old)}`);
  let keyed = await createFresh(ctx, fresh);
  const load = loadColumns(table);
  const into = { session, load, table: shown, mode: ctx.mode, signal: plan.signal };
  const direct = await loadFiles({ ...into, into: fresh, columns: table.columns.map((c) => c.name), staged: false }, plan.files);
  let rows = direct.loaded;
  let merge = direct.duplicates || direct.deletes > 0;
  if (!merge && !keyed) {
    merge = !(await addKey(ctx, fresh));
    keyed = true;
  }
  if (merge) {
    logger.debug(`mysql: ${shown}: the snapshot repeats keys or holds deletes; keeping the last record of each key`);
    await session.query(`DROP TABLE IF EXISTS ${quoteIdent(fresh)}`);
    keyed = await createFresh(ctx, fresh);
    await session.query(`DROP TEMPORARY TABLE IF EXISTS ${STAGE_TABLE}`);
    await session.query(createStage(table, keyCollation));
    await loadFiles({ ...into, into: STAGE_TABLE, columns: stageLoadColumns(table), staged: true }, plan.files);
    const [{ needed }] = (await session.query(stageNeedsMerge(table))) as { needed: unknown }[];
    rows = (await session.change(insertFromStage(table, fresh, Number(needed) === 1))).affectedRows;
    await session.query(`DROP TEMPORARY TABLE ${STAGE_TABLE}`);
    if (!keyed) await session.query(addPrimaryKey(table, fresh));
  }
  plan.signal?.throwIfAborted();
  await swapIn(ctx, fresh, old, rows);
  await session.query(`DROP TABLE IF EXISTS ${quoteIdent(old)}`);
  return rows;
}

/** Swaps the loaded table and a meta table holding the run's row in, in one RENAME, under the meta table's lock. */
async function swapIn(ctx: MysqlStepContext, fresh: string, old: string, rows: number): Promise<void> {
  const { session, plan, meta, database } = ctx;
  const name = tableName(plan.table.namespace, plan.table.table);
  await meta.underMetaLock(session, `swapping in the snapshot of ${shownTable(plan.table.namespace, plan.table.table)}`, async () => {
    await session.query(`DROP TABLE IF EXISTS ${quoteIdent(META_NEXT)}, ${quoteIdent(META_PREV)}`);
    await session.query(`CREATE TABLE ${quoteIdent(META_NEXT)} LIKE ${quoteIdent(META_TABLE)}`);
    await session.query(`INSERT INTO ${quoteIdent(META_NEXT)} SELECT * FROM ${quoteIdent(META_TABLE)}`);
    await session.query(upsertMetaRow(META_NEXT), metaRowParams(plan, rows, database));
    const renames: [string, string][] = [];
    if (await tableExists(session, name)) renames.push([name, old]);
    renames.push([fresh, name], [META_TABLE, META_PREV], [META_NEXT, META_TABLE]);
    await session.query(`RENAME TABLE ${renames.map(([from, to]) => `${quoteIdent(from)} TO ${quoteIdent(to)}`).join(', ')}`);
    await session.query(`DROP TABLE IF EXISTS ${quoteIdent(META_PREV)}`);
  });
}
