// Drives query jobs through the shared client and records every step in the JobsModel:
// create (shown as queued while the limiter holds it) -> poll -> download -> complete,
// failed, expired or cancelled. Jobs that were active when the window closed are followed
// again on start, and a client rebuilt under a running job (settings changed) is picked up
// again, so no job is left spinning with nobody watching it. A query answered with a job an
// older entry is still following takes that work over instead of starting it twice.
// A table's "since" point moves only once the job's data is where the user asked for it:
// on disk when a download was asked for, at completion when it was not.

import * as path from 'node:path';
import { DqError, isCancelled, isDqError } from '../client/errors';
import type { BudgetSnapshot, CallOptions, DownloadedFile, DownloadOptions, WaitOptions } from '../client/types';
import type { Clock } from '../core/clock';
import type { CreateJobRequest, JobRecord, Operation, PresignedUrlResponse } from '../core/contract';
import type { Logger } from '../core/logger';
import { sanitizeFileName } from '../core/paths';
import { dataPoint, failureOf, isActive, storedFile, tableName, type JobEntry, type QueryParams, type StoredFile } from './jobEntry';
import { removeJobFiles, removeStagingLeftovers } from './jobFiles';
import type { JobPatch, JobsModel } from './jobsModel';
import { jobFolder } from './resultsLayout';
import type { SincePointStore } from './sincePoints';

/** What the client reports when the limiter makes a call wait. */
export type QueuedNotice = Parameters<NonNullable<CallOptions['onQueued']>>[0];

export type JobCallOptions = CallOptions & WaitOptions;

/** The part of the shared client the runner uses. */
export interface JobClient {
  runJob(namespace: string, table: string, request: CreateJobRequest, opts?: JobCallOptions): Promise<JobRecord>;
  waitForJob(jobId: string, opts?: WaitOptions): Promise<JobRecord>;
  getJob(jobId: string, opts?: JobCallOptions): Promise<JobRecord>;
  downloadJob(job: JobRecord, opts: DownloadOptions): Promise<DownloadedFile[]>;
  createUrls(objectIds: string[], opts?: JobCallOptions): Promise<PresignedUrlResponse>;
  budgets(): BudgetSnapshot[];
  /** closed under the runner (its connection was rebuilt): the work moves to a new client */
  readonly isClosed: boolean;
}

export interface DownloadSettings {
  decompress: boolean;
  concurrency: number;
  /** compute each file's sha256 while downloading */
  sha256: boolean;
}

export interface JobRunnerDeps {
  model: JobsModel;
  sincePoints: SincePointStore;
  clientFor(connection: string): Promise<JobClient>;
  /** the results root, created when missing unless `create` is false (then only where it is) */
  resultsRoot(options?: { create?: boolean }): Promise<string>;
  downloadSettings(): DownloadSettings;
  clock: Clock;
  logger: Logger;
}

export interface QueryResult {
  entry: JobEntry;
  job: JobRecord;
  files: StoredFile[];
}

/** The work on one entry: following its job, then downloading its files when asked. */
class Run {
  readonly abort = new AbortController();
  /** set by JobRunner.track as soon as the work starts */
  done!: Promise<QueryResult>;
  /** set when this run gave way to an older run of the same job, which now works for its entry */
  joined?: Run;
  /** a create request left for the service: it may have a job for this run even without an answer */
  sent = false;

  /** `key`: the entry it works for; a newer entry's once the job was folded into that one */
  constructor(public key: string) {}
}

/** Times the runner asks for a fresh client when the one it used was closed under it. */
const MAX_REATTACH = 3;
/** Download progress is recorded at most this often (and whenever a file completes). */
const PROGRESS_EVERY_MS = 250;

export class JobRunner {
  /** by the key of the entry each run works for */
  private readonly running = new Map<string, Run>();
  private disposed = false;

  constructor(private readonly deps: JobRunnerDeps) {}

