// Keeps service tables current in a target: for each table, a snapshot the first time (or
// when asked), afterwards the changes since the point the target's meta table holds, asked as
// gzip JSONL, downloaded still compressed into a work folder and applied by the target in one
// transaction together with the new point. Tables run several at once; the shared client's
// limiter paces their create-job calls (a table it holds back is reported `queued`, with when
// it starts), so a namespace of many tables never earns a 429. One failing table never stops
// the others: each ends in its own report. A schema change that cannot be applied in place,
// or a point older than the history the service keeps, stops that table and says that a fresh
// snapshot (`resnapshot`) is needed; so does a table the meta table says came from another
// service (another base URL, data prefix or scope) or through other credentials (another
// client ID, perhaps another account on the same gateway), before any job is made for it. A
// source recorded before client tags were is taken for this run's and rewritten. A table whose
// meta row outlived it (someone dropped it) gets a fresh snapshot, as a table never synced does.
// Names the target cannot keep apart (two tables or columns it would hold as one, or a name
// holding a NUL) stop their table before any job is made (see targetNames.ts).
// The caller opens the target before and closes it after.

import * as os from 'node:os';
import { cancelledError, DqError, isCancelled, isDqError } from '../client/errors';
import type { CallOptions, DownloadedFile, DownloadOptions, WaitOptions } from '../client/types';
import { systemClock, type Clock } from '../core/clock';
import type { CreateJobRequest, JobRecord, SchemaEnvelope } from '../core/contract';
import { isoUtc } from '../core/isoTime';
import { nullLogger, type Logger } from '../core/logger';
import { compareSchemas } from './schemaChanges';
import { targetTableOf } from './syncColumns';
import { checkColumnNames, checkNotSyncedAs, checkTableName, collidingTables } from './targetNames';
import type { SyncProgress, SyncStage, TableSyncReport } from './syncReport';
import { clientTagOfSource, compareSources, serviceOfSource } from './syncSource';
import type { SyncState, SyncTarget, TargetColumn } from './syncTarget';
import { checkGzipFiles, makeWorkFolder, removeWorkFolder } from './syncWorkFolder';

/** The part of the shared client a sync uses. */
export interface SyncClient {
  listTables(namespace: string, opts?: CallOptions): Promise<string[]>;
  getSchema(namespace: string, table: string, opts?: CallOptions): Promise<SchemaEnvelope>;
  runJob(namespace: string, table: string, request: CreateJobRequest, opts?: CallOptions & WaitOptions): Promise<JobRecord>;
  downloadJob(job: JobRecord, opts: DownloadOptions): Promise<DownloadedFile[]>;
}

export interface SyncRunOptions {
  client: SyncClient;
  /** opened by the caller, who also closes it */
  target: SyncTarget;
  /**
   * the service and credentials the client reads with, as the meta table records them
   * (`sourceIdentity()` of its base URL, data prefix, scope and client ID, or the editor's name
   * for its sample data); an incremental from another source than the stored one is refused
   */
  source: string;
  namespace: string;
  /** the tables to sync, or every table of the namespace */
  tables: readonly string[] | 'all';
  /** a fresh snapshot instead of the changes since the stored point */
  resnapshot?: boolean;
  /** sync up to this point (ISO) instead of the latest data: for reproducible runs */
  until?: string;
  /** tables synced at once (default 4) */
  concurrency?: number;
  /** where work folders are made (default the system's temporary folder) */
  workDir?: string;
  signal?: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
  clock?: Clock;
  logger?: Logger;
}

export const DEFAULT_SYNC_CONCURRENCY = 4;
/** download progress is reported at most this often per table */
const PROGRESS_EVERY_MS = 250;

/** Syncs the tables and resolves with one report per table, in the order they were named. */
export async function runSync(options: SyncRunOptions): Promise<TableSyncReport[]> {
  const { client, namespace, signal } = options;
  const tables = options.tables === 'all' ? await client.listTables(namespace, { signal }) : [...new Set(options.tables)];
  const run = new TableRuns(options);
  for (const table of tables) run.progress(table, 'queued');
  // names the target would hold as one table are refused before any of them is locked
  // (a meta table that cannot be read fails each table, below, as it would otherwise)
  const synced = await options.target.syncedTables().catch(() => []);
  const refused = collidingTables(options.target, namespace, tables, synced);
  const reports: TableSyncReport[] = new Array(tables.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tables.length) {
      const index = next++;
      reports[index] = await run.sync(tables[index], refused.get(tables[index]));
    }
  };
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_SYNC_CONCURRENCY));
  await Promise.all(Array.from({ length: Math.min(concurrency, tables.length) }, worker));
  return reports;
}

