// How the editor's sync client and the sync host process talk. The editor never loads DuckDB
// or a database driver itself: each run (or reading of the meta table) is one child process,
// which gets one request, sends progress and log lines, then its answer, and ends. Types only:
// the client and the host both import this file, and it imports neither `vscode` nor DuckDB.

import type { ProxyOptions } from '../client/types';
import type { Operation } from '../core/contract';
import type { SyncProgress, TableSyncReport } from './syncReport';
import type { SyncState } from './syncTarget';

/**
 * A connection as the host builds its client from. The client ID and secret travel in this
 * IPC message only: never on the command line, in the environment or in a log line.
 */
export interface SyncServiceConfig {
  baseUrl: string;
  dataPrefix: string;
  scope?: string;
  /**
   * the source the meta table records for this service and credentials (see syncSource.ts):
   * the sample data's fixed name (its emulator has another address each time it starts), or a
   * connection's base URL, data prefix, scope and client tag; when missing, the host makes the
   * latter from the fields here
   */
  source?: string;
  allowInsecureHttp: boolean;
  clientId: string;
  clientSecret: string;
  /** the editor's proxy settings; `{useEnvironment: false}` for the local sample emulator */
  proxy: ProxyOptions;
  /** per-operation calls a minute, from the editor's settings */
  rateLimits: Partial<Record<Operation, number>>;
  userAgent: string;
}

export interface SyncRunRequest {
  service: SyncServiceConfig;
  /** the target as `dq sync --to` takes it: a DuckDB file path, `duckdb:PATH` or a `postgresql://` URL without a password */
  target: string;
  namespace: string;
  /** the tables to sync, or every table of the namespace */
  tables: string[] | 'all';
  /** a fresh snapshot instead of the changes since the stored point */
  resnapshot: boolean;
  /** where the run keeps its downloads while it applies them (removed afterwards) */
  workDir: string;
}

/** A meta-table row without the schema it keeps (which the editor does not need). */
export type SyncStateSummary = Omit<SyncState, 'schema'>;

/** A failure of the whole request (not of one table: those are in the reports). */
export interface SyncFailure {
  /** a DqError kind */
  kind: string;
  message: string;
  hint?: string;
  uuid?: string;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Client to host: one request, then perhaps a cancel. */
export type ToSyncHost = { type: 'run'; request: SyncRunRequest } | { type: 'listStates'; target: string } | { type: 'cancel' };

/** Host to client: progress and log lines, then exactly one of reports, states or error. */
export type FromSyncHost =
  | { type: 'progress'; progress: SyncProgress }
  | { type: 'log'; level: LogLevel; message: string }
  | { type: 'reports'; reports: TableSyncReport[] }
  | { type: 'states'; states: SyncStateSummary[] }
  | { type: 'error'; error: SyncFailure };
