// The SQL console's views of the downloaded jobs, made in the engine before a statement runs:
// one registration after another (a view made twice at once conflicts), each job's source (and
// its schema, which may take seconds to come) read once for all its names. A job whose views
// could not be made is said once in the log and not tried again until its files change. A
// statement's Cancel stops its wait for them at once.

import { stat } from 'node:fs/promises';
import type { Logger } from '../../core/logger';
import type { EngineClient } from '../../engine/engineClient';
import { cancelledError, EngineError } from '../../engine/engineErrors';
import type { ResultSource } from '../../engine/engineProtocol';
import { isCancellation } from '../ui/cancellation';
import { viewNames, type DownloadedJob, type DownloadedJobsProvider } from './downloadedJobs';
import { jobSource } from './previewTargets';
import type { ConsoleView } from './sqlCompletion';

export type ViewsEngine = Pick<EngineClient, 'registerView' | 'listViews'>;

/** What a job's files are now (size and time of each, or missing): a change means they may read now. */
export type FilesStamp = (paths: readonly string[]) => Promise<string>;

export class ConsoleViews {
  /** view name -> key of the job it was registered for */
  private readonly registered = new Map<string, string>();
  /** job key -> its files' stamp when its views could not be made */
  private readonly failed = new Map<string, string>();
  private views: ConsoleView[] | undefined;
  private synced: Promise<void> = Promise.resolve();

  constructor(
    private readonly engine: ViewsEngine,
    private readonly jobs: DownloadedJobsProvider,
    private readonly logger: Logger,
    private readonly stampFiles: FilesStamp = filesStamp,
    private readonly sourceOf: (job: DownloadedJob) => Promise<ResultSource> = jobSource,
  ) {}

  /**
   * Makes the views of jobs downloaded since the last time. Settles as cancelled as soon as
   * `signal` aborts; a view the engine is making then is finished in the background, and no
   * other is begun.
   */
  sync(signal?: AbortSignal): Promise<void> {
    const synced = this.synced.then(() => this.registerNew(signal));
    this.synced = synced.catch(() => undefined);
    return untilAborted(synced, signal);
  }

  /** The views and their columns, for completion. */
  async list(signal?: AbortSignal): Promise<ConsoleView[]> {
    await this.sync(signal);
    this.views ??= await untilAborted(this.engine.listViews(), signal);
    return this.views;
  }

  private async registerNew(signal: AbortSignal | undefined): Promise<void> {
    // a job's source once per sync, however many of its names are new
    const sources = new Map<string, Promise<ResultSource>>();
    const skipped = new Set<string>();
    for (const { name, job } of viewNames(this.jobs())) {
      if (this.registered.get(name) === job.key || skipped.has(job.key)) continue;
      if (signal?.aborted) throw cancelledError();
      const failedStamp = this.failed.get(job.key);
      if (failedStamp !== undefined) {
        if ((await this.stampFiles(job.paths)) === failedStamp) {
          skipped.add(job.key);
          continue;
        }
        this.failed.delete(job.key);
      }
      try {
        let source = sources.get(job.key);
        if (!source) sources.set(job.key, (source = this.sourceOf(job)));
        await this.engine.registerView(name, await untilAborted(source, signal));
      } catch (err) {
        if (isCancellation(err)) throw err;
        skipped.add(job.key);
        const message = err instanceof Error ? err.message : String(err);
        // an engine that stopped says nothing of the files: the next statement tries again
        if (err instanceof EngineError && err.kind === 'crashed') {
          this.logger.warn(`SQL console: no view ${name} for now, as the SQL engine stopped: ${message}`);
          continue;
        }
        this.failed.set(job.key, await this.stampFiles(job.paths));
        this.logger.warn(`SQL console: no view ${name}, as the files of job ${job.jobId} cannot be read: ${message}`);
        continue;
      }
      this.registered.set(name, job.key);
      this.views = undefined;
    }
  }
}

/** Each file's path, size and modification time, or that it is missing. */
export async function filesStamp(paths: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    paths.map((p) =>
      stat(p).then(
        (s) => `${p}\t${s.size}\t${s.mtimeMs}`,
        () => `${p}\tmissing`,
      ),
    ),
  );
  return parts.join('\n');
}

/** `work`, or a cancellation as soon as `signal` aborts (the work itself goes on). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(cancelledError());
  }
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(cancelledError());
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(err);
      },
    );
  });
}
