// One run's apply to DuckDB: one transaction in which the namespace's schema, the table's DDL,
// its rows (a snapshot replaces the table; changes add new columns in place, then delete,
// update or insert the newest record of each key) and its meta row commit together or not at all,
// whether the process is interrupted, killed, or the disk fills. An abort interrupts the
// running statement. The result files are read where they lie, still compressed; only a file
// DuckDB refuses for a lone surrogate escape (half an emoji a truncation cut off) is copied
// without it (see jsonEscapes.ts), next to itself, and the apply tried again.

import type { DuckDBConnection } from '@duckdb/node-api';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { constants as zlib, createGzip, createGunzip } from 'node:zlib';
import { DqError, isDqError } from '../client/errors';
import { isGzipMagic } from '../core/contract';
import type { Logger } from '../core/logger';
import type { OpenDatabase } from './duckdbDatabase';
import { duckdbCancelled, duckdbFailure } from './duckdbErrors';
import { writeMetaRow } from './duckdbMetaTable';
import {
  addColumnSql,
  CHANGES_TABLE,
  countUpsertsSql,
  createChangesTableSql,
  createTableSql,
  deletedSql,
  dropColumnSql,
  loadColumnsOf,
  loadedFactsSql,
  loadRecordsSql,
  mergeChangesSql,
  schemaName,
  supersededSql,
  tableName,
} from './duckdbSql';
import { JsonEscapeFilter } from './jsonEscapes';
import type { ApplyPlan, ApplyResult, TargetTable } from './syncTarget';

type Run = (sql: string, values?: (string | number | null)[]) => Promise<number>;
/** Runs a statement and reads its first row's numbers. */
type Numbers = (sql: string) => Promise<number[]>;

/** Applies the plan to the database `file`; when DuckDB refuses a lone surrogate escape in a file, applies copies without it. */
export async function applyToDuckdb(database: OpenDatabase, file: string, logger: Logger, plan: ApplyPlan): Promise<ApplyResult> {
  try {
    return await applyOnce(database, file, plan);
  } catch (err) {
    const cause = isDqError(err) && err.kind === 'invalidResponse' && err.cause instanceof Error ? err.cause.message : '';
    if (!/surrogate/i.test(cause)) throw err;
    const name = `${plan.table.namespace}.${plan.table.table}`;
    logger.info(`${name}: a result file holds a lone surrogate escape (half an emoji, cut off), which DuckDB cannot read; loading a copy without it.`);
    const copies = plan.files.map((f) => `${f}.cleaned.jsonl.gz`);
    try {
      for (const [i, f] of plan.files.entries()) await copyWithoutBadEscapes(f, copies[i], name, plan.signal);
      return await applyOnce(database, file, { ...plan, files: copies });
    } finally {
      await Promise.all(copies.map((copy) => rm(copy, { force: true })));
    }
  }
}

/** Whether the table `<schema>.<table>` exists in the database. */
export async function tableExists(conn: DuckDBConnection, schema: string, table: string): Promise<boolean> {
  const reader = await conn.runAndReadAll(
    "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2",
    [schema, table],
  );
  return Number(reader.getRowsJson()[0][0]) > 0;
}

async function applyOnce(database: OpenDatabase, file: string, plan: ApplyPlan): Promise<ApplyResult> {
  const { table, signal } = plan;
  const { catalog } = database;
  const conn = await database.instance.connect();
  const interrupt = (): void => conn.interrupt();
  signal?.addEventListener('abort', interrupt);
  let open = false;
  const run: Run = async (sql, values) => {
    if (signal?.aborted) throw duckdbCancelled(`${table.namespace}.${table.table}`);
    const result = await conn.run(sql, values);
    return Number(result.rowsChanged);
  };
  const numbers: Numbers = async (sql) => {
    if (signal?.aborted) throw duckdbCancelled(`${table.namespace}.${table.table}`);
    const reader = await conn.runAndReadAll(sql);
    return (reader.getRowsJson()[0] ?? []).map(Number);
  };
  try {
    await run('BEGIN TRANSACTION');
    open = true;
    await run(`CREATE SCHEMA IF NOT EXISTS ${schemaName(catalog, table.namespace)}`);
    const { upserted, deleted } =
      plan.kind === 'snapshot' ? { upserted: await loadSnapshot(run, numbers, catalog, table, plan.files), deleted: 0 } : await applyChanges(run, numbers, conn, catalog, plan, file);
    const rows = await countRows(conn, catalog, table);
    await writeMetaRow(run, catalog, plan, rows);
    await run('COMMIT');
    open = false;
    return { upserted, deleted, rows };
  } catch (err) {
    if (open) await conn.run('ROLLBACK').catch(() => undefined);
    throw duckdbFailure(err, file, `${table.namespace}.${table.table}`, signal);
  } finally {
    signal?.removeEventListener('abort', interrupt);
    conn.closeSync();
  }
}

