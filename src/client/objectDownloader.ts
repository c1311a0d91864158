// Downloads a complete job's result objects into a folder. Each object gets a fresh
// pre-signed link just before it starts, is fetched with no credentials of any kind, is
// streamed into a hidden staging file named after this run (`.<name>.<run id>.part`, so two
// runs into one folder never share one), and checked for size. A worker starts its next
// object as soon as the last byte of one is in, while that one is flushed, synced and closed.
// Only when every object of the job has arrived are the staging files moved to their final
// names (stagedFiles.ts), so a folder holds a whole result or none of it.
//
// This file schedules the job: the workers, the limits checked before any request, the
// staging files and the cleanup. One object's requests are objectFetch.ts (links, refusals
// and retries, judged by the highest byte reached so far: progressBudget.ts) and
// objectAttempt.ts (one request: Range resumes, size bounds, a host that trickles, no
// redirects). Local file-system failures are `io` errors and never retried. On failure or
// cancel the staging files go, and files already in the folder (an earlier download) are left
// as they were.
//
// What the host sends is bounded: a job with more objects than `maxObjects` is refused before
// any request (with how long its link requests alone would take); an object larger than its
// Content-Length or than `maxObjectBytes` stops the download as soon as the byte beyond arrives.

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { JobRecord, ObjectRef } from '../core/contract';
import { formatDuration } from '../core/durationText';
import { nullLogger, type Logger } from '../core/logger';
import { sniffFormat } from '../core/formatSniffer';
import { objectFileBaseName, resultFileExtension, runFilePath, safeJoin } from '../core/paths';
import { downloadCancelled, limitOption } from './downloadErrors';
import { RunProgress } from './downloadProgress';
import { cancelledError, DqError } from './errors';
import { asLocalIoError } from './localIoError';
import type { ObjectRun } from './objectAttempt';
import { fetchObject, type FetchSettings } from './objectFetch';
import { ObjectFileSink } from './objectFileSink';
import { commitStagedFiles, type StagedFile } from './stagedFiles';
import type { DownloadedFile, DownloadOptions } from './types';
import { makeFolder } from '../core/makeFolder';

export interface ObjectDownloaderOptions extends Omit<FetchSettings, 'logger'> {
  logger?: Logger;
  /** how messages and the log name every object, instead of `object <n>/<count>` (a pasted link's one file) */
  objectName?: string;
  /** the largest object downloaded (default MAX_OBJECT_BYTES); DownloadOptions.maxObjectBytes overrides it */
  maxObjectBytes?: number;
  /** the most objects of one job downloaded (default MAX_JOB_OBJECTS); DownloadOptions.maxObjects overrides it */
  maxObjects?: number;
  /** link requests allowed per window, for the estimate of a job's link requests */
  linkBudget?: { calls: number; windowMs: number };
}

/** The largest result object downloaded unless a caller says otherwise: objects are typically up to about 500 MB. */
export const MAX_OBJECT_BYTES = 64 * 1024 ** 3;
/**
 * The most result objects of one job downloaded unless a caller says otherwise: each needs a
 * link request of its own, and at 200 a minute these alone take 50 minutes.
 */
export const MAX_JOB_OBJECTS = 10_000;
/** Link requests that take longer than this get a warning up front with the estimate. */
const LONG_LINK_REQUESTS_MS = 15 * 60_000;

const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 32;

/** What one download run shares between its objects. */
interface Run extends ObjectRun {
  dir: string;
  /** names this run's staging and backup files */
  runId: string;
  opts: DownloadOptions;
}

/** An object whose bytes are all in its sink, not yet closed. */
interface Received {
  object: ObjectRef;
  /** its file name without extension */
  base: string;
  sink: ObjectFileSink;
}

export class ObjectDownloader {
  private readonly settings: FetchSettings;

  constructor(private readonly options: ObjectDownloaderOptions) {
    this.settings = { ...options, logger: options.logger ?? nullLogger };
  }

  private get logger(): Logger {
    return this.settings.logger;
  }

  async download(job: JobRecord, opts: DownloadOptions): Promise<DownloadedFile[]> {
    if (job.status !== 'complete') {
      throw new DqError('usage', `Job ${job.id} is ${job.status}, not complete; there is nothing to download yet`, {
        hint: 'Wait for the job to complete, then download it.',
      });
    }
    const objects: ObjectRef[] = job.objects ?? [];
    const concurrency = workerCount(opts.concurrency, objects.length);
    const maxObjectBytes = limitOption('maxObjectBytes', opts.maxObjectBytes ?? this.options.maxObjectBytes ?? MAX_OBJECT_BYTES);
    this.checkObjectCount(job.id, objects.length, limitOption('maxObjects', opts.maxObjects ?? this.options.maxObjects ?? MAX_JOB_OBJECTS));
    const dir = path.resolve(opts.dir);
    const createdFolder = await makeDownloadFolder(dir);
    const stop = new AbortController();
    const run: Run = {
      dir,
      runId: randomBytes(6).toString('hex'),
      opts,
      signal: opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal,
      progress: new RunProgress(objects.length, opts.onProgress),
      maxObjectBytes,
    };
    const staged: (StagedFile | undefined)[] = new Array(objects.length);
    let firstError: unknown;
    const fail = (err: unknown): void => {
      if (firstError === undefined) firstError = err;
      stop.abort();
    };
    let next = 0;
    // A worker receives its next object while the one before is flushed, synced and closed:
    // its connection never waits for the disk. At most one object per worker is closing.
    const worker = async (): Promise<void> => {
      let closing: Promise<void> = Promise.resolve();
      while (firstError === undefined && next < objects.length) {
        const index = next++;
        const object = objects[index];
        let received: Received;
        try {
          received = await this.receive(object, index, run);
        } catch (err) {
          fail(err);
          break;
        }
        await closing;
        if (firstError !== undefined) {
          await received.sink.discard();
          break;
        }
        closing = this.close(received, run).then((file) => {
          staged[index] = file;
          run.progress.objectDone(object.id);
        }, fail);
      }
      await closing;
    };
    try {
      await Promise.all(Array.from({ length: concurrency }, () => worker()));
      if (firstError !== undefined) throw firstError;
      await commitStagedFiles(dir, run.runId, staged as StagedFile[], this.logger);
    } catch (err) {
      await Promise.all(staged.map((f) => f && fs.rm(f.stagingPath, { force: true }).catch(() => undefined)));
      await removeCreatedFolders(dir, createdFolder);
      if (opts.signal?.aborted) {
        throw cancelledError(`Download of job ${job.id}`, { operation: 'download' });
      }
      throw err;
    }
    return (staged as StagedFile[]).map((f) => f.file);
  }

