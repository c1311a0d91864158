// Downloads a complete job's result objects into a folder. Each object gets a fresh
// pre-signed link just before it starts, is fetched with no credentials of any kind, is
// streamed into a hidden staging file named after this run (`.<name>.<run id>.part`, so two
// runs into one folder never share one), and checked for size. A worker starts its next
// object as soon as the last byte of one is in, while that one is flushed, synced and closed.
// Only when every object of the job has arrived are the staging files moved to their final
// names (stagedFiles.ts), so a folder holds a whole result or none of it.
//
// Attempts are judged by the highest byte of the object reached so far, not one by one:
// dropped connections resume with a Range request (or skip what is already here when the
// host ignores Range), 403/404 from the object host fetch a new link, and an object is given
// up only after several attempts in a row that add no byte (a pasted link, which cannot be
// renewed, is given up at its first refusal: `maxRefusalsInARow`). A redirect is never
// followed and stops the download at once. Local file-system failures are `io` errors and
// never retried. On failure or cancel the staging files go, and files already in the folder
// (an earlier download) are left as they were.
//
// What the host sends is bounded: a job with more objects than `maxObjects` is refused before
// any request (with how long its link requests alone would take); an object larger than its
// Content-Length or than `maxObjectBytes` stops the download as soon as the byte beyond arrives;
// an attempt that receives less than `minBytesPerSecond` over a window (a host that trickles) is
// dropped and resumed like a dropped connection, and given up after as many slow attempts as
// the retry policy allows. Those windows are measured in real time, like the connection's own
// timeouts, never on the injected clock.

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import { Writable } from 'node:stream';
import { stream, type Dispatcher } from 'undici';
import type { Clock } from '../core/clock';
import type { JobRecord, ObjectRef } from '../core/contract';
import { systemClock } from '../core/clock';
import { nullLogger, safeUrl, type Logger } from '../core/logger';
import { formatBytes } from '../core/byteSize';
import { sniffFormat } from '../core/formatSniffer';
import { objectFileBaseName, resultFileExtension, runFilePath, safeJoin } from '../core/paths';
import { errorFromNetwork } from './errorMapping';
import { DqError, isDqError } from './errors';
import { asLocalIoError } from './localIoError';
import { ObjectFileSink } from './objectFileSink';
import { isTransientNetworkError, retryDelayMs, waitOrCancel, type RetryPolicy } from './retryPolicy';
import { checkUrl } from './serviceUrls';
import { commitStagedFiles, type StagedFile } from './stagedFiles';
import type { DownloadedFile, DownloadOptions, DownloadProgress } from './types';

/** Asks the service for a new pre-signed URL for one object. */
export type FreshUrl = (objectId: string, signal: AbortSignal) => Promise<string>;

export interface ObjectDownloaderOptions {
  dispatcher: Dispatcher;
  clock: Clock;
  logger?: Logger;
  userAgent: string;
  retry: RetryPolicy;
  /** wait after a 429 from the object host that names none (default: the retry policy's 30 s) */
  defaultRetryAfterMs?: number;
  requestTimeoutMs: number;
  allowInsecureHttp: boolean;
  freshUrl: FreshUrl;
  /**
   * Refusals in a row before an object is given up (default MAX_REFUSALS_IN_A_ROW). A pasted
   * link has no fresher one to ask for: 1 gives up at its first refusal.
   */
  maxRefusalsInARow?: number;
  /** how messages and the log name every object, instead of `object <n>/<count>` (a pasted link's one file) */
  objectName?: string;
  /** the largest object downloaded (default MAX_OBJECT_BYTES); DownloadOptions.maxObjectBytes overrides it */
  maxObjectBytes?: number;
  /** the most objects of one job downloaded (default MAX_JOB_OBJECTS); DownloadOptions.maxObjects overrides it */
  maxObjects?: number;
  /** link requests allowed per window, for the estimate of a job's link requests */
  linkBudget?: { calls: number; windowMs: number };
  /** an attempt receiving less than this per second over stallWindowMs is too slow (default MIN_BYTES_PER_SECOND) */
  minBytesPerSecond?: number;
  /** default STALL_WINDOW_MS */
  stallWindowMs?: number;
}