/**
 * A snapshot: the table made anew and filled with the newest record of each key; returns the
 * rows loaded. The records go in as they come, in one read of the files, each with its action
 * and commit time; then, only where there are any, the records a newer one of their key
 * supersedes and the keys whose newest record is a delete leave, and those two columns go.
 */
async function loadSnapshot(run: Run, numbers: Numbers, catalog: string, table: TargetTable, files: readonly string[]): Promise<number> {
  const loading = loadColumnsOf(table);
  const into = tableName(catalog, table);
  await run(`DROP TABLE IF EXISTS ${into}`);
  await run(createTableSql(catalog, table, loading));
  let rows = 0;
  if (files.length > 0) {
    rows = await run(loadRecordsSql(into, table, files, loading));
    const [repeats, deletes] = await numbers(loadedFactsSql(into, table, loading));
    if (repeats > 0) rows -= await run(supersededSql(into, table, loading));
    if (deletes > 0) rows -= await run(deletedSql(into, loading));
  }
  for (const column of [loading.action, loading.ts]) await run(dropColumnSql(catalog, table, column));
  return rows;
}

/**
 * Changes: new columns added in place; the records staged as they come, in one read of the
 * files, and those a newer one of their key supersedes dropped (where a key repeats); then the
 * newest record of each key deleted, updated or inserted, in one MERGE.
 */
async function applyChanges(run: Run, numbers: Numbers, conn: DuckDBConnection, catalog: string, plan: ApplyPlan, file: string): Promise<{ upserted: number; deleted: number }> {
  const { table, files } = plan;
  if (!(await tableExists(conn, table.namespace, table.table))) {
    throw new DqError('snapshotRequired', `The table ${table.namespace}.${table.table} is missing from ${file}, though its last sync is recorded there.`, {
      hint: 'Take a fresh snapshot of the table (sync it with --resnapshot).',
    });
  }
  for (const column of plan.addedColumns) await run(addColumnSql(catalog, table, column));
  if (files.length === 0) return { upserted: 0, deleted: 0 };
  const loading = loadColumnsOf(table);
  await run(createChangesTableSql(table, loading));
  await run(loadRecordsSql(CHANGES_TABLE, table, files, loading));
  const [repeats] = await numbers(loadedFactsSql(CHANGES_TABLE, table, loading));
  if (repeats > 0) await run(supersededSql(CHANGES_TABLE, table, loading));
  const [upserted] = await numbers(countUpsertsSql(loading.action));
  const changed = await run(mergeChangesSql(catalog, table, loading.action));
  await run(`DROP TABLE ${CHANGES_TABLE}`);
  return { upserted, deleted: changed - upserted };
}

async function countRows(conn: DuckDBConnection, catalog: string, table: TargetTable): Promise<number> {
  const reader = await conn.runAndReadAll(`SELECT count(*) FROM ${tableName(catalog, table)}`);
  return Number(reader.getRowsJson()[0][0]);
}

/** Writes `file` (gzip or plain JSONL) to `copy` as gzip JSONL without the escapes no database stores. */
export async function copyWithoutBadEscapes(file: string, copy: string, what: string, signal?: AbortSignal): Promise<void> {
  const handle = await open(file, 'r');
  let gzip: boolean;
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    gzip = isGzipMagic(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
  const stages: NodeJS.ReadWriteStream[] = [...(gzip ? [createGunzip()] : []), new JsonEscapeFilter({ table: what, file }), createGzip({ level: zlib.Z_BEST_SPEED })];
  try {
    await pipeline([createReadStream(file), ...stages, createWriteStream(copy, { mode: 0o600 })], { signal });
  } catch (err) {
    if (signal?.aborted) throw duckdbCancelled(what);
    if (isDqError(err)) throw err; // a line the filter refuses
    throw new DqError('io', `Copying ${file} without its lone surrogate escapes failed: ${err instanceof Error ? err.message : String(err)}`, {
      hint: 'Free disk space in the work folder (--work-dir) and sync the table again.',
      cause: err,
    });
  }
}
