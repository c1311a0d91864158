// The embedded sync target: a DuckDB database file with one schema per namespace and the meta
// table `main.dq_sync_state`. DuckDB lets one process open a file read-write and then no other
// process can open it at all, so the file itself is the lock between processes: a sync holds
// it from open() to close(), its whole run, and a second sync (or a viewer) warns that it waits,
// waits a bounded time, then fails naming the process that holds it.
// Inside one process, a table is applied by one run at a time, and applies take turns (one
// transaction at a time, each using every core). Each apply is one transaction: the table's DDL,
// its rows and its meta row commit together or not at all, whether the process is interrupted,
// killed, or the disk fills. The result files are read where they lie, still compressed; only
// a file DuckDB refuses for a lone surrogate escape (half an emoji a truncation cut off) is
// copied without it (see jsonEscapes.ts), next to itself, and the apply tried again.

import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { constants as zlib, createGzip, createGunzip } from 'node:zlib';
import { DqError, isDqError } from '../client/errors';
import { systemClock, type Clock } from '../core/clock';
import { isGzipMagic, type JsonSchema } from '../core/contract';
import { isoUtc } from '../core/isoTime';
import { nullLogger, type Logger } from '../core/logger';
import {
  addColumnSql,
  addSourceColumnSql,
  adoptSourceSql,
  CHANGES_TABLE,
  createMetaTableSql,
  createTableSql,
  deleteChangedSql,
  insertSnapshotSql,
  metaTable,
  schemaName,
  selectStatesSql,
  stageChangesSql,
  tableName,
  upsertChangedSql,
  upsertStateSql,
} from './duckdbSql';
import { JsonEscapeFilter, recordTooLong } from './jsonEscapes';
import type { ApplyPlan, ApplyResult, SyncedTable, SyncState, SyncTarget } from './syncTarget';
import { checkColumnNames, tableKey } from './targetNames';

export interface DuckdbTargetOptions {
  /** the database file; its folder is created when missing */
  path: string;
  logger?: Logger;
  clock?: Clock;
  /** how long to wait for a file or table another sync holds (default 30 s) */
  lockWaitMs?: number;
  /** only read (dq sync-status): never creates the file, and lets other readers in */
  readOnly?: boolean;
}

export const DEFAULT_LOCK_WAIT_MS = 30_000;
const LOCK_RETRY_MS = 500;

interface OpenDatabase {
  instance: DuckDBInstance;
  /** the file's catalog name, which qualifies every table (see duckdbSql.ts) */
  catalog: string;
  readOnly: boolean;
  users: number;
  /** applies take turns: the tail of the queue */
  applying: Promise<unknown>;
}

/** One instance per file in this process (two instances on one file would not see each other's writes). */
const databases = new Map<string, Promise<OpenDatabase>>();
/** Tables being synced in this process, by file and table: resolves when released. */
const heldTables = new Map<string, Promise<void>>();

export class DuckdbTarget implements SyncTarget {
  readonly label: string;
  readonly namingRule = 'DuckDB does not tell upper from lower case apart in names';
  private readonly file: string;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly lockWaitMs: number;
  private readonly readOnly: boolean;
  private database?: OpenDatabase;
  private missing = false;

  constructor(options: DuckdbTargetOptions) {
    this.file = path.resolve(options.path);
    this.label = this.file;
    this.logger = options.logger ?? nullLogger;
    this.clock = options.clock ?? systemClock;
    this.lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
    this.readOnly = options.readOnly === true;
  }