/** The largest result object downloaded unless a caller says otherwise: objects are typically up to about 500 MB. */
export const MAX_OBJECT_BYTES = 64 * 1024 ** 3;
/**
 * The most result objects of one job downloaded unless a caller says otherwise: each needs a
 * link request of its own, and at 200 a minute these alone take 50 minutes.
 */
export const MAX_JOB_OBJECTS = 10_000;
/** An object host sending less than this per second, averaged over STALL_WINDOW_MS, is trickling. */
export const MIN_BYTES_PER_SECOND = 1024;
export const STALL_WINDOW_MS = 30_000;
/** Link requests that take longer than this get a warning up front with the estimate. */
const LONG_LINK_REQUESTS_MS = 15 * 60_000;

/**
 * Refused links (403/404 from the object host) in a row, with no byte added in between,
 * before an object is given up. Links expire early now and then; eight refusals in a row
 * mean the results are gone, not bad luck.
 */
export const MAX_REFUSALS_IN_A_ROW = 8;
const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 32;
/** The most of an error answer's body that is read before the connection is dropped. */
const DISCARDED_BODY_BYTES = 64 * 1024;

interface Progress {
  received: Map<string, number>;
  /** each object's size, once an answer's Content-Length or Content-Range has told it */
  totals: Map<string, number>;
  allBytes: number;
  doneObjects: number;
  totalObjects: number;
  emit?: (p: DownloadProgress) => void;
}

/** What one download run shares between its objects. */
interface Run {
  dir: string;
  /** names this run's staging and backup files */
  runId: string;
  opts: DownloadOptions;
  signal: AbortSignal;
  progress: Progress;
  maxObjectBytes: number;
}

/** An object whose bytes are all in its sink, not yet closed. */
interface Received {
  object: ObjectRef;
  /** its file name without extension */
  base: string;
  sink: ObjectFileSink;
}

/** How one request for an object ended. */
type Attempt =
  | { kind: 'complete' }
  | { kind: 'refused'; status: number }
  | { kind: 'failed'; error: DqError; retryAfter?: string | string[]; slow?: boolean };

/** What the status and headers of the object host's answer say. */
type Answer =
  | Attempt
  | { kind: 'body'; skip: number }
  | { kind: 'otherRange'; error: DqError }
  | { kind: 'stop'; error: DqError };

export class ObjectDownloader {
  private readonly logger: Logger;

