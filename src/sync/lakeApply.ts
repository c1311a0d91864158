// One run's apply to a lake table. In order, so that a run stopped anywhere leaves the table
// readable at its last complete state: the manifest mended from the state if a killed run left
// them apart, the objects no state accounts for deleted; the new data files (named with the
// run's id) written and uploaded one at a time; then `_dq/state.json`, the commit point; then
// the manifest; then the retired files past the grace period deleted.
//
// A snapshot writes the table anew (the previous files retire). A run of changes rewrites only
// the files that hold a changed or deleted key: the files whose key range holds one are the
// candidates, and their companions (the key columns only) say which really do; those files
// are written again without those keys, together with every upserted row, as new files. A
// run that finds more small files than the threshold (or is asked to compact) merges them
// into files of up to the largest size too.

import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DqError, isDqError } from '../client/errors';
import { asLocalIoError } from '../client/localIoError';
import { isoUtc } from '../core/isoTime';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { copyWithoutBadEscapes } from './duckdbApply';
import { CHANGES_TABLE, createChangesTableSql, createTableSql, deletedSql, loadColumnsOf, loadedFactsSql, loadRecordsSql, schemaName, supersededSql, tableName } from './duckdbSql';
import type { LakeTuning, TableLayout } from './lakeLayout';
import {
  CHANGED_TABLE,
  createOutSql,
  filesHoldingChanges,
  filesInRange,
  insertStagedSql,
  selectStagedSql,
  keysMatch,
  lakeColumnsOf,
  LakeEngine,
  OUT_TABLE,
  readParquetSql,
  writeFiles,
  type LakeColumn,
} from './lakeParquet';
import { deleteRetired, expiredFiles, findStrays, removeStrays } from './lakeRetention';
import { LAKE_STATE_FORMAT, type LakeFile, type LakeState } from './lakeState';
import { mendManifest, readLakeState, storeFailure, writeLakeState, writeManifest } from './lakeStateFile';
import type { ObjectStore } from './objectStore';
import { compareColumns } from './schemaChanges';
import type { ApplyPlan, ApplyResult, TargetColumn } from './syncTarget';
import { quoteIdent } from '../engine/sqlText';
import { makeFolder } from '../core/makeFolder';

const PARQUET = 'application/vnd.apache.parquet';

export interface LakeApplyContext {
  store: ObjectStore;
  layout: TableLayout;
  tuning: LakeTuning;
  clock: Clock;
  logger: Logger;
  /** where the run's work folder is made */
  workDir: string;
  retainMs: number;
  compact: boolean;
  run: string;
  /** throws when the table's lock is no longer this run's (checked before the state is written) */
  checkLock?: () => Promise<void>;
  /**
   * whoever held the table's lock before this run is known to run no more (lakeLock.ts): the
   * uploads of a first snapshot killed before its state can go, though there is no state to
   * fence that run off with
   */
  strayOwnersGone?: boolean;
}

/** What a run wrote, besides what the runner is told. */
export interface LakeApplyResult extends ApplyResult {
  /** bytes of the data files this run uploaded */
  bytesWritten: number;
  /** files retired by this run */
  retired: number;
}

interface Rewrite {
  upserted: number;
  deleted: number;
  /** the files of the previous state that this run writes again (retired) */
  replaced: LakeFile[];
  /** the rows of the run's new files, and the table they are in */
  rows: { sql: string; drop: string };
}

/** Applies the plan; when DuckDB refuses a lone surrogate escape in a result file, applies copies without it. */
export async function applyToLake(ctx: LakeApplyContext, plan: ApplyPlan): Promise<LakeApplyResult> {
  try {
    return await applyOnce(ctx, plan);
  } catch (err) {
    const cause = isDqError(err) && err.kind === 'invalidResponse' && err.cause instanceof Error ? err.cause.message : '';
    if (!/surrogate/i.test(cause)) throw err;
    const name = `${plan.table.namespace}.${plan.table.table}`;
    ctx.logger.info(`${name}: a result file holds a lone surrogate escape (half an emoji, cut off), which DuckDB cannot read; converting a copy without it.`);
    const copies = plan.files.map((f) => `${f}.cleaned.jsonl.gz`);
    try {
      for (const [i, f] of plan.files.entries()) await copyWithoutBadEscapes(f, copies[i], name, plan.signal);
      return await applyOnce(ctx, { ...plan, files: copies });
    } finally {
      await Promise.all(copies.map((copy) => rm(copy, { force: true })));
    }
  }
}

