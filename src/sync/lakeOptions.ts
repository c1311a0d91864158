// How the data-lake target (`s3://bucket/prefix`) is built: targetSpec.ts parses the URL and
// passes the store's opener, so that only a lake sync loads the AWS SDK (s3Store.ts), and tests
// run the same target over a folder of files.

import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { ObjectStore } from './objectStore';

/** Hours a file left out of the manifest is kept for queries that started before, unless told otherwise. */
export const DEFAULT_RETAIN_HOURS = 24;

export interface LakeTargetOptions {
  /** `s3://bucket/prefix` as given */
  url: string;
  bucket: string;
  /** the key prefix under which each table has its folder, without a trailing slash ('' for the bucket's root) */
  prefix: string;
  /** how the target is shown to a person */
  label: string;
  openStore: () => Promise<ObjectStore>;
  logger: Logger;
  clock?: Clock;
  /** how long to wait for a table another sync holds */
  lockWaitMs?: number;
  /** sync status: reads, writes nothing */
  readOnly?: boolean;
  /** hours a retired file is kept (default DEFAULT_RETAIN_HOURS) */
  retainHours?: number;
  /** compact the files of every table this run touches */
  compact?: boolean;
  /** where Parquet files are written on their way to the store (the sync's work folder) */
  workDir?: string;
}