  /**
   * Starts a query; `since: 'last'` means this connection's last point on the table. The
   * entry appears at once; `done` settles when the job (and its download, if asked) ends.
   */
  query(params: QueryParams, download: boolean): { entry: JobEntry; done: Promise<QueryResult> } {
    const request = { ...params.request };
    if (request.since === 'last') {
      const point = this.deps.sincePoints.get(params.connection, params.namespace, params.table);
      if (!point) throw noPointYet(params);
      request.since = point;
    }
    const entry = this.deps.model.add({ ...params, request }, download);
    this.deps.logger.info(`Query ${tableName(entry)} on "${entry.connection}": ${request.format}, ${request.since ? `since ${request.since}` : 'snapshot'}.`);
    return { entry, done: this.track(entry, (run) => this.run(entry, run)) };
  }

  /** Downloads (again) the files of a job in the list; resolves when they are on disk. */
  download(key: string, decompress?: boolean): Promise<QueryResult> {
    const entry = this.entry(key);
    const busy = this.running.get(entry.key);
    if (busy) return busy.done;
    if (!entry.jobId) throw new DqError('usage', `The query of ${tableName(entry)} never reached the service, so it has no files.`, { hint: 'Run it again.' });
    this.deps.model.update(entry.key, { download: true });
    return this.track(entry, (run) => this.run(entry, run, decompress));
  }

  /** Downloads a job that is not in the list (started elsewhere) into `<results>/<connection>/<job id>/`. */
  async downloadUnlisted(connection: string, jobId: string, decompress?: boolean, signal?: AbortSignal): Promise<{ job: JobRecord; files: StoredFile[] }> {
    const client = await this.deps.clientFor(connection);
    const job = await client.getJob(jobId, { signal }).catch((err: unknown) => {
      throw expiredIfGone(err, jobId);
    });
    if (job.status !== 'complete') {
      throw new DqError(job.status === 'failed' ? 'jobFailed' : 'usage', `Job ${jobId} is ${job.status}, not complete.`, {
        hint: job.status === 'failed' ? 'Run the query again.' : 'Wait for it to complete, then download it.',
        type: job.error?.type,
        uuid: job.error?.uuid,
      });
    }
    const root = await this.deps.resultsRoot();
    const dir = path.join(root, sanitizeFileName(connection), sanitizeFileName(jobId));
    const settings = this.deps.downloadSettings();
    const files = await client.downloadJob(job, { dir, decompress: decompress ?? settings.decompress, concurrency: settings.concurrency, sha256: settings.sha256, signal });
    return { job, files: files.map(storedFile) };
  }

  /** Follows again the jobs that were active when the window closed. */
  resume(): void {
    for (const entry of this.deps.model.active()) {
      if (this.running.has(entry.key)) continue;
      if (!entry.jobId) {
        this.deps.model.update(entry.key, {
          state: 'cancelled',
          queue: undefined,
          failure: { kind: 'cancelled', message: 'The window closed before the service accepted this query.', hint: 'Run it again.' },
        });
        continue;
      }
      this.deps.logger.info(`Resuming job ${entry.jobId} (${tableName(entry)} on "${entry.connection}").`);
      this.track(entry, (run) => this.run(entry, run)).catch(() => undefined);
    }
  }

  /** Stops following a job (the service has no cancel: it may still finish there). */
  cancel(key: string): void {
    this.runOf(key)?.abort.abort();
  }

  isRunning(key: string): boolean {
    return this.runOf(key) !== undefined;
  }

  /**
   * Removes a job from the list, and with `deleteFiles` its files: those listed, those of an
   * earlier download of it, and what interrupted downloads of it left behind.
   */
  async remove(key: string, deleteFiles: boolean): Promise<JobEntry> {
    const listed = this.entry(key);
    this.cancel(listed.key);
    await this.running.get(listed.key)?.done.catch(() => undefined);
    const entry = this.deps.model.get(listed.key) ?? listed;
    this.deps.model.remove(entry.key);
    if (deleteFiles) await removeJobFiles(entry.files.map((f) => f.path), entry.objects ?? [], await this.folderNow(entry), this.deps.logger);
    return entry;
  }