  async open(signal?: AbortSignal): Promise<void> {
    if (this.database || this.missing) return;
    let shared = databases.get(this.file);
    if (!shared) {
      shared = this.openFile(signal);
      databases.set(this.file, shared);
      shared.catch(() => databases.delete(this.file));
    }
    let database: OpenDatabase;
    try {
      database = await shared;
    } catch (err) {
      if (this.readOnly && isDqError(err) && err.kind === 'notFound') {
        this.missing = true; // nothing synced yet: an empty list, and no file created
        return;
      }
      throw err;
    }
    if (database.readOnly && !this.readOnly) {
      throw new DqError('usage', `The sync database ${this.file} is open read-only in this program.`, { hint: 'Close what reads it, then sync again.' });
    }
    database.users++;
    this.database = database;
  }

  /** DuckDB folds ASCII letters only: `T1` is `t1`, `É` stays apart from `é`. */
  nameKey(name: string): string {
    return name.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
  }

  async lockTable(namespace: string, table: string, signal?: AbortSignal): Promise<() => Promise<void>> {
    const key = `${this.file}\u0000${tableKey(this, namespace, table)}`;
    const deadline = this.clock.now() + this.lockWaitMs;
    let told = false;
    for (let held = heldTables.get(key); held; held = heldTables.get(key)) {
      const left = deadline - this.clock.now();
      if (left <= 0) {
        throw new DqError('io', `Another sync in this program is still applying ${namespace}.${table} to ${this.file}.`, {
          hint: 'Wait for it to finish, then sync the table again.',
        });
      }
      if (!told) this.logger.warn(`waiting up to ${waitText(left)} for ${namespace}.${table} in ${this.file}: another sync in this program is applying it.`);
      told = true;
      await this.waitFor(held, Math.min(left, LOCK_RETRY_MS * 10), signal);
    }
    let release!: () => void;
    heldTables.set(key, new Promise<void>((resolve) => (release = resolve)));
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      heldTables.delete(key);
      release();
    };
  }

  async readState(namespace: string, table: string): Promise<SyncState | undefined> {
    const states = await this.states('WHERE namespace = $1 AND "table" = $2', [namespace, table]);
    return states[0];
  }

  listStates(): Promise<SyncState[]> {
    return this.states('ORDER BY namespace, "table"', []);
  }

  async syncedTables(): Promise<SyncedTable[]> {
    if (this.missing) return [];
    const database = this.opened();
    const conn = await database.instance.connect();
    try {
      if ((await metaColumns(conn)).size === 0) return [];
      const reader = await conn.runAndReadAll(`SELECT namespace, "table" FROM ${metaTable(database.catalog)}`);
      return reader.getRowsJson().map(([namespace, table]) => ({ namespace: String(namespace), table: String(table) }));
    } catch (err) {
      throw this.failure(err, 'the sync state');
    } finally {
      conn.closeSync();
    }
  }

  async hasTable(namespace: string, table: string): Promise<boolean> {
    if (this.missing) return false;
    const conn = await this.opened().instance.connect();
    try {
      return await tableExists(conn, namespace, table);
    } catch (err) {
      throw this.failure(err, `${namespace}.${table}`);
    } finally {
      conn.closeSync();
    }
  }

  adoptSource(namespace: string, table: string, source: string, replacing?: string): Promise<void> {
    const database = this.opened();
    if (database.readOnly) return Promise.resolve();
    // in turn with the applies, which write the meta table too
    const turn = database.applying.then(async () => {
      const conn = await database.instance.connect();
      try {
        await conn.run(adoptSourceSql(database.catalog), [namespace, table, source, replacing ?? null]);
      } catch (err) {
        throw this.failure(err, 'the sync state');
      } finally {
        conn.closeSync();
      }
    });
    database.applying = turn.catch(() => undefined);
    return turn;
  }

  apply(plan: ApplyPlan): Promise<ApplyResult> {
    checkColumnNames(this, plan.table);
    const database = this.opened();
    if (database.readOnly) throw new DqError('usage', `The sync database ${this.file} was opened read-only.`);
    const turn = database.applying.then(() => this.applyRepairing(database, plan));
    database.applying = turn.catch(() => undefined);
    return turn;
  }

  /** Applies the plan; when DuckDB refuses a lone surrogate escape in a file, applies copies without it. */
  private async applyRepairing(database: OpenDatabase, plan: ApplyPlan): Promise<ApplyResult> {
    try {
      return await this.applyNow(database, plan);
    } catch (err) {
      const cause = isDqError(err) && err.kind === 'invalidResponse' && err.cause instanceof Error ? err.cause.message : '';
      if (!/surrogate/i.test(cause)) throw err;
      this.logger.info(`${plan.table.namespace}.${plan.table.table}: a result file holds a lone surrogate escape (half an emoji, cut off), which DuckDB cannot read; loading a copy without it.`);
      const copies = plan.files.map((file) => `${file}.cleaned.jsonl.gz`);
      try {
        for (const [i, file] of plan.files.entries()) await copyWithoutBadEscapes(file, copies[i], `${plan.table.namespace}.${plan.table.table}`, plan.signal);
        return await this.applyNow(database, { ...plan, files: copies });
      } finally {
        await Promise.all(copies.map((copy) => rm(copy, { force: true })));
      }
    }
  }

  async close(): Promise<void> {
    const database = this.database;
    if (!database) return;
    this.database = undefined;
    await database.applying;
    if (--database.users > 0) return;
    databases.delete(this.file);
    database.instance.closeSync();
  }

  private async applyNow(database: OpenDatabase, plan: ApplyPlan): Promise<ApplyResult> {
    const { table, files, signal } = plan;
    const { catalog } = database;
    const conn = await database.instance.connect();
    const interrupt = (): void => conn.interrupt();
    signal?.addEventListener('abort', interrupt);
    let open = false;
    const run = async (sql: string, values?: (string | number | null)[]): Promise<number> => {
      if (signal?.aborted) throw cancelled(`${table.namespace}.${table.table}`);
      const result = await conn.run(sql, values);
      return Number(result.rowsChanged);
    };
    try {
      await run('BEGIN TRANSACTION');
      open = true;
      await run(`CREATE SCHEMA IF NOT EXISTS ${schemaName(catalog, table.namespace)}`);
      let upserted = 0;
      let deleted = 0;
      if (plan.kind === 'snapshot') {
        await run(`DROP TABLE IF EXISTS ${tableName(catalog, table)}`);
        await run(createTableSql(catalog, table));
        if (files.length > 0) upserted = await run(insertSnapshotSql(catalog, table, files));
      } else {
        if (!(await tableExists(conn, table.namespace, table.table))) {
          throw new DqError('snapshotRequired', `The table ${table.namespace}.${table.table} is missing from ${this.file}, though its last sync is recorded there.`, {
            hint: 'Take a fresh snapshot of the table (sync it with --resnapshot).',
          });
        }
        for (const column of plan.addedColumns) await run(addColumnSql(catalog, table, column));
        if (files.length > 0) {
          await run(stageChangesSql(table, files));
          deleted = await run(deleteChangedSql(catalog, table));
          upserted = await run(upsertChangedSql(catalog, table));
          await run(`DROP TABLE ${CHANGES_TABLE}`);
        }
      }
      const rows = await countRows(conn, catalog, table.namespace, table.table);
      const s = plan.state;
      await run(upsertStateSql(catalog), [s.namespace, s.table, s.point, s.schemaVersion, JSON.stringify(s.schema), rows, s.ranAt, s.source ?? null]);
      await run('COMMIT');
      open = false;
      return { upserted, deleted, rows };
    } catch (err) {
      if (open) await conn.run('ROLLBACK').catch(() => undefined);
      throw this.failure(err, `${table.namespace}.${table.table}`, signal);
    } finally {
      signal?.removeEventListener('abort', interrupt);
      conn.closeSync();
    }
  }

  private async states(where: string, values: string[]): Promise<SyncState[]> {
    if (this.missing) return [];
    const database = this.opened();
    const conn = await database.instance.connect();
    try {
      const columns = await metaColumns(conn);
      if (columns.size === 0) return [];
      const reader = await conn.runAndReadAll(`${selectStatesSql(database.catalog, columns.has('source'))} ${where}`, values);
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
    } catch (err) {
      throw this.failure(err, 'the sync state');
    } finally {
      conn.closeSync();
    }
  }

  private opened(): OpenDatabase {
    if (!this.database) throw new DqError('usage', `The sync database ${this.file} is not open.`, { hint: 'Call open() first.' });
    return this.database;
  }

  /** Opens the file, waiting a bounded time while another process holds it; creates (or brings up to date) the meta table. */
  private async openFile(signal?: AbortSignal): Promise<OpenDatabase> {
    const duckdb = loadDuckDb();
    if (!this.readOnly) await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const options: Record<string, string> = { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' };
    if (this.readOnly) options.access_mode = 'READ_ONLY';
    const deadline = this.clock.now() + this.lockWaitMs;
    let told = false;
    for (;;) {
      try {
        const instance = await duckdb.DuckDBInstance.create(this.file, options);
        let catalog: string;
        try {
          const conn = await instance.connect();
          try {
            await conn.run("SET GLOBAL TimeZone = 'UTC'");
            catalog = String((await conn.runAndReadAll('SELECT current_database()')).getRowsJson()[0][0]);
            if (!this.readOnly) {
              await conn.run(createMetaTableSql(catalog));
              await conn.run(addSourceColumnSql(catalog));
            }
          } finally {
            conn.closeSync();
          }
        } catch (err) {
          instance.closeSync();
          throw err;
        }
        return { instance, catalog, readOnly: this.readOnly, users: 0, applying: Promise.resolve() };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const holder = /Conflicting lock is held in (.+?)(?: \(PID (\d+)\))?(?:\.|$)/m.exec(message);
        if (this.readOnly && /No such file|does not exist|Cannot open database/i.test(message) && !holder) {
          throw new DqError('notFound', `There is no sync database at ${this.file} yet.`);
        }
        if (!holder) throw this.failure(err, 'the database');
        const who = holder[2] ? `process ${holder[2]} (${holder[1]})` : holder[1];
        const left = deadline - this.clock.now();
        if (left <= 0) {
          throw new DqError('io', `The sync database ${this.file} is in use by ${who}; waited ${Math.round(this.lockWaitMs / 1000)} s for it.`, {
            hint: 'Another sync may still be running, or a program has the file open (a SQL console on it): wait for it or close it, then run again.',
          });
        }
        // a warning, shown without DQ_DEBUG: otherwise nothing would say why nothing happens
        if (!told) this.logger.warn(`waiting up to ${waitText(left)} for the sync database ${this.file}: it is in use by ${who}.`);
        told = true;
        await this.sleep(Math.min(left, LOCK_RETRY_MS), signal);
      }
    }
  }

  private async waitFor(held: Promise<void>, ms: number, signal?: AbortSignal): Promise<void> {
    const timer = new AbortController();
    const stop = signal ? AbortSignal.any([signal, timer.signal]) : timer.signal;
    try {
      await Promise.race([held, this.clock.sleep(ms, stop).catch(() => undefined)]);
    } finally {
      timer.abort();
    }
    if (signal?.aborted) throw new DqError('cancelled', 'The sync was cancelled while waiting for a table another sync holds.');
  }

  private async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    try {
      await this.clock.sleep(ms, signal);
    } catch {
      throw new DqError('cancelled', `The sync was cancelled while waiting for ${this.file}.`);
    }
  }

  /** A DuckDB failure as a DqError a person can act on; the database stays at its last complete run. */
  private failure(err: unknown, what: string, signal?: AbortSignal): DqError {
    if (isDqError(err)) return err;
    const raw = err instanceof Error ? err.message : String(err);
    const first = raw.split('\n')[0].trim();
    const kind = /^([A-Za-z ]+?) Error:/.exec(first)?.[1]?.toLowerCase() ?? '';
    if (kind === 'interrupt' || signal?.aborted) return cancelled(what);
    const code = (err as { code?: unknown }).code;
    if (/no space left|disk is full|ENOSPC|could not write|could not truncate|file too large|EFBIG|read-only file system|permission denied/i.test(raw) || typeof code === 'string') {
      return new DqError('io', `Writing ${what} to ${this.file} failed: ${first}`, {
        hint: 'Free disk space or choose a folder you can write (--to); the database stays at its last complete sync.',
        cause: err,
      });
    }
    if (kind === 'out of memory') {
      return new DqError('io', `DuckDB ran out of memory applying ${what}: ${first}`, { hint: 'Close other programs or sync fewer tables at once.', cause: err });
    }
    const tooLong = /"maximum_object_size" of \d+ bytes exceeded while reading file "(.*?)"/.exec(first);
    if (tooLong) return recordTooLong(what, tooLong[1]);
    if (kind === 'invalid input' || kind === 'conversion' || kind === 'constraint') {
      return new DqError('invalidResponse', `The result files of ${what} could not be loaded: ${first}`, {
        hint: 'Sync the table again; if it fails the same way, report the table and its schema version to the provider.',
        cause: err,
      });
    }
    return new DqError('io', `The sync database ${this.file} failed on ${what}: ${first}`, {
      hint: 'Check the file and the folder it is in; the database stays at its last complete sync.',
      cause: err,
    });
  }
}

