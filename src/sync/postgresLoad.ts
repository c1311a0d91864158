// How one run's records reach the table, inside the apply's transaction (postgresApply.ts),
// fastest way first:
// - a snapshot COPYs its records as typed rows straight into the emptied table (which gets its
//   primary key afterwards, in one sort). A key seen twice (as the encoder's filter of keys
//   tells early, or the key refuses at the end) or a delete among the records: back to the
//   savepoint, and the files are read again into a typed staging table with each record's
//   number, time and action, from which the last record of each key goes into the table;
// - a change set always goes through the typed staging table, then merges (postgresChanges.ts);
// - the typed rows are binary (PostgreSQL parses nothing); a value the binary form does not
//   take in its plain form starts the load again with text rows (postgresRows.ts);
// - a record the typed rows cannot hold exactly as the jsonb load would store it, or a typed
//   row PostgreSQL refuses as data: back to the savepoint, and the files are loaded the general
//   way, as jsonb records into a staging table from which every column is read
//   (postgresSnapshot.ts, postgresChanges.ts). What that load stores, or the error it gives,
//   is what the run ends with.
// Everything happens under one savepoint of the run's transaction, so a load given up leaves
// nothing behind.

import type { Logger } from '../core/logger';
import { NeedsGeneralLoad } from './jsonRecordScanner';
import { applyChanges } from './postgresChanges';
import type { PostgresQuery, PostgresSession } from './postgresConnection';
import { copyFileToStage } from './postgresCopy';
import type { PostgresMetaTable } from './postgresMetaTable';
import { NeedsMerge, NeedsTextRows, TypedRowEncoder, type RowForm } from './postgresRows';
import { addPrimaryKey, applySnapshot, emptyTable, type PostgresStepContext } from './postgresSnapshot';
import { CREATE_STAGE } from './postgresSql';
import { copyFilesTyped } from './postgresTypedCopy';
import { copyIntoTable, copyIntoTypedStage, createTypedStage, insertSnapshotFromTyped } from './postgresTypedSql';
import type { ApplyPlan } from './syncTarget';

export interface PostgresLoadContext {
  /** the lock's session, in the apply's transaction */
  session: PostgresSession;
  /** runs a statement of the apply (refused once the run is aborted) */
  q: PostgresQuery;
  plan: ApplyPlan;
  meta: PostgresMetaTable;
  logger: Logger;
  /** the target as shown, for messages */
  label: string;
}

export interface Loaded {
  /** records read from the files */
  records: number;
  upserted: number;
  deleted: number;
  /** the rows the table holds now, when the load knows it without counting */
  rows?: number;
}

const SAVEPOINT = 'dq_load';
const FORMS: readonly RowForm[] = ['binary', 'text'];

/** What one load learned of its records on the way, for the next way it tries. */
interface Attempt {
  name: string;
  /** a snapshot needs the last record of each key picked (a key seen twice, or a delete) */
  merge: boolean;
}

