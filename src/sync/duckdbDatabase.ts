// The DuckDB database files the sync target opens: one instance per file in this process (two
// instances on one file would not see each other's writes), shared by the targets open on it
// and closed with the last of them. Opening waits while another process holds the file (see
// duckdbTableLock.ts), sets the session's time zone to UTC and creates (or brings up to date)
// the meta table; opened read-only it creates nothing, not even the file. Writes take turns:
// one transaction at a time, each using every core. DuckDB's native library is loaded on
// first use, so dq commands that never sync to DuckDB never load it.

import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

import * as path from 'node:path';
import { DqError, isDqError } from '../client/errors';
import { loadDuckDb, type DuckDbModule } from '../engine/duckdbModule';
import { isEngineError } from '../engine/engineErrors';
import { duckdbFailure } from './duckdbErrors';
import { prepareMetaTable } from './duckdbMetaTable';
import { whileFileHeld, type DuckdbLockOptions } from './duckdbTableLock';
import { makeFolder } from '../core/makeFolder';

export interface OpenDatabase {
  instance: DuckDBInstance;
  /** the file's catalog name, which qualifies every table (see duckdbSql.ts) */
  catalog: string;
  readOnly: boolean;
  users: number;
  /** writes take turns: the tail of the queue */
  writing: Promise<unknown>;
}

export interface DuckdbOpenOptions extends DuckdbLockOptions {
  /** only read: never creates the file, and lets other readers in */
  readOnly: boolean;
}

/** The open instance of each file in this process. */
const databases = new Map<string, Promise<OpenDatabase>>();

/**
 * The file's instance, opened now or shared with the targets already open on it. Fails
 * `notFound` when opened read-only and there is no file yet.
 */
export async function openDatabase(file: string, o: DuckdbOpenOptions, signal?: AbortSignal): Promise<OpenDatabase> {
  let shared = databases.get(file);
  if (!shared) {
    shared = openFile(file, o, signal);
    databases.set(file, shared);
    shared.catch(() => databases.delete(file));
  }
  const database = await shared;
  if (database.readOnly && !o.readOnly) {
    throw new DqError('usage', `The sync database ${file} is open read-only in this program.`, { hint: 'Close what reads it, then sync again.' });
  }
  database.users++;
  return database;
}

/** Lets go of the file's instance once its writes are done; the last user closes it. */
export async function closeDatabase(file: string, database: OpenDatabase): Promise<void> {
  await database.writing;
  if (--database.users > 0) return;
  databases.delete(file);
  database.instance.closeSync();
}

/** Runs a write when the writes before it are done. */
export function inTurn<T>(database: OpenDatabase, work: () => Promise<T>): Promise<T> {
  const turn = database.writing.then(work);
  database.writing = turn.catch(() => undefined);
  return turn;
}

/** Runs work on a connection of its own, closed after; a failure is read as one on `what`. */
export async function withConnection<T>(database: OpenDatabase, file: string, what: string, work: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  const conn = await database.instance.connect();
  try {
    return await work(conn);
  } catch (err) {
    throw duckdbFailure(err, file, what);
  } finally {
    conn.closeSync();
  }
}

/** Opens the file, waiting a bounded time while another process holds it; creates (or brings up to date) the meta table. */
async function openFile(file: string, o: DuckdbOpenOptions, signal?: AbortSignal): Promise<OpenDatabase> {
  const duckdb = duckdbModule();
  if (!o.readOnly) await makeFolder(path.dirname(file), 0o700);
  // insertion order kept (DuckDB's default, stated): a loaded record's rowid is its place in the files (duckdbSql.ts)
  const options: Record<string, string> = { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false', preserve_insertion_order: 'true' };
  if (o.readOnly) options.access_mode = 'READ_ONLY';
  const attempt = async (): Promise<OpenDatabase> => {
    const instance = await duckdb.DuckDBInstance.create(file, options);
    let catalog: string;
    try {
      const conn = await instance.connect();
      try {
        await conn.run("SET GLOBAL TimeZone = 'UTC'");
        catalog = String((await conn.runAndReadAll('SELECT current_database()')).getRowsJson()[0][0]);
        if (!o.readOnly) await prepareMetaTable(conn, catalog);
      } finally {
        conn.closeSync();
      }
    } catch (err) {
      instance.closeSync();
      throw err;
    }
    return { instance, catalog, readOnly: o.readOnly, users: 0, writing: Promise.resolve() };
  };
  try {
    return await whileFileHeld(file, attempt, o, signal);
  } catch (err) {
    if (isDqError(err)) throw err;
    const message = err instanceof Error ? err.message : String(err);
    if (o.readOnly && /No such file|does not exist|Cannot open database/i.test(message)) {
      throw new DqError('notFound', `There is no sync database at ${file} yet.`);
    }
    throw duckdbFailure(err, file, 'the database');
  }
}

/** The DuckDB module, loaded on first use; without a native library for this platform, a DqError saying what to do instead. */
function duckdbModule(): DuckDbModule {
  try {
    return loadDuckDb();
  } catch (err) {
    throw new DqError('io', isEngineError(err) ? err.message : String(err), {
      hint: 'Install a build of this tool for this platform, or sync to PostgreSQL (--to postgresql://...).',
    });
  }
}
