// What a sync run tells its caller: progress events while it runs and one report per table
// at the end. The CLI prints them (`dq sync`, `--json`), the editor shows them (progress
// notification, tree marks); both read these shapes only.

export type TableSyncOutcome = 'synced' | 'unchanged' | 'failed' | 'cancelled';

export interface TableSyncReport {
  namespace: string;
  table: string;
  outcome: TableSyncOutcome;
  kind?: 'snapshot' | 'changes';
  upserted: number;
  deleted: number;
  /** rows in the target table after the run (undefined when it failed before loading) */
  rows?: number;
  /** the point reached (ISO), or the point kept when it failed */
  point?: string;
  schemaVersion?: number;
  seconds: number;
  /**
   * for a failed table: the message a person can act on, and the error's kind; `reason`
   * `otherSource` when the table came from another service (a fresh snapshot or another
   * target), `otherCredentials` when from the same service with other credentials (a fresh
   * snapshot when they are new credentials of the same account, else another target)
   */
  error?: { kind: string; message: string; hint?: string; uuid?: string; reason?: 'otherSource' | 'otherCredentials' };
  /** true when the table needs a fresh snapshot (`--resnapshot`) to go on */
  needsResnapshot?: boolean;
}

export type SyncStage = 'queued' | 'querying' | 'downloading' | 'applying' | 'done';

export interface SyncProgress {
  namespace: string;
  table: string;
  stage: SyncStage;
  /** for `queued`: when the create-job budget lets it start (ms since epoch) */
  startsAt?: number;
  /** for `downloading` and `applying`: the id of the job whose files they are */
  job?: string;
  /** for `downloading`: bytes so far and expected */
  bytes?: number;
  totalBytes?: number;
  /** set with `done` */
  report?: TableSyncReport;
}