/** Loads the plan's files into its table, typed when it can; all of it or nothing (the caller rolls back). */
export async function loadRecords(ctx: PostgresLoadContext): Promise<Loaded> {
  const { q, plan, logger } = ctx;
  const attempt: Attempt = { name: `${plan.table.namespace}.${plan.table.table}`, merge: false };
  await q(`SAVEPOINT ${SAVEPOINT}`);
  for (const form of FORMS) {
    try {
      const loaded = plan.kind === 'snapshot' ? await snapshotTyped(ctx, attempt, form) : await changesTyped(ctx, attempt, form);
      await q(`RELEASE SAVEPOINT ${SAVEPOINT}`);
      return loaded;
    } catch (err) {
      if (plan.signal?.aborted) throw err;
      if (err instanceof NeedsTextRows && form === 'binary') {
        await q(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
        logger.info(`postgres: ${attempt.name}: ${err.why}; loading the records again as text rows`);
        continue;
      }
      if (!needsGeneralLoad(err)) throw err;
      await q(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
      logger.info(`postgres: ${attempt.name}: ${whyGeneral(err)}; loading the records again as jsonb`);
      break;
    }
  }
  return generalLoad(ctx, attempt.name);
}

/** A snapshot straight into the table; with the last record of each key picked first when it needs that. */
async function snapshotTyped(ctx: PostgresLoadContext, attempt: Attempt, form: RowForm): Promise<Loaded> {
  const { session, q, plan, logger } = ctx;
  const step = stepContext(ctx);
  if (!attempt.merge) {
    const key = await emptyTable(step);
    const encoder = new TypedRowEncoder(plan.table.columns, { form, withOrder: false, refuseDeletes: true });
    try {
      const read = (i: number): void => logger.debug(`postgres: ${attempt.name}: read file ${i + 1} of ${plan.files.length} into the table as ${form} rows (${encoder.records} so far)`);
      const rows = await copyFilesTyped(session.client, plan.files, attempt.name, copyIntoTable(plan.table, form), encoder, read, plan.signal);
      if (key) {
        await addPrimaryKey(step, key);
        logger.debug(`postgres: ${attempt.name}: primary key added`);
      }
      return { records: encoder.records, upserted: rows, deleted: 0, rows };
    } catch (err) {
      if (plan.signal?.aborted || !(err instanceof NeedsMerge || sqlState(err) === UNIQUE_VIOLATION)) throw err;
      await q(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
      attempt.merge = true;
      const why = err instanceof NeedsMerge ? `the snapshot's ${err.why}` : 'the snapshot holds a key more than once';
      logger.info(`postgres: ${attempt.name}: ${why}; loading it again to keep the last record of each key`);
    }
  }
  const key = await emptyTable(step);
  const records = await stageTyped(ctx, attempt, form);
  const upserted = (await q(insertSnapshotFromTyped(plan.table))).rowCount ?? 0;
  await addPrimaryKey(step, key);
  return { records, upserted, deleted: 0, rows: upserted };
}

/** A change set through the typed staging table. */
async function changesTyped(ctx: PostgresLoadContext, attempt: Attempt, form: RowForm): Promise<Loaded> {
  const { q, plan, label } = ctx;
  const records = await stageTyped(ctx, attempt, form);
  const { upserted, deleted } = await applyChanges({ q, table: plan.table, addedColumns: plan.addedColumns, label, typed: true });
  return { records, upserted, deleted };
}

/** Copies every file into the typed staging table; returns the records. */
async function stageTyped(ctx: PostgresLoadContext, attempt: Attempt, form: RowForm): Promise<number> {
  const { session, q, plan, logger } = ctx;
  await q(createTypedStage(plan.table));
  const encoder = new TypedRowEncoder(plan.table.columns, { form, withOrder: true, refuseDeletes: false });
  const read = (i: number): void => logger.debug(`postgres: ${attempt.name}: read file ${i + 1} of ${plan.files.length} into the staging table as ${form} rows (${encoder.records} so far)`);
  await copyFilesTyped(session.client, plan.files, attempt.name, copyIntoTypedStage(plan.table, form), encoder, read, plan.signal);
  return encoder.records;
}

/** The general load: every record as jsonb into a staging table, every column read from there. */
async function generalLoad(ctx: PostgresLoadContext, name: string): Promise<Loaded> {
  const { session, q, plan, logger, label } = ctx;
  await q(CREATE_STAGE);
  let records = 0;
  for (const [i, file] of plan.files.entries()) {
    records += await copyFileToStage(session.client, file, name, plan.signal);
    logger.debug(`postgres: ${name}: staged file ${i + 1} of ${plan.files.length} (${records} records so far)`);
  }
  if (plan.kind === 'snapshot') return { records, upserted: await applySnapshot(stepContext(ctx)), deleted: 0 };
  return { records, ...(await applyChanges({ q, table: plan.table, addedColumns: plan.addedColumns, label })) };
}

function stepContext(ctx: PostgresLoadContext): PostgresStepContext {
  return { session: ctx.session, q: ctx.q, table: ctx.plan.table, meta: ctx.meta, logger: ctx.logger };
}

const UNIQUE_VIOLATION = '23505';

function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * What the jsonb load may store differently, or refuse as the run's answer: a record the typed
 * rows do not take, or a typed row PostgreSQL refused as data (class 22, data exception; class
 * 23, a key missing or seen twice). The jsonb load then gives the table, or the error, a run
 * ends with.
 */
function needsGeneralLoad(err: unknown): boolean {
  if (err instanceof NeedsGeneralLoad) return true;
  const state = sqlState(err);
  return state !== undefined && /^2[23]/.test(state);
}

function whyGeneral(err: unknown): string {
  if (err instanceof NeedsGeneralLoad) return err.why;
  return `PostgreSQL refused a typed row (${sqlState(err)}: ${err instanceof Error ? err.message : String(err)})`;
}
