// Results copied for their first preview while nobody waits: when a job's files are downloaded
// (and `dataQuery.preview.prepareAfterDownload` is on), the engine copies the result into a
// table of its own and keeps it (src/engine/keptCopies.ts), so the preview of a large result
// sorts and jumps to far rows at once instead of reading gigabytes of gzip JSON first.

import type { Logger } from '../../core/logger';
import type { EngineClient } from '../../engine/engineClient';
import type { Disposable, Event } from '../../core/emitter';
import type { JobEntry } from '../../jobs/jobEntry';
import type { DownloadedJobsProvider } from './downloadedJobs';
import { jobSource } from './previewTargets';

export interface PrepareDeps {
  /** fires when a job changes (undefined: the list itself changed) */
  onDidChange: Event<JobEntry | undefined>;
  jobs: DownloadedJobsProvider;
  engine: Pick<EngineClient, 'prepare'>;
  /** read on every download: the setting may change at any time */
  enabled(): boolean;
  logger: Logger;
}

/** Prepares each job's downloaded files once, one job at a time; disposing cancels what is under way. */
export function prepareDownloads(deps: PrepareDeps): Disposable {
  const done = new Set<string>();
  const abort = new AbortController();
  let queue: Promise<void> = Promise.resolve();
  const subscription = deps.onDidChange((entry) => {
    if (!entry || entry.state !== 'complete' || entry.files.length === 0 || entry.progress || !deps.enabled()) return;
    const job = deps.jobs().find((j) => j.key === entry.key);
    if (!job) return;
    const files = JSON.stringify(job.paths);
    if (done.has(files)) return;
    done.add(files);
    queue = queue.then(async () => {
      if (abort.signal.aborted) return;
      const name = `${job.namespace}.${job.table} (job ${job.jobId})`;
      try {
        const { rows, kept } = await deps.engine.prepare(await jobSource(job), abort.signal);
        deps.logger.info(`${name} is copied for its preview: ${rows.toLocaleString('en-US')} rows${kept ? '' : ', not kept (copies are off or a preview has it open)'}`);
      } catch (err) {
        if (abort.signal.aborted) return;
        deps.logger.warn(`${name} was not copied for its preview; it is read from its files when previewed: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
  });
  return {
    dispose: () => {
      abort.abort();
      subscription.dispose();
    },
  };
}