  constructor(private readonly options: ObjectDownloaderOptions) {
    this.logger = options.logger ?? nullLogger;
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
    const createdFolder = await makeFolder(dir);
    const stop = new AbortController();
    const run: Run = {
      dir,
      runId: randomBytes(6).toString('hex'),
      opts,
      signal: opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal,
      progress: { received: new Map(), totals: new Map(), allBytes: 0, doneObjects: 0, totalObjects: objects.length, emit: opts.onProgress },
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
          run.progress.doneObjects++;
          this.report(run.progress, object.id);
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
        throw new DqError('cancelled', `Download of job ${job.id} was cancelled`, { operation: 'download' });
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
    const estimate = linksMs === undefined || budget === undefined ? '' : `link requests alone would take about ${duration(linksMs)} at ${budget.calls} ${budget.windowMs === 60_000 ? 'a minute' : `per ${duration(budget.windowMs)}`}`;
    if (count > max) {
      throw new DqError('usage', `Job ${jobId} has ${count} result files, more than the ${max} this client downloads${estimate ? `: ${estimate}` : ''}`, {
        operation: 'download',
        details: { objects: count, maxObjects: max },
        hint: 'Run a smaller query (an incremental one since a recent point), or, if a job this large is expected, raise the limit on result files per job (--max-files for dq, maxObjects for the client).',
      });
    }
    if (linksMs !== undefined && linksMs > LONG_LINK_REQUESTS_MS) this.logger.warn(`Job ${jobId} has ${count} result files: ${estimate}.`);
  }

  private report(progress: Progress, objectId: string): void {
    if (!progress.emit) return;
    try {
      progress.emit({
        objectId,
        bytes: progress.received.get(objectId) ?? 0,
        total: progress.totals.get(objectId),
        doneObjects: progress.doneObjects,
        totalObjects: progress.totalObjects,
        allBytes: progress.allBytes,
      });
    } catch {
      /* a progress listener's failure must not break the download */
    }
  }

  private setReceived(progress: Progress, objectId: string, bytes: number): void {
    progress.allBytes += bytes - (progress.received.get(objectId) ?? 0);
    progress.received.set(objectId, bytes);
  }

  /** Streams one object into a new staging file; the sink it returns has all of its bytes. */
  private async receive(object: ObjectRef, index: number, run: Run): Promise<Received> {
    const base = objectFileBaseName(object.id, index);
    const label = this.options.objectName ?? `object ${index + 1}/${run.progress.totalObjects}`;
    const sink = new ObjectFileSink(runFilePath(run.dir, base, run.runId, 'part'), run.opts.decompress === true, run.opts.sha256 === true);
    await sink.open();
    try {
      await this.fetchInto(sink, object.id, label, run);
      return { object, base, sink };
    } catch (err) {
      await sink.discard();
      if (run.opts.signal?.aborted) throw cancelled();
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
      if (run.opts.signal?.aborted) throw cancelled();
      throw err;
    }
  }

  /**
   * Requests the object until all of it is in the sink. Budgets count attempts in a row that
   * add no byte beyond the highest reached: any new byte starts them afresh.
   */
  private async fetchInto(sink: ObjectFileSink, objectId: string, label: string, run: Run): Promise<void> {
    const { retry, clock } = this.options;
    const maxRefusals = this.options.maxRefusalsInARow ?? MAX_REFUSALS_IN_A_ROW;
    let url = await this.link(objectId, run.signal);
    const known: { total?: number } = {};
    let highest = 0;
    let refusals = 0;
    let failures = 0;
    /** attempts found too slow: new bytes do not make up for them, or a trickle would never end */
    let slow = 0;
    for (;;) {
      if (run.signal.aborted) throw cancelled();
      const attempt = await this.attempt(url, sink, objectId, label, run, known);
      if (sink.received > highest) {
        highest = sink.received;
        refusals = 0;
        failures = 0;
      }
      if (attempt.kind === 'complete') return;
      if (attempt.kind === 'refused') {
        refusals++;
        if (refusals >= maxRefusals) throw linkRefused(label, attempt.status, refusals);
        this.logger.info(`${label}: the object host answered ${attempt.status}; asking for a fresh link (${refusals}/${maxRefusals} in a row)`);
        url = await this.link(objectId, run.signal);
        continue;
      }
      if (attempt.slow && slow++ >= retry.maxRetries) throw attempt.error;
      if (failures >= retry.maxRetries) throw attempt.error;
      const delay = retryDelayMs(retry, {
        retry: failures,
        status: attempt.error.status,
        retryAfter: attempt.retryAfter,
        default429Ms: this.options.defaultRetryAfterMs,
        now: clock.now(),
        operation: `downloading ${label}`,
      });
      failures++;
      this.logger.info(`${label}: ${attempt.error.message}; trying again in ${delay} ms (${failures}/${retry.maxRetries} in a row without progress)`);
      await waitOrCancel(clock, delay, run.signal, `Downloading ${label}`);
    }
  }

  /** One request for the rest of the object, streamed into the sink. */
  private async attempt(url: string, sink: ObjectFileSink, objectId: string, label: string, run: Run, known: { total?: number }): Promise<Attempt> {
    const { options, logger } = this;
    const offset = sink.received;
    const headers: Record<string, string> = { 'user-agent': options.userAgent };
    if (offset > 0) headers.range = `bytes=${offset}-`;
    let answer: Answer | undefined;
    const onBytes = (): void => {
      this.setReceived(run.progress, objectId, sink.received);
      this.report(run.progress, objectId);
    };
    let failure: unknown;
    const watch = this.watchThroughput(sink, label);
    try {
      // deliberately no Authorization or any other credential: the link carries its own
      await stream(
        url,
        {
          method: 'GET',
          dispatcher: options.dispatcher,
          headers,
          signal: AbortSignal.any([run.signal, watch.signal]),
          headersTimeout: options.requestTimeoutMs,
          bodyTimeout: options.requestTimeoutMs,
        },
        ({ statusCode, headers: answered }) => {
          logger.debug(`GET ${label} ${safeUrl(url)} ${statusCode}${offset > 0 ? ` from byte ${offset}` : ''}`);
          answer = judgeAnswer(statusCode, answered, offset, known, label, run.maxObjectBytes);
          if (answer.kind !== 'body') return discardBody();
          const { total } = known;
          const announced = total !== undefined && total <= run.maxObjectBytes;
          sink.limitTo(announced ? total : run.maxObjectBytes, () => (announced ? longerThanAnnounced(label, total) : objectTooLarge(label, run.maxObjectBytes)));
          if (known.total !== undefined) run.progress.totals.set(objectId, known.total);
          if (answer.skip > 0) logger.info(`${label}: the object host ignored the Range request; skipping the ${offset} bytes already here`);
          sink.skipNext(answer.skip);
          return sink.writable(onBytes);
        },
      );
    } catch (err) {
      failure = err;
    } finally {
      watch.stop();
    }
    await sink.idle(); // what arrived before the end is in the sink before anything else happens
    if (failure !== undefined) {
      if (isDqError(failure)) throw failure;
      if (watch.tooSlow && !run.signal.aborted) return { kind: 'failed', error: watch.tooSlow, slow: true };
      // an answer that is not the object was judged by its status; its body does not matter
      if (answer === undefined || answer.kind === 'body') return networkFailure(failure, url, label, run.signal);
    }
    if (answer === undefined) throw new DqError('network', `The object host gave no answer for ${label}`, { operation: 'download' });
    if (answer.kind === 'stop') throw answer.error;
    if (answer.kind === 'otherRange') {
      logger.info(`${label}: unexpected Content-Range, starting over`);
      await sink.restart();
      this.setReceived(run.progress, objectId, 0);
      return { kind: 'failed', error: answer.error };
    }
    if (answer.kind !== 'body') return answer;
    if (known.total !== undefined && sink.received > known.total) throw sizeMismatch(label, known.total, sink.received);
    if (sink.skipping > 0 || (known.total !== undefined && sink.received < known.total)) {
      const of = known.total === undefined ? '' : ` of ${known.total}`;
      const error = new DqError('network', `The connection ended after ${sink.received}${of} bytes of ${label}`, { operation: 'download' });
      return { kind: 'failed', error };
    }
    return { kind: 'complete' };
  }

  /**
   * Aborts its signal when less than the minimum throughput arrives in the sink over a window
   * (real time, like the connection's own timeouts); `tooSlow` then says so.
   */
  private watchThroughput(sink: ObjectFileSink, label: string): { signal: AbortSignal; stop: () => void; tooSlow?: DqError } {
    const windowMs = this.options.stallWindowMs ?? STALL_WINDOW_MS;
    const perSecond = this.options.minBytesPerSecond ?? MIN_BYTES_PER_SECOND;
    const least = (perSecond * windowMs) / 1000;
    const abort = new AbortController();
    const stopped = new AbortController();
    const watch = { signal: abort.signal, stop: () => stopped.abort(), tooSlow: undefined as DqError | undefined };
    void (async () => {
      for (let mark = sink.arrivedBytes; ; mark = sink.arrivedBytes) {
        try {
          await systemClock.sleep(windowMs, stopped.signal);
        } catch {
          return;
        }
        const got = sink.arrivedBytes - mark;
        if (got < least) {
          watch.tooSlow = tooSlow(label, got, windowMs, perSecond);
          abort.abort();
          return;
        }
      }
    })();
    return watch;
  }

  private async link(objectId: string, signal: AbortSignal): Promise<string> {
    const url = await this.options.freshUrl(objectId, signal);
    checkUrl(url, this.options.allowInsecureHttp, 'download link');
    return url;
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

/**
 * What an answer of the object host means, from its status and headers alone: the body is the
 * rest of the object (after `skip` bytes already here), or the attempt ended with `Attempt`,
 * or the host sent another range than asked (start over), or the download must stop.
 */
function judgeAnswer(status: number, headers: IncomingHttpHeaders, offset: number, known: { total?: number }, label: string, maxBytes: number): Answer {
  if (status === 403 || status === 404) return { kind: 'refused', status };
  if (status === 416 && known.total !== undefined && offset === known.total) return { kind: 'complete' };
  if (status === 429 || status >= 500) {
    const error = new DqError('server', `The object host answered HTTP ${status} for ${label}`, { status, operation: 'download' });
    return { kind: 'failed', error, retryAfter: headers['retry-after'] };
  }
  try {
    if (status === 200) {
      known.total = agreeTotal(known.total, headerNumber(headers['content-length']), label);
      if (known.total !== undefined && known.total > maxBytes) return { kind: 'stop', error: objectTooLarge(label, maxBytes, known.total) };
      return { kind: 'body', skip: offset };
    }
    if (status === 206) {
      const range = parseContentRange(headers['content-range']);
      if (!range || range.start !== offset) {
        const error = new DqError('invalidResponse', `The object host answered a Range request with a different range for ${label}`, { operation: 'download' });
        return { kind: 'otherRange', error };
      }
      known.total = agreeTotal(known.total, range.total, label);
      if (known.total !== undefined && known.total > maxBytes) return { kind: 'stop', error: objectTooLarge(label, maxBytes, known.total) };
      return { kind: 'body', skip: 0 };
    }
  } catch (err) {
    return { kind: 'stop', error: err as DqError };
  }
  if (status >= 300 && status < 400 && status !== 304) return { kind: 'stop', error: redirected(status, headers.location, label) };
  const error = new DqError('server', `The object host answered HTTP ${status} for ${label}`, {
    status,
    operation: 'download',
    hint: 'Try the download again; if it keeps failing, run the query again.',
  });
  return { kind: 'stop', error };
}

/**
 * The object host sent the download elsewhere. Redirects are not followed (a link is fetched
 * from the host the service named, and nowhere else), so trying again cannot help.
 */
function redirected(status: number, location: string | string[] | undefined, label: string): DqError {
  const to = Array.isArray(location) ? location[0] : location;
  let where = 'to another address';
  try {
    if (to) where = `to ${new URL(to).host}`;
  } catch {
    /* a relative or unreadable Location: the same host, or nowhere in particular */
  }
  return new DqError('server', `The host of the download link for ${label} redirected it ${where} (HTTP ${status}), which this client does not follow`, {
    status,
    operation: 'download',
    hint: 'Trying again will not help: tell the data provider that its download links redirect, which they should not.',
  });
}

/** Reads and drops the body of an answer that is not the object, up to a bound. */
function discardBody(): Writable {
  let left = DISCARDED_BODY_BYTES;
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      left -= chunk.length;
      done(left < 0 ? new Error('the error answer is too long') : null);
    },
  });
}