async function applyOnce(ctx: LakeApplyContext, plan: ApplyPlan): Promise<LakeApplyResult> {
  const { store, layout, logger } = ctx;
  const name = `${plan.table.namespace}.${plan.table.table}`;
  const signal = plan.signal;
  const started = await readLakeState(store, layout, signal).catch((err) => Promise.reject(storeFailure(err, name)));
  const before = started.state;
  if (before && (await mendManifest(store, layout, before, signal))) logger.info(`${name}: the manifest did not match the state (a sync stopped between them); wrote it again.`);
  const strays = await findStrays(store, layout, before, signal);
  if (strays.length > 0 && before) {
    // fence off the run that left them, should it still run: its state write no longer matches
    await writeLakeState(store, layout, { ...before, run: ctx.run }, started, signal);
    Object.assign(started, await readLakeState(store, layout, signal));
    await removeStrays(store, layout, strays, logger, signal);
  } else if (strays.length > 0 && ctx.strayOwnersGone) {
    await removeStrays(store, layout, strays, logger, signal);
  }
  if (plan.kind === 'changes') checkChanges(name, plan, before);
  const columns = lakeColumnsOf(plan.table);
  const dir = await makeFolder(ctx.workDir)
    .then(() => mkdtemp(path.join(ctx.workDir, `dq-lake-${ctx.run}-`)))
    .catch((err) => Promise.reject(asLocalIoError(err, ctx.workDir, 'make a work folder for the Parquet files')));
  const uploaded: string[] = [];
  let committed = false;
  let engine: LakeEngine | undefined;
  try {
    engine = await LakeEngine.open(dir, name, ctx.tuning.memoryBytes, signal);
    const rewrite = plan.kind === 'snapshot' ? await stageSnapshot(engine, plan, columns, before) : await stageChanges(ctx, engine, plan, columns, before!, dir);
    const files: LakeFile[] = [];
    let bytesWritten = 0;
    const written = await writeFiles(engine, columns, rewrite.rows, ctx.tuning.maxFileBytes, ctx.tuning.sampleRows, (n) => path.join(dir, `out-${n}.parquet`), async (file) => {
      const key = layout.dataFile(ctx.run, files.length);
      uploaded.push(key, layout.keysOf(key));
      try {
        await store.uploadFile(key, file.path, { contentType: PARQUET, signal });
        await store.uploadFile(layout.keysOf(key), file.keysPath, { contentType: PARQUET, signal });
      } finally {
        await rm(file.path, { force: true });
        await rm(file.keysPath, { force: true });
      }
      files.push({ key, rows: file.rows, bytes: file.bytes, minKey: file.minKey, maxKey: file.maxKey, writtenAt: isoUtc(ctx.clock.now()) });
      bytesWritten += file.bytes;
    });
    const now = ctx.clock.now();
    const replaced = new Set(rewrite.replaced.map((f) => f.key));
    const kept = (before?.files ?? []).filter((f) => !replaced.has(f.key));
    const rows = kept.reduce((n, f) => n + f.rows, 0) + written;
    const { expired, kept: stillRetired } = expiredFiles(before?.retired ?? [], now, ctx.retainMs);
    const state: LakeState = {
      format: LAKE_STATE_FORMAT,
      namespace: plan.table.namespace,
      table: plan.table.table,
      point: plan.state.point,
      schemaVersion: plan.state.schemaVersion,
      schema: plan.state.schema,
      columns: columns.map((c, i): TargetColumn => ({ name: c.name, path: plan.table.columns[i].path, type: c.type, key: c.key })),
      rows,
      ranAt: plan.state.ranAt,
      ...(plan.state.source === undefined ? {} : { source: plan.state.source }),
      run: ctx.run,
      files: [...kept, ...files],
      retired: [...stillRetired, ...rewrite.replaced.map((f) => ({ key: f.key, retiredAt: isoUtc(now) }))],
      schemaChanges: plan.kind === 'snapshot' ? [] : [...(before?.schemaChanges ?? []), ...schemaChangeOf(plan, now)],
    };
    await ctx.checkLock?.();
    await writeLakeState(store, layout, state, started, signal).catch((err) => Promise.reject(storeFailure(err, `the state of ${name}`)));
    committed = true;
    await writeManifest(store, layout, state, signal).catch((err) => {
      throw new DqError('io', `${name}: the state was written but its manifest was not (${storeFailure(err, 'the manifest').message}); readers see the previous files until the next sync writes it.`, {
        hint: 'Sync the table again: the next run writes the manifest first.',
        cause: err,
      });
    });
    await deleteRetired(store, layout, expired, logger);
    logger.debug(`${name}: ${files.length} file(s), ${bytesWritten} bytes written; ${rewrite.replaced.length} file(s) retired, ${expired.length} deleted after the grace period.`);
    return { upserted: rewrite.upserted, deleted: rewrite.deleted, rows, bytesWritten, retired: rewrite.replaced.length };
  } catch (err) {
    if (!committed && uploaded.length > 0) await store.delete(uploaded).catch(() => undefined); // the next run deletes them otherwise
    throw storeFailure(err, name);
  } finally {
    engine?.close();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

function schemaChangeOf(plan: ApplyPlan, now: number): LakeState['schemaChanges'] {
  if (plan.addedColumns.length === 0) return [];
  const names = new Map(lakeColumnsOf(plan.table).map((c) => [c.source, c.name]));
  return [{ schemaVersion: plan.state.schemaVersion, at: isoUtc(now), added: plan.addedColumns.map((c) => names.get(c.name) ?? c.name) }];
}

/** Changes need a table whose stored columns the new ones extend. */
function checkChanges(name: string, plan: ApplyPlan, before: LakeState | undefined): void {
  if (!before) {
    throw new DqError('snapshotRequired', `The table ${name} has no sync state in the lake, so changes cannot be applied to it.`, {
      hint: 'Take a fresh snapshot of the table (sync it with --resnapshot).',
    });
  }
  const now = lakeColumnsOf(plan.table).map((c, i) => ({ ...plan.table.columns[i], name: c.name }));
  const change = compareColumns(before.columns, now);
  if (change.incompatible.length > 0) {
    throw new DqError('snapshotRequired', `The schema of ${name} changed from version ${before.schemaVersion} to ${plan.table.schemaVersion} in a way that cannot be applied to the rows already synced: ${change.incompatible.join('; ')}.`, {
      hint: `Take a fresh snapshot of the table: dq sync ${plan.table.namespace} ${plan.table.table} --resnapshot.`,
    });
  }
}

/** A snapshot: every record staged, the newest of each key kept (deletes dropped), into dq_out. */
async function stageSnapshot(engine: LakeEngine, plan: ApplyPlan, columns: LakeColumn[], before: LakeState | undefined): Promise<Rewrite> {
  const { table } = plan;
  const loading = loadColumnsOf(table);
  const staged = tableName('memory', table);
  await engine.run(`CREATE SCHEMA IF NOT EXISTS ${schemaName('memory', table.namespace)}`);
  await engine.run(createTableSql('memory', table, loading));
  let rows = 0;
  if (plan.files.length > 0) {
    rows = await engine.run(loadRecordsSql(staged, table, plan.files, loading));
    const [[repeats, deletes]] = await engine.rows(loadedFactsSql(staged, table, loading));
    if (Number(repeats) > 0) rows -= await engine.run(supersededSql(staged, table, loading));
    if (Number(deletes) > 0) rows -= await engine.run(deletedSql(staged, loading));
  }
  // the staged table is sorted into the files as it is: no copy of it in between
  return { upserted: rows, deleted: 0, replaced: before?.files ?? [], rows: { sql: selectStagedSql(columns, staged), drop: staged } };
}

/**
 * Changes: the records staged, the newest of each key kept; the files that hold a changed key
 * (and, when compacting, the small files) read back without those keys into dq_out, with every upsert.
 */
async function stageChanges(ctx: LakeApplyContext, engine: LakeEngine, plan: ApplyPlan, columns: LakeColumn[], before: LakeState, dir: string): Promise<Rewrite> {
  const { table, signal } = plan;
  const loading = loadColumnsOf(table);
  await engine.run(createChangesTableSql(table, loading));
  if (plan.files.length > 0) {
    await engine.run(loadRecordsSql(CHANGES_TABLE, table, plan.files, loading));
    const [[repeats]] = await engine.rows(loadedFactsSql(CHANGES_TABLE, table, loading));
    if (Number(repeats) > 0) await engine.run(supersededSql(CHANGES_TABLE, table, loading));
  }
  const keys = columns.filter((c) => c.key);
  const renamed = keys.map((c) => `${quoteIdent(c.source)} AS ${quoteIdent(c.name)}`).join(', ');
  await engine.run(`CREATE OR REPLACE TEMPORARY TABLE ${CHANGED_TABLE} AS SELECT ${renamed}, coalesce(${quoteIdent(loading.action)} = 'D', false) AS dq_deleted FROM ${CHANGES_TABLE}`);
  const [[upserts]] = await engine.rows(`SELECT count(*) FROM ${CHANGED_TABLE} WHERE NOT dq_deleted`);

  // the files whose range holds a changed key, then those whose keys really hold one
  const candidates = (await filesInRange(engine, columns, before.files)).map((i) => before.files[i]);
  const keyFiles = new Map<string, LakeFile>();
  for (const [i, f] of candidates.entries()) {
    const local = path.join(dir, `keys-${i}.parquet`);
    const companion = ctx.layout.keysOf(f.key);
    // a file without its companion (written by hand, or the companion lost) is read whole
    const found = (await download(ctx.store, companion, local, dir, signal, true)) || (await download(ctx.store, f.key, local, dir, signal));
    if (found) keyFiles.set(local, f);
  }
  const holding = await filesHoldingChanges(engine, columns, [...keyFiles.keys()]);
  for (const local of keyFiles.keys()) await rm(local, { force: true });
  const replaced = [...keyFiles].filter(([local]) => holding.has(local)).map(([, f]) => f);
  const small = before.files.filter((f) => f.bytes < ctx.tuning.smallFileBytes && !replaced.includes(f));
  if (ctx.compact || small.length + 1 > ctx.tuning.smallFilesToCompact) {
    if (small.length > 1 || ctx.compact) ctx.logger.info(`${table.namespace}.${table.table}: compacting ${small.length + replaced.length} file(s).`);
    replaced.push(...small);
  }

  await engine.run(createOutSql(columns));
  let deleted = 0;
  // one file at a time: the work folder holds one file being written again, not all of them
  for (const [i, f] of replaced.entries()) {
    const local = path.join(dir, `old-${i}.parquet`);
    await download(ctx.store, f.key, local, dir, signal);
    const old = readParquetSql([local]);
    await engine.run(`INSERT INTO ${OUT_TABLE} BY NAME SELECT k.* FROM ${old} k ANTI JOIN ${CHANGED_TABLE} c ON ${keysMatch(columns, 'k', 'c')}`);
    const [[gone]] = await engine.rows(`SELECT count(*) FROM ${old} k SEMI JOIN (SELECT * FROM ${CHANGED_TABLE} WHERE dq_deleted) c ON ${keysMatch(columns, 'k', 'c')}`);
    deleted += Number(gone);
    await rm(local, { force: true });
  }
  await engine.run(insertStagedSql(columns, CHANGES_TABLE, `${quoteIdent(loading.action)} IS DISTINCT FROM 'D'`));
  await engine.run(`DROP TABLE ${CHANGES_TABLE}`);
  return { upserted: Number(upserts), deleted, replaced, rows: { sql: `SELECT * FROM ${OUT_TABLE}`, drop: OUT_TABLE } };
}

/** Downloads an object to a local file; false when it does not exist and `optional`. */
async function download(store: ObjectStore, key: string, file: string, dir: string, signal?: AbortSignal, optional = false): Promise<boolean> {
  let stream;
  try {
    stream = await store.getStream(key, signal);
  } catch (err) {
    if (optional && (err as DqError).kind === 'notFound') return false;
    throw storeFailure(err, `${store.root}/${key}`);
  }
  try {
    await pipeline(stream, createWriteStream(file, { mode: 0o600 }), { signal });
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && code !== 'ECONNRESET') throw asLocalIoError(err, dir, 'write a Parquet file being rewritten');
    throw storeFailure(err, `${store.root}/${key}`);
  }
}