/** Writes `file` (gzip or plain JSONL) to `copy` as gzip JSONL without the escapes no database stores. */
async function copyWithoutBadEscapes(file: string, copy: string, what: string, signal?: AbortSignal): Promise<void> {
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
    if (signal?.aborted) throw cancelled(what);
    if (isDqError(err)) throw err; // a line the filter refuses
    throw new DqError('io', `Copying ${file} without its lone surrogate escapes failed: ${err instanceof Error ? err.message : String(err)}`, {
      hint: 'Free disk space in the work folder (--work-dir) and sync the table again.',
      cause: err,
    });
  }
}

/** A wait as a person reads it: `30 s`, `1.5 s`. */
function waitText(ms: number): string {
  return ms >= 10_000 || ms % 1000 === 0 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

function cancelled(what: string): DqError {
  return new DqError('cancelled', `The sync of ${what} was cancelled; its table and sync state stay as they were.`);
}

async function tableExists(conn: DuckDBConnection, schema: string, table: string): Promise<boolean> {
  const reader = await conn.runAndReadAll(
    "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2",
    [schema, table],
  );
  return Number(reader.getRowsJson()[0][0]) > 0;
}

/** The columns of the meta table, by name; none when there is no meta table (a file opened read-only). */
async function metaColumns(conn: DuckDBConnection): Promise<Set<string>> {
  const reader = await conn.runAndReadAll(
    "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = 'dq_sync_state'",
  );
  return new Set(reader.getRowsJson().map(([name]) => String(name)));
}

async function countRows(conn: DuckDBConnection, catalog: string, namespace: string, table: string): Promise<number> {
  const reader = await conn.runAndReadAll(`SELECT count(*) FROM ${tableName(catalog, { namespace, table })}`);
  return Number(reader.getRowsJson()[0][0]);
}

type DuckDbModule = typeof import('@duckdb/node-api');

/** Loaded on first use, so dq commands that never sync to DuckDB never load the native library. */
function loadDuckDb(): DuckDbModule {
  try {
    return require('@duckdb/node-api') as DuckDbModule;
  } catch (err) {
    const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    throw new DqError('io', `DuckDB has no working native library for ${process.platform}-${process.arch} (${reason}).`, {
      hint: 'Install a build of this tool for this platform, or sync to PostgreSQL (--to postgresql://...).',
    });
  }
}