/** What the runner knows about one table while it syncs it. */
interface TableRun {
  table: string;
  started: number;
  state?: SyncState;
  kind?: 'snapshot' | 'changes';
  envelope?: SchemaEnvelope;
}

class TableRuns {
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(private readonly o: SyncRunOptions) {
    this.clock = o.clock ?? systemClock;
    this.logger = o.logger ?? nullLogger;
  }

  progress(table: string, stage: SyncStage, more: Partial<SyncProgress> = {}): void {
    this.o.onProgress?.({ namespace: this.o.namespace, table, stage, ...more });
  }

  /** Syncs one table, or reports it failed with `refused` (a name the target cannot keep apart) without touching it. */
  async sync(table: string, refused?: DqError): Promise<TableSyncReport> {
    const run: TableRun = { table, started: this.clock.now() };
    let report: TableSyncReport;
    let release: (() => Promise<void>) | undefined;
    try {
      if (this.o.signal?.aborted) throw cancelledError('The sync', { after: ' before this table started.' });
      if (refused) throw refused;
      checkTableName(this.o.namespace, table);
      release = await this.o.target.lockTable(this.o.namespace, table, this.o.signal);
      // under the lock of the target table: another sync may have just recorded it under another name
      checkNotSyncedAs(this.o.target, this.o.namespace, table, await this.o.target.syncedTables());
      report = await this.syncLocked(run);
    } catch (err) {
      report = this.failed(run, err);
    } finally {
      await release?.().catch(() => undefined);
    }
    this.progress(table, 'done', { report });
    return report;
  }

  private async syncLocked(run: TableRun): Promise<TableSyncReport> {
    const { client, target, namespace, signal, until } = this.o;
    const name = `${namespace}.${run.table}`;
    run.state = await target.readState(namespace, run.table);
    run.kind = run.state && !this.o.resnapshot ? 'changes' : 'snapshot';
    if (run.kind === 'changes' && !(await target.hasTable(namespace, run.table))) {
      // as for a table never synced: nothing is there to keep, so a snapshot loses nothing
      this.logger.warn(`${name}: the table is missing from ${target.label}, though the meta table records its last sync (to ${run.state?.point}); taking a fresh snapshot.`);
      run.kind = 'snapshot';
    }
    if (run.kind === 'changes') this.checkSource(run);
    run.envelope = await client.getSchema(namespace, run.table, { signal });
    checkColumnNames(target, targetTableOf(namespace, run.table, run.envelope));
    let added = this.addedColumns(run);
    const since = run.kind === 'changes' ? run.state?.point : undefined;
    if (since !== undefined && until !== undefined && Date.parse(since) >= Date.parse(until)) {
      // a warning: an --until asked for and not applied must not pass unseen
      this.logger.warn(`${name}: already synced to ${since}, which is later than the until asked for (${until}); left as it is (a resnapshot starts it again from a fresh snapshot).`);
      await this.adoptSource(run);
      return this.report(run, 'unchanged', { upserted: 0, deleted: 0, rows: run.state?.rows, point: since });
    }
    this.progress(run.table, 'querying');
    this.logger.info(`${name}: ${since ? `changes since ${since}` : 'snapshot'}${until ? ` until ${until}` : ''}.`);
    let job: JobRecord;
    let queued = false;
    try {
      job = await client.runJob(namespace, run.table, { format: 'jsonl', ...(since ? { since } : {}), ...(until ? { until } : {}) }, {
        signal,
        onQueued: (wait) => {
          if (wait.operation !== 'createJob') return;
          queued = true;
          this.progress(run.table, 'queued', { startsAt: this.clock.now() + wait.waitMs });
        },
        onUpdate: () => {
          if (queued) this.progress(run.table, 'querying'); // the limiter let it go: the job exists
          queued = false;
        },
      });
    } catch (err) {
      if (run.kind === 'changes' && isDqError(err) && (err.kind === 'snapshotRequired' || err.type === 'OutOfRange')) return await this.rangeRefused(run, err);
      throw err;
    }
    const point = run.kind === 'snapshot' ? job.at : job.until;
    if (!point || Number.isNaN(Date.parse(point))) {
      throw new DqError('invalidResponse', `The job for ${name} completed without ${run.kind === 'snapshot' ? 'the point its data reflects (at)' : 'the end of its range (until)'}.`, {
        hint: 'Try again later; report it to the provider if it persists.',
      });
    }
    if (job.schema_version !== undefined && job.schema_version !== run.envelope.version) {
      this.logger.info(`${name}: the job's data is at schema version ${job.schema_version}, not ${run.envelope.version}; reading the schema again.`);
      run.envelope = await client.getSchema(namespace, run.table, { signal });
      if (job.schema_version > run.envelope.version) {
        throw new DqError('server', `The job for ${name} holds data of schema version ${job.schema_version}, but the service still describes version ${run.envelope.version}.`, {
          hint: 'Try again in a few minutes, once the service gives the new schema.',
        });
      }
      checkColumnNames(target, targetTableOf(namespace, run.table, run.envelope));
      added = this.addedColumns(run);
    }
    const folder = await makeWorkFolder(this.o.workDir ?? os.tmpdir());
    try {
      const files = await this.download(run, job, folder);
      if (!target.checksGzip) await checkGzipFiles(files, signal);
      this.progress(run.table, 'applying', { job: job.id });
      const result = await target.apply({
        kind: run.kind,
        table: targetTableOf(namespace, run.table, run.envelope),
        files: files.map((f) => f.path),
        addedColumns: added,
        state: { namespace, table: run.table, point, schemaVersion: run.envelope.version, schema: run.envelope.schema, ranAt: isoUtc(this.clock.now()), source: this.o.source },
        signal,
      });
      const outcome = run.kind === 'changes' && result.upserted === 0 && result.deleted === 0 && added.length === 0 ? 'unchanged' : 'synced';
      this.logger.info(`${name}: ${outcome}, ${result.upserted} upserted, ${result.deleted} deleted, ${result.rows} rows, at ${point}.`);
      return this.report(run, outcome, { ...result, point });
    } finally {
      await removeWorkFolder(folder);
    }
  }

