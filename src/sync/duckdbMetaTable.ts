// The meta table of the DuckDB target, `main.dq_sync_state`: created when a file is opened to
// write (a meta table from before sources were recorded gains the column, its rows without
// one), read (a file opened read-only without one reads as no rows; an old one as rows without
// sources), and its rows written in the apply's transaction or given a source.

import type { DuckDBConnection } from '@duckdb/node-api';
import type { JsonSchema } from '../core/contract';
import { isoUtc } from '../core/isoTime';
import { addSourceColumnSql, adoptSourceSql, createMetaTableSql, metaTable, selectStatesSql, upsertStateSql } from './duckdbSql';
import { metaRowValues } from './metaRow';
import type { ApplyPlan, SyncedTable, SyncState } from './syncTarget';

/** Creates the meta table, or adds what an older one lacks. */
export async function prepareMetaTable(conn: DuckDBConnection, catalog: string): Promise<void> {
  await conn.run(createMetaTableSql(catalog));
  await conn.run(addSourceColumnSql(catalog));
}

/** The meta rows (`rest` is the WHERE or ORDER BY, `values` its parameters). */
export async function readStates(conn: DuckDBConnection, catalog: string, rest: string, values: string[]): Promise<SyncState[]> {
  const columns = await metaColumns(conn);
  if (columns.size === 0) return [];
  const reader = await conn.runAndReadAll(`${selectStatesSql(catalog, columns.has('source'))} ${rest}`, values);
  return reader.getRowObjectsJson().map((row) => ({
    namespace: String(row.namespace),
    table: String(row.table),
    point: isoUtc(Number(row.point_ms)),
    schemaVersion: Number(row.schema_version),
    schema: JSON.parse(String(row.schema_text)) as JsonSchema,
    rows: Number(row.row_count),
    ranAt: isoUtc(Number(row.ran_ms)),
    ...(row.source === null || row.source === undefined ? {} : { source: String(row.source) }),
  }));
}

/** The names of the tables the meta table records. */
export async function readSyncedTables(conn: DuckDBConnection, catalog: string): Promise<SyncedTable[]> {
  if ((await metaColumns(conn)).size === 0) return [];
  const reader = await conn.runAndReadAll(`SELECT namespace, "table" FROM ${metaTable(catalog)}`);
  return reader.getRowsJson().map(([namespace, table]) => ({ namespace: String(namespace), table: String(table) }));
}

/** Records `source` in a meta row without one, or with exactly `replacing`. */
export async function adoptSource(conn: DuckDBConnection, catalog: string, namespace: string, table: string, source: string, replacing?: string): Promise<void> {
  await conn.run(adoptSourceSql(catalog), [namespace, table, source, replacing ?? null]);
}

/** Writes the run's meta row with `run`, a statement of the apply's transaction, so it commits with the rows. */
export async function writeMetaRow(run: (sql: string, values: (string | number | null)[]) => Promise<unknown>, catalog: string, plan: ApplyPlan, rows: number): Promise<void> {
  await run(upsertStateSql(catalog), metaRowValues(plan, rows));
}

/** The columns of the meta table, by name; none when there is no meta table (a file opened read-only). */
async function metaColumns(conn: DuckDBConnection): Promise<Set<string>> {
  const reader = await conn.runAndReadAll(
    "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = 'dq_sync_state'",
  );
  return new Set(reader.getRowsJson().map(([name]) => String(name)));
}