  /**
   * The job's folder under today's results root (where an unfinished download of it went), if
   * there is one. Only looked up: a results folder the user deleted is not made again.
   */
  private async folderNow(entry: JobEntry): Promise<string[]> {
    const { jobId } = entry;
    if (!jobId) return [];
    const root = await this.deps.resultsRoot({ create: false }).catch(() => undefined);
    return root === undefined ? [] : [jobFolder(root, { ...entry, jobId })];
  }

  /** Stops every job without marking it, so the next start resumes them. */
  dispose(): void {
    this.disposed = true;
    for (const { abort } of this.running.values()) abort.abort();
  }

  /** The run working for an entry, found by its key or by the key of an entry folded into it. */
  private runOf(key: string): Run | undefined {
    return this.running.get(this.deps.model.get(key)?.key ?? key);
  }

  /** The entry as the list holds it now (a newer one when the job was folded into it). */
  private current(entry: JobEntry): JobEntry {
    return this.deps.model.get(entry.key) ?? entry;
  }

  private track(entry: JobEntry, work: (run: Run) => Promise<QueryResult>): Promise<QueryResult> {
    const run = new Run(entry.key);
    run.done = work(run).finally(() => {
      if (this.running.get(run.key) === run) this.running.delete(run.key);
    });
    this.running.set(entry.key, run);
    return run.done;
  }

  private async run(entry: JobEntry, run: Run, decompress?: boolean): Promise<QueryResult> {
    const { signal } = run.abort;
    try {
      // a results folder that cannot take the files fails before a job is created for them (5 a minute)
      if (entry.download && !entry.jobId) await this.deps.resultsRoot();
      const job = await this.follow(entry, run);
      if (run.joined) return await run.joined.done;
      this.completed(entry, job);
      if (!this.current(entry).download) {
        await this.reached(entry, job);
        return { entry: this.current(entry), job, files: [] };
      }
      const files = await this.fetchFiles(entry, job, signal, decompress);
      await this.reached(entry, job);
      return { entry: this.current(entry), job, files };
    } catch (err) {
      if (run.joined) return run.joined.done;
      if (!this.disposed) this.failed(entry.key, err, signal, run.sent);
      throw err;
    }
  }

  /** Creates the job (or finds it again) and waits for it to complete. */
  private async follow(entry: JobEntry, run: Run): Promise<JobRecord> {
    const { signal } = run.abort;
    const options: JobCallOptions = {
      signal,
      priority: 'user',
      onQueued: (notice) => this.queued(entry, notice),
      onSending: (operation) => this.sending(entry, run, operation),
      onUpdate: (job) => this.record(entry, job, run),
      onStatusTrouble: (trouble) => this.deps.model.update(entry.key, { statusTrouble: trouble && failureOf(trouble) }),
    };
    for (let attempt = 0; ; attempt++) {
      const client = await this.deps.clientFor(entry.connection);
      const { jobId } = this.current(entry);
      try {
        if (jobId) return await client.waitForJob(jobId, options);
        return await client.runJob(entry.namespace, entry.table, entry.request, options);
      } catch (err) {
        // a client closed under us (its connection was rebuilt) is not the user's cancel
        if (!isCancelled(err) || signal.aborted || this.disposed || attempt >= MAX_REATTACH) throw err;
        this.deps.logger.info(`${tableName(entry)}: the connection "${entry.connection}" was rebuilt; following the job again.`);
      }
    }
  }

  private queued(entry: JobEntry, notice: QueuedNotice): void {
    const queue = { operation: notice.operation, reason: notice.reason, until: this.deps.clock.now() + notice.waitMs };
    const patch: JobPatch = { queue };
    if (notice.operation === 'createJob' && !this.current(entry).jobId) patch.state = 'queued';
    this.deps.model.update(entry.key, patch);
  }