  /**
   * Refuses changes from another service, or read with other credentials, than the rows of the
   * table came from: applied on top of them, they would mix two services' or accounts' rows. A
   * meta row without a source (written before sources were recorded), or with one without
   * client tag (written before those were), of this service, is taken to be this run's, and
   * records this run's source with it.
   */
  private checkSource(run: TableRun): void {
    const stored = run.state?.source;
    const match = compareSources(stored, this.o.source);
    if (stored === undefined || match === 'same' || match === 'adopt') return;
    const { namespace, target } = this.o;
    const name = `${namespace}.${run.table}`;
    const resnapshot = `dq sync ${namespace} ${run.table} --resnapshot`;
    if (match === 'otherCredentials') {
      // tags only: never the client ID itself
      const tag = (source: string): string => {
        const t = clientTagOfSource(source);
        return t ? `client ${t}` : 'no client recorded';
      };
      throw new DqError(
        'snapshotRequired',
        `${name} in ${target.label} was synced from ${serviceOfSource(stored)} with other credentials (${tag(stored)}, not ${tag(this.o.source)}): the changes one account sees cannot be applied to the rows of another.`,
        {
          hint: `If these are new credentials for the same account, take a fresh snapshot, which replaces the table: sync it with --resnapshot (${resnapshot}). If they are another account's, sync to another target (--to).`,
          details: { reason: 'otherCredentials', source: stored },
        },
      );
    }
    throw new DqError('snapshotRequired', `${name} in ${target.label} was synced from ${stored}, not from ${this.o.source}: the changes of one service cannot be applied to the rows of another.`, {
      hint: `Take a fresh snapshot from this service, which replaces the table: sync it with --resnapshot (${resnapshot}); or sync to another target (--to).`,
      details: { reason: 'otherSource', source: stored },
    });
  }

  /** Records this run's source in a meta row that has none (or one without client tag), when the run ends without applying anything. */
  private async adoptSource(run: TableRun): Promise<void> {
    if (!run.state || compareSources(run.state.source, this.o.source) !== 'adopt') return;
    await this.o.target.adoptSource(this.o.namespace, run.table, this.o.source, run.state.source);
  }