  /**
   * Refuses a job with more objects than `max` before any request, saying how long its link
   * requests alone would take; warns of a long wait for link requests below that.
   */
  private checkObjectCount(jobId: string, count: number, max: number): void {
    const budget = this.options.linkBudget;
    const linksMs = budget ? (count / budget.calls) * budget.windowMs : undefined;
    const estimate = linksMs === undefined || budget === undefined ? '' : `link requests alone would take about ${formatDuration(linksMs, 'long')} at ${budget.calls} ${budget.windowMs === 60_000 ? 'a minute' : `per ${formatDuration(budget.windowMs, 'long')}`}`;
    if (count > max) {
      throw new DqError('usage', `Job ${jobId} has ${count} result files, more than the ${max} this client downloads${estimate ? `: ${estimate}` : ''}`, {
        operation: 'download',
        details: { objects: count, maxObjects: max },
        hint: 'Run a smaller query (an incremental one since a recent point), or, if a job this large is expected, raise the limit on result files per job (--max-files for dq, maxObjects for the client).',
      });
    }
    if (linksMs !== undefined && linksMs > LONG_LINK_REQUESTS_MS) this.logger.warn(`Job ${jobId} has ${count} result files: ${estimate}.`);
  }

  /** Streams one object into a new staging file; the sink it returns has all of its bytes. */
  private async receive(object: ObjectRef, index: number, run: Run): Promise<Received> {
    const base = objectFileBaseName(object.id, index);
    const label = this.options.objectName ?? `object ${index + 1}/${run.progress.totalObjects}`;
    const sink = new ObjectFileSink(runFilePath(run.dir, base, run.runId, 'part'), run.opts.decompress === true, run.opts.sha256 === true);
    await sink.open();
    try {
      await fetchObject({ objectId: object.id, label, sink }, run, this.settings);
      return { object, base, sink };
    } catch (err) {
      await sink.discard();
      if (run.opts.signal?.aborted) throw downloadCancelled();
      throw err;
    }
  }

  /** Flushes, syncs and closes a received object's staging file, and names its final file. */
  private async close({ object, base, sink }: Received, run: Run): Promise<StagedFile> {
    try {
      const result = await sink.finish();
      const format = run.opts.format ?? (await sniffFile(sink.tempPath));
      const finalPath = safeJoin(run.dir, base + resultFileExtension(format, result.fileGzip));
      return {
        stagingPath: sink.tempPath,
        file: { objectId: object.id, path: finalPath, bytes: result.fileBytes, ...(result.sha256 ? { sha256: result.sha256 } : {}), gzip: result.fileGzip },
      };
    } catch (err) {
      await sink.discard();
      if (run.opts.signal?.aborted) throw downloadCancelled();
      throw err;
    }
  }
}

/** Workers for a run: the caller's concurrency, checked, never more than the objects. */
function workerCount(concurrency: number | undefined, objects: number): number {
  const wanted = concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(wanted) || wanted < 1 || wanted > MAX_CONCURRENCY) {
    throw new DqError('usage', `The download concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}, not ${String(concurrency)}`, {
      operation: 'download',
      hint: `Ask for between 1 and ${MAX_CONCURRENCY} objects at once (default ${DEFAULT_CONCURRENCY}).`,
    });
  }
  return Math.max(1, Math.min(wanted, objects));
}

/** Creates the folder; returns the first folder this created, if any, for cleaning up. */
async function makeDownloadFolder(dir: string): Promise<string | undefined> {
  try {
    return await makeFolder(dir);
  } catch (err) {
    throw asLocalIoError(err, dir, 'create the download folder');
  }
}

/** Removes the folders a failed run created, as long as they are empty. */
async function removeCreatedFolders(dir: string, created: string | undefined): Promise<void> {
  if (created === undefined) return;
  for (let folder = dir; ; folder = path.dirname(folder)) {
    try {
      await fs.rmdir(folder);
    } catch {
      return;
    }
    if (folder === created || path.dirname(folder) === folder) return;
  }
}

/** The format of a finished file from its first bytes, when the caller did not say. */
async function sniffFile(file: string): Promise<string | undefined> {
  try {
    const handle = await fs.open(file, 'r');
    try {
      const head = Buffer.alloc(16_384);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      return sniffFormat(head.subarray(0, bytesRead));
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw asLocalIoError(err, path.dirname(file), 'read a result file');
  }
}