/** Creates the folder; returns the first folder this created, if any, for cleaning up. */
async function makeFolder(dir: string): Promise<string | undefined> {
  try {
    return await fs.mkdir(dir, { recursive: true });
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

function cancelled(): DqError {
  return new DqError('cancelled', 'The download was cancelled', { operation: 'download' });
}

function networkFailure(err: unknown, url: string, label: string, signal: AbortSignal): Attempt {
  if (signal.aborted) throw cancelled();
  const mapped = errorFromNetwork(err, 'download', `the object host for ${label} (${safeUrl(url)})`);
  if (!isTransientNetworkError(err)) throw mapped;
  return { kind: 'failed', error: mapped };
}

function linkRefused(label: string, status: number, times: number): DqError {
  return new DqError('server', `The download link for ${label} was refused (HTTP ${status}) ${times} times in a row, with fresh links and no progress`, {
    status,
    operation: 'download',
    details: { refusedInARow: times },
    hint: 'The results may have expired (about 24 hours after the job started); run the query again.',
  });
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

function headerNumber(value: string | string[] | undefined): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || !/^\d+$/.test(raw.trim())) return undefined;
  return Number(raw.trim());
}

/** `bytes start-end/total` (total may be `*`). */
export function parseContentRange(value: string | string[] | undefined): { start: number; end: number; total?: number } | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  const m = raw ? /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/i.exec(raw) : null;
  if (!m) return undefined;
  return { start: Number(m[1]), end: Number(m[2]), total: m[3] === '*' ? undefined : Number(m[3]) };
}