  /** A create request is on its way: no longer queued, and no longer "never sent" when stopped. */
  private sending(entry: JobEntry, run: Run, operation: Operation): void {
    if (operation !== 'createJob' || this.current(entry).jobId) return;
    run.sent = true;
    this.deps.model.update(entry.key, { state: 'waiting', queue: undefined });
  }

  private record(entry: JobEntry, job: JobRecord, run?: Run): void {
    const patch: JobPatch = { jobId: job.id, queue: undefined, expiresAt: job.expires_at, at: job.at, until: job.until };
    if (job.status === 'waiting' || job.status === 'running') patch.state = job.status;
    if (job.objects) patch.objects = job.objects.map((o) => o.id);
    const current = this.current(entry);
    const older = run && job.id !== current.jobId ? this.deps.model.find(current.connection, job.id) : undefined;
    // an older run that is past its download decision finishes on its own; this one goes on
    const olderRun = older && older.key !== current.key && isActive(older) ? this.running.get(older.key) : undefined;
    if (older && olderRun && run) this.join(current, run, older, olderRun, patch);
    else this.deps.model.update(entry.key, patch);
  }

  /**
   * The service answered a new query with a job an older entry's run is still following
   * (identical requests return the same job). The list keeps only the newer entry, so the
   * older run goes on working for it: its download stays in sight, is not fetched a second
   * time, and stops when the user stops the entry they can see. The new run gives way.
   */
  private join(newer: JobEntry, run: Run, older: JobEntry, olderRun: Run, patch: JobPatch): void {
    this.deps.model.update(newer.key, {
      ...patch,
      state: older.state,
      progress: older.progress,
      failure: older.failure,
      download: newer.download || older.download,
    });
    this.running.delete(older.key);
    olderRun.key = newer.key;
    this.running.set(newer.key, olderRun);
    run.joined = olderRun;
    run.abort.abort();
    this.deps.logger.info(`${tableName(newer)}: job ${patch.jobId ?? ''} was already being followed; the earlier query carries on for the new one.`);
  }

  private completed(entry: JobEntry, job: JobRecord): void {
    this.record(entry, job);
    this.deps.model.update(entry.key, { state: 'complete', failure: undefined });
  }

