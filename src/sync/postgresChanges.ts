// A set of changes applied to PostgreSQL, inside the apply's transaction with the records
// staged, typed or as jsonb (see postgresLoad.ts): new columns are added in place, the last
// record of each key is kept (`dq_last`), keys whose last record is a delete are deleted and
// the others upserted (`INSERT ... ON CONFLICT`). A table that is missing has nowhere to take
// changes: it needs a snapshot.

import { DqError } from '../client/errors';
import type { PostgresQuery } from './postgresConnection';
import { addColumn, createLastTable, deleteChanges, LAST_TABLE, lockName, qualifiedName, upsertChanges } from './postgresSql';
import { createLastFromTyped } from './postgresTypedSql';
import type { TargetColumn, TargetTable } from './syncTarget';

export interface PostgresChangesContext {
  /** runs a statement of the apply (refused once the run is aborted) */
  q: PostgresQuery;
  table: TargetTable;
  addedColumns: readonly TargetColumn[];
  /** the target as shown, for messages */
  label: string;
  /** the records are in the typed staging table (postgresTypedSql.ts), not the jsonb one */
  typed?: boolean;
}

/** Applies the staged changes; returns the rows upserted and deleted. */
export async function applyChanges(ctx: PostgresChangesContext): Promise<{ upserted: number; deleted: number }> {
  const { q, table } = ctx;
  const found = await q(`SELECT to_regclass($1) IS NOT NULL AS found`, [qualifiedName(table.namespace, table.table)]);
  if (!found.rows[0]?.found) {
    throw new DqError('snapshotRequired', `The table ${lockName(table.namespace, table.table)} is missing from PostgreSQL at ${ctx.label}, so its changes have nowhere to go.`, {
      hint: 'Sync it with a fresh snapshot (--resnapshot) to create it again.',
    });
  }
  for (const column of ctx.addedColumns) await q(addColumn(table, column));
  await q(ctx.typed ? createLastFromTyped(table, LAST_TABLE) : createLastTable(table));
  await q(`ANALYZE ${LAST_TABLE}`);
  const deleted = (await q(deleteChanges(table))).rowCount ?? 0;
  const upserted = (await q(upsertChanges(table))).rowCount ?? 0;
  return { upserted, deleted };
}