  /** Columns to add in place; throws (needing a snapshot) for a change that cannot be applied. */
  private addedColumns(run: TableRun): TargetColumn[] {
    if (run.kind !== 'changes' || !run.state || !run.envelope) return [];
    const stored = { version: run.state.schemaVersion, schema: run.state.schema };
    const change = compareSchemas(stored, run.envelope);
    const name = `${this.o.namespace}.${run.table}`;
    for (const note of change.notes) this.logger.info(`${name}: schema version ${run.envelope.version}: ${note}.`);
    if (change.added.length > 0) this.logger.info(`${name}: adding ${change.added.map((c) => `"${c.name}"`).join(', ')}.`);
    if (change.incompatible.length > 0) {
      throw new DqError('snapshotRequired', `The schema of ${name} changed from version ${run.state.schemaVersion} to ${run.envelope.version} in a way that cannot be applied to the rows already synced: ${change.incompatible.join('; ')}.`, {
        hint: this.resnapshotHint(run.table),
      });
    }
    return change.added;
  }

  /** The service refused `since`: nothing newer yet, or older than the history it keeps. */
  private async rangeRefused(run: TableRun, err: DqError): Promise<TableSyncReport> {
    const point = run.state?.point as string;
    const earliest = typeof err.details?.since === 'string' ? err.details.since : undefined;
    const latest = typeof err.details?.until === 'string' ? err.details.until : undefined;
    const older = earliest !== undefined && Date.parse(point) < Date.parse(earliest);
    if (!older && latest !== undefined && Date.parse(latest) <= Date.parse(point)) {
      this.logger.info(`${this.o.namespace}.${run.table}: nothing newer than ${point} yet.`);
      await this.adoptSource(run);
      return this.report(run, 'unchanged', { upserted: 0, deleted: 0, rows: run.state?.rows, point });
    }
    if (!older && !/snapshot/i.test(err.type ?? '')) throw err;
    const kept = earliest ? ` (it keeps changes from ${earliest})` : '';
    throw new DqError('snapshotRequired', `The last sync of ${this.o.namespace}.${run.table} reached ${point}, which is older than the history the service keeps${kept}.`, {
      status: err.status,
      type: err.type,
      uuid: err.uuid,
      hint: this.resnapshotHint(run.table),
    });
  }

  private resnapshotHint(table: string): string {
    return `Take a fresh snapshot, which replaces the table: sync it again with --resnapshot (dq sync ${this.o.namespace} ${table} --resnapshot).`;
  }

  private async download(run: TableRun, job: JobRecord, folder: string): Promise<DownloadedFile[]> {
    let last = -Infinity;
    this.progress(run.table, 'downloading', { bytes: 0, job: job.id });
    return this.o.client.downloadJob(job, {
      dir: folder,
      format: 'jsonl',
      decompress: false,
      signal: this.o.signal,
      onProgress: (p) => {
        const now = this.clock.now();
        const done = p.doneObjects === p.totalObjects;
        if (!done && now - last < PROGRESS_EVERY_MS) return;
        last = now;
        this.progress(run.table, 'downloading', { bytes: p.allBytes, job: job.id });
      },
    });
  }

  private report(run: TableRun, outcome: TableSyncReport['outcome'], facts: Partial<TableSyncReport>): TableSyncReport {
    const report: TableSyncReport = {
      namespace: this.o.namespace,
      table: run.table,
      outcome,
      upserted: facts.upserted ?? 0,
      deleted: facts.deleted ?? 0,
      seconds: Math.round((this.clock.now() - run.started) / 100) / 10,
    };
    if (run.kind) report.kind = run.kind;
    if (facts.rows !== undefined) report.rows = facts.rows;
    if (facts.point !== undefined) report.point = facts.point;
    const version = outcome === 'synced' || outcome === 'unchanged' ? run.envelope?.version : run.state?.schemaVersion;
    if (version !== undefined) report.schemaVersion = version;
    return report;
  }

  private failed(run: TableRun, err: unknown): TableSyncReport {
    const name = `${this.o.namespace}.${run.table}`;
    const kept = { rows: run.state?.rows, point: run.state?.point };
    if (isCancelled(err) || this.o.signal?.aborted) {
      this.logger.info(`${name}: cancelled; the target keeps its last complete sync.`);
      return this.report(run, 'cancelled', kept);
    }
    const e = isDqError(err) ? err : new DqError('io', `The sync of ${name} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    this.logger.info(`${name}: ${e.describe()}`); // the report carries it to the caller, who shows it
    const report = this.report(run, 'failed', kept);
    report.error = { kind: e.kind, message: e.message };
    if (e.hint) report.error.hint = e.hint;
    if (e.uuid) report.error.uuid = e.uuid;
    if (e.details?.reason === 'otherSource' || e.details?.reason === 'otherCredentials') report.error.reason = e.details.reason;
    if (e.kind === 'snapshotRequired' && run.kind === 'changes') report.needsResnapshot = true;
    return report;
  }
}
