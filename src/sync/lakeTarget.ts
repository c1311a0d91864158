// The data-lake target (Parquet files, a manifest and a state file per table in an object
// store): a stand-in with the constructor the real target has, so `s3://` targets parse and
// reach it; every operation says it is not built yet.

import { DqError } from '../client/errors';
import type { LakeTargetOptions } from './lakeOptions';
import type { ReleaseLock } from './targetLock';
import type { ApplyPlan, ApplyResult, SyncedTable, SyncState, SyncTarget } from './syncTarget';

function notBuilt(): never {
  throw new DqError('usage', 'The object-store (s3://) sync target is not built yet.', { hint: 'Sync into a DuckDB file, PostgreSQL or MySQL for now.' });
}

export class LakeTarget implements SyncTarget {
  readonly label: string;
  readonly namingRule = 'Parquet column names are lower case, with any character other than a-z, 0-9 and _ written as _';

  constructor(readonly options: LakeTargetOptions) {
    this.label = options.label;
  }

  nameKey(name: string): string {
    return name.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  }

  async open(): Promise<void> {
    notBuilt();
  }
  async lockTable(): Promise<ReleaseLock> {
    return notBuilt();
  }
  async readState(): Promise<SyncState | undefined> {
    return notBuilt();
  }
  async listStates(): Promise<SyncState[]> {
    return notBuilt();
  }
  async syncedTables(): Promise<SyncedTable[]> {
    return notBuilt();
  }
  async hasTable(): Promise<boolean> {
    return notBuilt();
  }
  async adoptSource(): Promise<void> {
    notBuilt();
  }
  async apply(_plan: ApplyPlan): Promise<ApplyResult> {
    return notBuilt();
  }
  async close(): Promise<void> {
    // nothing was opened
  }
}
