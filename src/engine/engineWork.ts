// One request the engine serves, and the connection of its own each request runs on, so that
// cancelling one interrupts only its query.

import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { cancelledError, EngineError, toEngineError, type StatementOrigin } from './engineErrors';

/** One request in flight: the connection running its query, so a cancel can interrupt it. */
export interface Work {
  running?: DuckDBConnection;
  cancelled: boolean;
  progress(rows: number): void;
  /** sends a piece of the answer ready before the whole */
  part?(value: unknown): void;
}

/** Runs a task on a connection of its own (`run` of the engine's parts). */
export type RunWork = <T>(work: Work, task: (conn: DuckDBConnection) => Promise<T>, origin?: StatementOrigin) => Promise<T>;

/** `run` over `db`: a failure is judged by where its statement came from (`sql`: the user's). */
export function workRunner(db: DuckDBInstance): RunWork {
  return async <T>(work: Work, task: (conn: DuckDBConnection) => Promise<T>, origin: StatementOrigin = 'files'): Promise<T> => {
    if (work.cancelled) throw cancelledError();
    const conn = await db.connect();
    work.running = conn;
    try {
      if (work.cancelled) throw cancelledError();
      return await task(conn);
    } catch (err) {
      throw toEngineError(err, origin);
    } finally {
      work.running = undefined;
      conn.closeSync();
    }
  };
}

/** A row offset or count: a whole number of 0 or more, else the caller's mistake. */
export function whole(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new EngineError('syntax', `${n} is not a row offset or count: use a whole number of 0 or more.`);
  return n;
}