function sizeMismatch(label: string, expected: number, got: number): DqError {
  return new DqError('invalidResponse', `The size of ${label} does not match: expected ${expected} bytes, got ${got}`, {
    operation: 'download',
    hint: 'The file was not kept. Download it again; if the sizes keep disagreeing, run the query again.',
  });
}

function longerThanAnnounced(label: string, announced: number): DqError {
  return new DqError('invalidResponse', `The object host sent more of ${label} than the ${announced} bytes it announced`, {
    operation: 'download',
    hint: 'The file was not kept. Download it again; if it happens again, run the query again.',
  });
}

function objectTooLarge(label: string, max: number, announced?: number): DqError {
  const size = announced === undefined ? 'is larger than' : `is ${formatBytes(announced)}, more than`;
  return new DqError('invalidResponse', `${capitalised(label)} ${size} the ${formatBytes(max)} this client downloads for one result file`, {
    operation: 'download',
    details: { maxObjectBytes: max, ...(announced === undefined ? {} : { announcedBytes: announced }) },
    hint: 'The file was not kept. Result files are typically up to about 500 MB, so the link probably leads somewhere else; if files this large are expected, raise the limit (maxObjectBytes).',
  });
}

function tooSlow(label: string, got: number, windowMs: number, perSecond: number): DqError {
  return new DqError('network', `The object host sent ${label} too slowly: ${got} bytes in ${duration(windowMs)}, less than ${formatBytes(perSecond)} a second`, {
    operation: 'download',
    details: { bytesInWindow: got, windowMs },
    hint: 'The network or the object host is overloaded; try again later, or check the network and proxy.',
  });
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A length of time as the largest fitting unit: `42 hours`, `50 minutes`, `30 s`. */
function duration(ms: number): string {
  if (ms >= 2 * 3_600_000) return `${Math.round(ms / 3_600_000)} hours`;
  if (ms >= 2 * 60_000) return `${Math.round(ms / 60_000)} minutes`;
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** A limit given by a caller: a whole number of at least 1 (a usage error otherwise). */
function limitOption(name: string, value: number): number {
  if (Number.isSafeInteger(value) && value >= 1) return value;
  throw new DqError('usage', `The download option ${name} must be a whole number of at least 1, not ${String(value)}`, { operation: 'download', hint: `Fix ${name} where the download is started.` });
}

function agreeTotal(previous: number | undefined, next: number | undefined, label: string): number | undefined {
  if (previous !== undefined && next !== undefined && previous !== next) throw sizeMismatch(label, previous, next);
  return next ?? previous;
}
