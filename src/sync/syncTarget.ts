// What a sync target is to the sync runner: a store (a DuckDB file, a PostgreSQL server) that
// holds one table per service table, `<namespace>.<table>`, and a meta table, `dq_sync_state`,
// with the point each table reached and the service (and credentials) it came from. The runner
// decides what to query and hands a target the downloaded result objects of one job (gzip
// JSONL, as the service sends them, never decompressed on disk); the target applies them
// together with the new meta row, so the meta row never claims a point whose changes are not
// applied. The runner knows targets only through `SyncTarget` below: a new kind of target (a
// MySQL server, Parquet files in an object store) is a module that implements it, and a case in
// `parseTargetSpec` and `createTarget` (targetSpec.ts); the runner stays as it is.

import type { JsonSchema } from '../core/contract';
import type { ReleaseLock } from './targetLock';

/** A column type in the target, mapped from the schema with care (see syncColumns.ts). */
export type TargetType = 'integer' | 'bigint' | 'double' | 'boolean' | 'timestamptz' | 'date' | 'text' | 'json';

export interface TargetColumn {
  /** the column's name in the target table */
  name: string;
  /** where the value sits in a JSONL record: ['key', 'id'], ['value', 'address', 'city'] */
  path: string[];
  type: TargetType;
  /** part of the primary key */
  key: boolean;
}

/** A service table as a target table: its columns (key columns first) and its schema. */
export interface TargetTable {
  namespace: string;
  table: string;
  columns: TargetColumn[];
  schemaVersion: number;
  /** the table's JSON schema as the service gave it, kept in the meta table */
  schema: JsonSchema;
}

/** How a target tells names apart. */
export interface TargetNaming {
  /** the form in which the target compares a name: two names of one key are one table, schema or column there */
  nameKey(name: string): string;
  /** why two names can be one in the target, for messages: `DuckDB does not tell upper from lower case apart` */
  readonly namingRule: string;
  /**
   * why the target cannot take this column name, beyond what no database takes (too long for
   * MySQL, say): `is 70 characters long, ...`; undefined when it can. Optional: most targets take any.
   */
  columnNameProblem?(name: string): string | undefined;
}

/** A service table the meta table records. */
export interface SyncedTable {
  namespace: string;
  table: string;
}

/** One row of `dq_sync_state`. */
export interface SyncState {
  namespace: string;
  table: string;
  /** the point reached: the snapshot's `at` or the last incremental's `until` (ISO) */
  point: string;
  schemaVersion: number;
  schema: JsonSchema;
  /** rows in the target table after the run */
  rows: number;
  /** when the run finished (ISO) */
  ranAt: string;
  /**
   * the service and credentials the rows came from (see syncSource.ts); missing in a row
   * written before sources were recorded (or by a target that cannot record them), which the
   * next sync of the table adopts, as it does a source written before client tags were
   */
  source?: string;
}

/** What one run applies: a whole snapshot (replaces the table) or a set of changes. */
export interface ApplyPlan {
  kind: 'snapshot' | 'changes';
  table: TargetTable;
  /** the job's result objects on disk, gzip JSONL, in the job's order */
  files: string[];
  /** columns added since the stored schema, to add in place before loading (changes only) */
  addedColumns: TargetColumn[];
  /** the meta row to write in the same transaction, of the same table (its `rows` is filled in by the target) */
  state: Omit<SyncState, 'rows'>;
  signal?: AbortSignal;
}

export interface ApplyResult {
  /** rows inserted or updated (a snapshot counts every distinct key it loaded) */
  upserted: number;
  deleted: number;
  /** rows in the table afterwards */
  rows: number;
}

/**
 * A sync target, as the runner uses it. What each kind of target must provide:
 *
 * - **One transaction per table and run.** `apply` makes the table's DDL, its rows and its meta
 *   row (the point reached) visible together or not at all: the meta row is written with the
 *   rows, never before or after them. A store without transactions (files in an object store)
 *   gets the same from writing the meta row last, as the one thing that makes a run visible.
 * - **Kill-safety.** Whatever stops a run (a failure, the abort signal, a lost connection, the
 *   process killed at any moment, a full disk), the table and its meta row stay at the last
 *   complete run, and the next run starts from there. No lock outlives a killed process for
 *   long (a session's end, a file lock of the operating system, or a lease that runs out).
 * - **Names.** `nameKey` and `namingRule` (see `TargetNaming`) say which names the target holds
 *   as one; the runner refuses tables and columns that would collide before any job, and the
 *   target refuses them again in `apply` (`checkColumnNames`), whoever calls it.
 * - **`syncedTables`**: the names the meta table records, cheap, read before the tables are
 *   locked (names that would be one table) and again under each table's lock.
 * - **Locks.** `lockTable` is taken before the table's meta row is read and held until its
 *   apply ends; names of one `nameKey` share one lock, across processes and machines where the
 *   store is shared.
 * - **Failures are `DqError`s** with the kind and hint a person acts on, read from the store's
 *   own errors by the target (the runner never parses them; anything else it reports as `io`):
 *   `cancelled` for an abort, `snapshotRequired` for what only a fresh snapshot mends (changes
 *   for a table that is missing), `auth`, `network` or `io` for the store itself.
 * - **Read-only.** Opened read-only (sync status), a target creates and changes nothing, and a
 *   store never synced to reads as no rows.
 * - `label` never holds a password.
 */
export interface SyncTarget extends TargetNaming {
  /** how the target is shown to a person: a file path, or a URL without its password */
  readonly label: string;
  /**
   * true when `apply` itself reads every gzip file to its end (CRC and length included) and
   * fails, keeping the last complete run, for one that is not whole: the runner then does not
   * read the files through once more before applying them
   */
  readonly checksGzip?: boolean;
  /**
   * Connects; creates the meta table when missing, or adds what an older one lacks. A target
   * opened read-only creates and changes nothing: a missing meta table reads as no rows.
   */
  open(signal?: AbortSignal): Promise<void>;
  /**
   * Takes the lock of one table, so two syncs of the same target never apply the same table
   * at once; names the target holds as one table (of one `nameKey`) share one lock. Waits a
   * bounded time (saying once, as a warning, that it waits), then fails with a message naming
   * the holder where known. The release is safe to call twice.
   */
  lockTable(namespace: string, table: string, signal?: AbortSignal): Promise<ReleaseLock>;
  /** The table's meta row; none for a table never synced. */
  readState(namespace: string, table: string): Promise<SyncState | undefined>;
  /** Every meta row, by namespace and table. */
  listStates(): Promise<SyncState[]>;
  /** The names of the tables the meta table records (without the rest of their rows: cheap). */
  syncedTables(): Promise<SyncedTable[]>;
  /** Whether the table `<namespace>.<table>` exists in the target (a meta row may outlive it). */
  hasTable(namespace: string, table: string): Promise<boolean>;
  /**
   * Records `source` in the table's meta row when that row has none yet, or has exactly
   * `replacing` (the same service's source from before client tags were recorded); any other
   * row stays as it is. A target that cannot record sources does nothing.
   */
  adoptSource(namespace: string, table: string, source: string, replacing?: string): Promise<void>;
  /**
   * Applies the plan in one transaction (table DDL, rows and meta row); all or nothing. Called
   * under the table's lock; a target may take it itself when the caller holds none.
   */
  apply(plan: ApplyPlan): Promise<ApplyResult>;
  /** Disconnects, once the applies under way end; the caller has released the locks it took. */
  close(): Promise<void>;
}