  /**
   * Remembers the job's point as where the table's next incremental starts. Only called once
   * the data is where the user wanted it, so a failed or stopped download never moves it.
   */
  private async reached(entry: JobEntry, job: JobRecord): Promise<void> {
    const point = dataPoint({ at: job.at, until: job.until });
    if (!point) return;
    try {
      await this.deps.sincePoints.record(entry.connection, entry.namespace, entry.table, point);
    } catch (err) {
      // the files are in place; an unsaved point only means the next query starts from an older one
      this.deps.logger.warn(`${tableName(entry)}: could not remember ${point} as the point to continue from: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async fetchFiles(entry: JobEntry, job: JobRecord, signal: AbortSignal, decompress?: boolean): Promise<StoredFile[]> {
    const totalFiles = job.objects?.length ?? 0;
    this.deps.model.update(entry.key, { state: 'downloading', failure: undefined, progress: { bytes: 0, doneFiles: 0, totalFiles } });
    for (let attempt = 0; ; attempt++) {
      const client = await this.deps.clientFor(entry.connection);
      try {
        return await this.downloadWith(client, entry, job, signal, decompress);
      } catch (err) {
        // a settings or credentials change rebuilt the connection: download again on the new client
        if (!client.isClosed || signal.aborted || this.disposed || attempt >= MAX_REATTACH) throw err;
        this.deps.logger.info(`${tableName(entry)}: the connection "${entry.connection}" was rebuilt; downloading again.`);
      }
    }
  }

  private async downloadWith(client: JobClient, entry: JobEntry, job: JobRecord, signal: AbortSignal, decompress?: boolean): Promise<StoredFile[]> {
    const { model, clock } = this.deps;
    const dir = jobFolder(await this.deps.resultsRoot(), { ...entry, jobId: job.id });
    await removeStagingLeftovers(dir, (job.objects ?? []).map((o) => o.id), this.deps.logger);
    const settings = this.deps.downloadSettings();
    let last = 0;
    const downloaded = await client.downloadJob(job, {
      dir,
      format: entry.request.format,
      decompress: decompress ?? settings.decompress,
      concurrency: settings.concurrency,
      sha256: settings.sha256,
      signal,
      onProgress: (p) => {
        const done = p.doneObjects !== this.current(entry).progress?.doneFiles;
        if (!done && clock.now() - last < PROGRESS_EVERY_MS) return;
        last = clock.now();
        model.update(entry.key, { progress: { bytes: p.allBytes, doneFiles: p.doneObjects, totalFiles: p.totalObjects } });
      },
    });
    const files = downloaded.map(storedFile);
    model.update(entry.key, { state: 'complete', files, progress: undefined });
    this.deps.logger.info(`${tableName(entry)}: ${files.length} file(s) in ${dir}.`);
    return files;
  }

  /** `sent`: a create request of this run left for the service. */
  private failed(key: string, err: unknown, signal: AbortSignal, sent: boolean): void {
    const entry = this.deps.model.get(key);
    if (!entry) return;
    const downloading = entry.state === 'downloading';
    const failure = failureOf(err);
    let patch: JobPatch;
    if (signal.aborted && downloading) {
      patch = { state: 'complete', failure: { kind: 'cancelled', message: 'The download was cancelled; no partial file was kept.', hint: 'Use Download on the job to fetch the files.' } };
    } else if ((signal.aborted || isCancelled(err)) && !entry.jobId && !sent) {
      patch = { state: 'cancelled', failure: { kind: 'cancelled', message: 'Stopped before the query was sent to the service; nothing runs there for it.', hint: 'Run it again when you need it.' } };
    } else if ((signal.aborted || isCancelled(err)) && !entry.jobId) {
      // the request may have reached the service, which then answers the same query with its job
      patch = { state: 'cancelled', failure: { kind: 'cancelled', message: 'Stopped while the query was being sent; the service may have started a job for it.', hint: 'Run it again: an identical query gets that job back.' } };
    } else if (signal.aborted || isCancelled(err)) {
      patch = { state: 'cancelled', failure: { kind: 'cancelled', message: 'Stopped following this job; it may still finish on the service.', hint: 'Use Download on the job to fetch its files later, or run it again.' } };
    } else if (isDqError(err) && err.kind === 'jobExpired') {
      patch = { state: 'expired', failure };
    } else {
      patch = { state: downloading ? 'complete' : 'failed', failure };
    }
    this.deps.model.update(key, { ...patch, queue: undefined, progress: undefined, statusTrouble: undefined });
    const what = downloading ? 'download' : 'query';
    this.deps.logger.warn(`${tableName(entry)} on "${entry.connection}": the ${what} ended (${patch.state}): ${isDqError(err) ? err.describe() : failure.message}`);
  }

  private entry(key: string): JobEntry {
    const entry = this.deps.model.get(key);
    if (!entry) throw new DqError('usage', 'That job is no longer in the Jobs list.', { hint: 'Refresh the Jobs view.' });
    return entry;
  }
}

function noPointYet(params: QueryParams): DqError {
  return new DqError('snapshotRequired', `"${params.connection}" has not queried ${params.namespace}.${params.table} before, so there is no last point to continue from.`, {
    hint: 'Run a snapshot first (leave out since); later incremental queries continue from it.',
  });
}

/** A job the service no longer knows has expired (deleted about 24 hours after it started). */
function expiredIfGone(err: unknown, jobId: string): unknown {
  if (!isDqError(err) || err.kind !== 'notFound') return err;
  return new DqError('jobExpired', `Job ${jobId} no longer exists on the service`, {
    status: err.status,
    uuid: err.uuid,
    type: err.type,
    operation: 'getJob',
    hint: 'Jobs and their files are deleted about 24 hours after they start; run the query again.',
  });
}
