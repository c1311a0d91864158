// A snapshot applied to PostgreSQL, inside the apply's transaction (see postgresLoad.ts): the
// table is emptied, then filled with the last record of each key. A table whose key and column
// types still match is truncated, so views, grants and comments on it survive; it gains any new
// column and loses the columns the last synced schema had and the new one has not (columns the
// sync never made are left alone). Any other table is dropped and made anew. Either way its
// primary key is added once the rows are in (faster than keeping it up to date row by row):
// the emptied table's own key is dropped for the load and added again by its name, unless a
// person changed it or something depends on it. The jsonb load's records come from its
// staging table here.

import type { Logger } from '../core/logger';
import type { PostgresQuery, PostgresSession } from './postgresConnection';
import type { PostgresMetaTable } from './postgresMetaTable';
import { addColumn, catalogType, createTable, insertSnapshot, keyColumns, primaryKeyClause, qualifiedName, quoteIdent, stageNeedsMerge, TABLE_SHAPE } from './postgresSql';
import { KEY_BUILD_MEMORY, PRIMARY_KEY_OF } from './postgresTypedSql';
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
  const key = await emptyTable(ctx);
  const merge = (await q(stageNeedsMerge(table))).rows[0]?.needed === true;
  const upserted = (await q(insertSnapshot(table, merge))).rowCount ?? 0;
  await addPrimaryKey(ctx, key);
  return upserted;
}

/**
 * The primary key to add once the rows are in (sorting them once beats keeping an index up to
 * date row by row): the sync's own for a table made anew, or the plain key an emptied table
 * had, by its name.
 */
export interface KeyToAdd {
  name?: string;
  definition: string;
}

/** Adds the key taken off (or never made) for the load; nothing when the table kept its key. */
export async function addPrimaryKey(ctx: Pick<PostgresStepContext, 'q' | 'table'>, key: KeyToAdd | undefined): Promise<void> {
  if (!key) return;
  const { q, table } = ctx;
  await q(KEY_BUILD_MEMORY);
  await q(`ALTER TABLE ${qualifiedName(table.namespace, table.table)} ADD ${key.name === undefined ? '' : `CONSTRAINT ${quoteIdent(key.name)} `}${key.definition}`);
}

/**
 * Empties the table for a snapshot, creating it when missing (or when its columns or key
 * changed); returns the key to add once the rows are in, when the table has none meanwhile.
 */
export async function emptyTable(ctx: PostgresStepContext): Promise<KeyToAdd | undefined> {
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
      return takeKeyOff(ctx);
    }
    logger.info(`postgres: ${table.namespace}.${table.table}: its columns or key changed; the snapshot replaces the table`);
    await q(`DROP TABLE ${qualified}`);
  }
  await q(createTable(table, false));
  return { definition: primaryKeyClause(table) };
}

/**
 * Drops the emptied table's primary key for the load, to add it again after by its name. A key
 * that is not as the sync makes it (included columns, storage options, a tablespace, deferrable),
 * that something depends on (a view that groups by it, a foreign key), or that this user may
 * not drop (not the table's owner) stays as it is: the rows then go in with the key in place,
 * slower but the same.
 */
async function takeKeyOff(ctx: PostgresStepContext): Promise<KeyToAdd | undefined> {
  const { session, q, table, logger } = ctx;
  const qualified = qualifiedName(table.namespace, table.table);
  const { rows } = await session.client.query<{ name: string; plain: boolean }>(PRIMARY_KEY_OF, [qualified]);
  const key = rows[0];
  const kept = (why: string): undefined => {
    logger.debug(`postgres: ${table.namespace}.${table.table}: its primary key stays in place for the load (${why})`);
    return undefined;
  };
  if (!key) return undefined;
  // its columns are the table's key columns (emptyTable checked them)
  if (!key.plain) return kept('it is not as the sync makes it');
  await q('SAVEPOINT dq_key');
  try {
    await q(`ALTER TABLE ${qualified} DROP CONSTRAINT ${quoteIdent(key.name)}`);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code !== DEPENDENT_OBJECTS && code !== NOT_OWNER) throw err;
    await q('ROLLBACK TO SAVEPOINT dq_key');
    return kept(code === NOT_OWNER ? 'only the table\'s owner may drop it' : 'something depends on it');
  }
  await q('RELEASE SAVEPOINT dq_key');
  return { name: key.name, definition: primaryKeyClause(table) };
}

/** SQLSTATE: other objects depend on the one to drop. */
const DEPENDENT_OBJECTS = '2BP01';
/** SQLSTATE: insufficient privilege (a user who may empty and fill the table, but not alter it). */
const NOT_OWNER = '42501';

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
