// A snapshot applied to PostgreSQL, inside the apply's transaction with the records staged
// (see postgresApply.ts): the table is emptied, then filled with the last record of each key.
// A table whose key and column types still match is truncated, so views, grants and comments
// on it survive; it gains any new column and loses the columns the last synced schema had and
// the new one has not (columns the sync never made are left alone). Any other table is dropped
// and made anew, its primary key added after loading (faster than keeping it up to date row
// by row).

import type { Logger } from '../core/logger';
import type { PostgresQuery, PostgresSession } from './postgresConnection';
import type { PostgresMetaTable } from './postgresMetaTable';
import { addColumn, catalogType, createTable, insertSnapshot, keyColumns, primaryKeyClause, qualifiedName, quoteIdent, stageNeedsMerge, TABLE_SHAPE } from './postgresSql';
import { KEY_BUILD_MEMORY } from './postgresTypedSql';
import { targetColumnsOf } from './syncColumns';
import type { TargetTable } from './syncTarget';

export interface PostgresStepContext {
  /** the lock's session, in the apply's transaction */
  session: PostgresSession;
  /** runs a statement of the apply (refused once the run is aborted) */
  q: PostgresQuery;
  table: TargetTable;
  meta: PostgresMetaTable;
  logger: Logger;
}

/** Replaces the table's rows with the staged records; returns how many rows it loaded. */
export async function applySnapshot(ctx: PostgresStepContext): Promise<number> {
  const { q, table } = ctx;
  const created = await emptyTable(ctx);
  const merge = (await q(stageNeedsMerge(table))).rows[0]?.needed === true;
  const upserted = (await q(insertSnapshot(table, merge))).rowCount ?? 0;
  if (created) await addPrimaryKey(ctx);
  return upserted;
}

/** Adds the key to a table made anew, once its rows are in (sorting them once beats keeping an index up to date). */
export async function addPrimaryKey(ctx: Pick<PostgresStepContext, 'q' | 'table'>): Promise<void> {
  const { q, table } = ctx;
  await q(KEY_BUILD_MEMORY);
  await q(`ALTER TABLE ${qualifiedName(table.namespace, table.table)} ADD ${primaryKeyClause(table)}`);
}

/** Empties the table for a snapshot; true when it was created anew (without its key yet). */
export async function emptyTable(ctx: PostgresStepContext): Promise<boolean> {
  const { session, q, table, logger } = ctx;
  const qualified = qualifiedName(table.namespace, table.table);
  const { rows } = await session.client.query<{ name: string; type: string; key_position: number }>(TABLE_SHAPE, [qualified]);
  if (rows.length > 0) {
    const existing = new Map(rows.map((r) => [r.name, r]));
    const typesMatch = table.columns.every((c) => {
      const found = existing.get(c.name);
      return found === undefined || found.type === catalogType(c.type);
    });
    const key = rows.filter((r) => r.key_position > 0).sort((a, b) => a.key_position - b.key_position).map((r) => r.name);
    const wanted = keyColumns(table).map((c) => c.name);
    if (typesMatch && key.join('\u0000') === wanted.join('\u0000')) {
      for (const column of table.columns) if (!existing.has(column.name)) await q(addColumn(table, column));
      const removed = await removedColumns(ctx, [...existing.keys()]);
      if (removed.length > 0) {
        logger.info(`postgres: ${table.namespace}.${table.table}: dropping the columns its schema no longer has: ${removed.join(', ')}`);
        for (const name of removed) await q(`ALTER TABLE ${qualified} DROP COLUMN ${quoteIdent(name)}`);
      }
      await q(`TRUNCATE ${qualified}`);
      return false;
    }
    logger.info(`postgres: ${table.namespace}.${table.table}: its columns or key changed; the snapshot replaces the table`);
    await q(`DROP TABLE ${qualified}`);
  }
  await q(createTable(table, false));
  return true;
}

/** Columns of the table that the last synced schema had and the new one has not. */
async function removedColumns(ctx: PostgresStepContext, present: readonly string[]): Promise<string[]> {
  const { session, table, meta } = ctx;
  const last = await meta.readInApply(session, table.namespace, table.table);
  if (!last) return [];
  let before: Set<string>;
  try {
    before = new Set(targetColumnsOf({ version: last.schemaVersion, schema: last.schema }).map((c) => c.name));
  } catch {
    // a stored schema that no longer reads as columns names nothing to drop
    return [];
  }
  const now = new Set(table.columns.map((c) => c.name));
  return present.filter((name) => before.has(name) && !now.has(name));
}
