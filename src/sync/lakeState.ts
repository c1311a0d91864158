// The data-lake target's record of one table, `_dq/state.json` under the table's folder
// (`<prefix>/<namespace>/<table>/`): the point reached, the schema, the files whose union is the
// table, and the files retired from it (deleted after the grace period). It is written after
// the data files and before the manifest (`_symlink_format_manifest/manifest`, one `s3://` URL
// per line), which a run rewrites from it whenever the two disagree; a reader that knows nothing
// of dq reads the manifest, dq reads this.

import type { JsonSchema } from '../core/contract';
import type { TargetColumn } from './syncTarget';

export const LAKE_STATE_FORMAT = 'dq-lake-1';

/** One Parquet file of the table. */
export interface LakeFile {
  /** the object's key from the bucket's root */
  key: string;
  rows: number;
  bytes: number;
  /** the smallest and largest key in the file (the key columns' values as a JSON array), for finding the files a change touches */
  minKey?: string;
  maxKey?: string;
  /** when it was written (ISO) */
  writtenAt: string;
}

/** A file no manifest lists any more, kept for queries that started on an older state. */
export interface RetiredFile {
  key: string;
  /** when it left the manifest (ISO); deleted once older than the grace period */
  retiredAt: string;
}

export interface LakeSchemaChange {
  schemaVersion: number;
  /** when the run that took it on finished (ISO) */
  at: string;
  /** the Parquet names of the columns it added */
  added: string[];
}

export interface LakeState {
  format: typeof LAKE_STATE_FORMAT;
  namespace: string;
  table: string;
  /** the point reached: the snapshot's `at` or the last incremental's `until` (ISO) */
  point: string;
  schemaVersion: number;
  /** the table's JSON schema as the service gave it */
  schema: JsonSchema;
  /** the table's columns in file order (key columns first); `name` is the Parquet column name */
  columns: TargetColumn[];
  rows: number;
  /** when the run finished (ISO) */
  ranAt: string;
  /** the service and credentials the rows came from (see syncSource.ts) */
  source?: string;
  /** the run that wrote this state */
  run: string;
  files: LakeFile[];
  retired: RetiredFile[];
  /** schema changes taken on in place, oldest first (for `ALTER TABLE … ADD COLUMNS`) */
  schemaChanges: LakeSchemaChange[];
}

/** What `dq sync-status --ddl` reads of a lake target (the lake target implements it). */
export interface LakeStateReader {
  /** the table's state; none for a table never synced */
  lakeState(namespace: string, table: string): Promise<LakeState | undefined>;
  /** `s3://bucket/prefix/<namespace>/<table>/` */
  tableLocation(namespace: string, table: string): string;
}
