// Downloads a complete job's result objects into a folder. Each object gets a fresh
// pre-signed link just before it starts, is fetched with no credentials of any kind, is
// streamed into `.<name>.part`, and checked for size. Only when every object of the job has
// arrived are the temporary files renamed to their final names, so a folder holds a whole
// result or none of it. Dropped connections resume with a Range request; 403/404 from the
// object host fetch a new link and resume. On failure or cancel the temporary files go, and
// files already in the folder (an earlier download) are left as they were.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { request, type Dispatcher } from 'undici';
import type { Clock } from '../core/clock';
import type { JobRecord, ObjectRef } from '../core/contract';
import { nullLogger, safeUrl, type Logger } from '../core/logger';
import { sniffFormat } from '../core/formatSniffer';
import { objectFileBaseName, resultFileExtension, safeJoin } from '../core/paths';
import { errorFromNetwork } from './errorMapping';
import { DqError, isDqError } from './errors';
import { ObjectFileSink } from './objectFileSink';
import { backoffDelayMs, isTransientNetworkError, type RetryPolicy } from './retryPolicy';
import { checkUrl } from './serviceUrls';
import type { DownloadedFile, DownloadOptions, DownloadProgress } from './types';

/** Asks the service for a new pre-signed URL for one object. */
export type FreshUrl = (objectId: string, signal: AbortSignal) => Promise<string>;

export interface ObjectDownloaderOptions {
  dispatcher: Dispatcher;
  clock: Clock;
  logger?: Logger;
  userAgent: string;
  retry: RetryPolicy;
  requestTimeoutMs: number;
  allowInsecureHttp: boolean;
  freshUrl: FreshUrl;
}

/** New links fetched for one object after 403/404 from the object host, before giving up. */
const MAX_LINK_REFRESHES = 3;
const DEFAULT_CONCURRENCY = 4;

interface Progress {
  received: Map<string, number>;
  totals: Map<string, number>;
  allBytes: number;
  doneObjects: number;
  totalObjects: number;
  emit?: (p: DownloadProgress) => void;
}

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
    const dir = path.resolve(opts.dir);
    await fs.mkdir(dir, { recursive: true });
    const stop = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
    const progress: Progress = {
      received: new Map(),
      totals: new Map(),
      allBytes: 0,
      doneObjects: 0,
      totalObjects: objects.length,
      emit: opts.onProgress,
    };
    const staged: (StagedFile | undefined)[] = new Array(objects.length);
    let firstError: unknown;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (firstError === undefined && next < objects.length) {
        const index = next++;
        try {
          staged[index] = await this.downloadOne(objects[index], index, dir, opts, signal, progress);
          progress.doneObjects++;
          this.report(progress, objects[index].id);
        } catch (err) {
          if (firstError === undefined) firstError = err;
          stop.abort();
        }
      }
    };
    const concurrency = Math.max(1, Math.min(opts.concurrency ?? DEFAULT_CONCURRENCY, objects.length || 1));
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
    if (firstError !== undefined) {
      await Promise.all(staged.map((f) => f && fs.rm(f.tempPath, { force: true })));
      if (opts.signal?.aborted) {
        throw new DqError('cancelled', `Download of job ${job.id} was cancelled`, { operation: 'download' });
      }
      throw firstError;
    }
    const files = staged as StagedFile[];
    for (const f of files) await fs.rename(f.tempPath, f.file.path);
    return files.map((f) => f.file);
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

  private async downloadOne(
    object: ObjectRef,
    index: number,
    dir: string,
    opts: DownloadOptions,
    signal: AbortSignal,
    progress: Progress,
  ): Promise<StagedFile> {
    const { options, logger } = this;
    const base = objectFileBaseName(object.id, index);
    const label = `object ${index + 1}/${progress.totalObjects}`;
    const sink = new ObjectFileSink(safeJoin(dir, `.${base}.part`), opts.decompress === true);
    await sink.open();
    try {
      let url = await this.link(object.id, signal);
      let expectedTotal: number | undefined;
      let linkRefreshes = 0;
      let failures = 0; // consecutive failures without progress
      const retryOrThrow = async (err: DqError, progressed: boolean): Promise<void> => {
        if (progressed) failures = 0;
        if (failures >= options.retry.maxRetries) throw err;
        const delay = backoffDelayMs(failures, options.retry);
        failures++;
        logger.info(`${label}: ${err.message}; resuming in ${delay} ms (${failures}/${options.retry.maxRetries})`);
        await options.clock.sleep(delay, signal).catch(() => {
          throw cancelled();
        });
      };
      const cancelled = (): DqError => new DqError('cancelled', 'The download was cancelled', { operation: 'download' });

      for (;;) {
        if (signal.aborted) throw cancelled();
        const offset = sink.received;
        const headers: Record<string, string> = { 'user-agent': options.userAgent };
        if (offset > 0) headers.range = `bytes=${offset}-`;
        let res: Dispatcher.ResponseData;
        try {
          // deliberately no Authorization or any other credential: the link carries its own
          res = await request(url, {
            method: 'GET',
            dispatcher: options.dispatcher,
            headers,
            signal,
            headersTimeout: options.requestTimeoutMs,
            bodyTimeout: options.requestTimeoutMs,
          });
        } catch (err) {
          if (signal.aborted) throw cancelled();
          const mapped = errorFromNetwork(err, 'download', `the object host for ${label} (${safeUrl(url)})`);
          if (!isTransientNetworkError(err)) throw mapped;
          await retryOrThrow(mapped, false);
          continue;
        }
        const status = res.statusCode;
        logger.debug(`GET ${label} ${safeUrl(url)} ${status}${offset > 0 ? ` from byte ${offset}` : ''}`);
        if (status === 403 || status === 404) {
          await res.body.dump().catch(() => undefined);
          if (linkRefreshes >= MAX_LINK_REFRESHES) {
            throw new DqError('server', `The download link for ${label} was refused (HTTP ${status}) even after ${MAX_LINK_REFRESHES} fresh links`, {
              status,
              operation: 'download',
              hint: 'The results may have expired (about 24 hours after the job started); run the query again.',
            });
          }
          linkRefreshes++;
          logger.info(`${label}: object host answered ${status}, asking for a fresh link`);
          url = await this.link(object.id, signal);
          continue;
        }
        if (status === 416 && expectedTotal !== undefined && offset === expectedTotal) {
          await res.body.dump().catch(() => undefined);
          break; // everything had arrived already
        }
        if (status === 429 || status >= 500) {
          await res.body.dump().catch(() => undefined);
          await retryOrThrow(new DqError('server', `The object host answered HTTP ${status} for ${label}`, { status, operation: 'download' }), false);
          continue;
        }
        if (status === 200) {
          if (offset > 0) {
            logger.info(`${label}: the object host ignored the Range request; starting over`);
            await sink.restart();
            this.setReceived(progress, object.id, 0);
          }
          expectedTotal = agreeTotal(expectedTotal, headerNumber(res.headers['content-length']), label);
        } else if (status === 206) {
          const range = parseContentRange(res.headers['content-range']);
          if (!range || range.start !== offset) {
            await res.body.dump().catch(() => undefined);
            logger.info(`${label}: unexpected Content-Range, starting over`);
            await sink.restart();
            this.setReceived(progress, object.id, 0);
            await retryOrThrow(new DqError('invalidResponse', `The object host answered a Range request with a different range for ${label}`, { operation: 'download' }), false);
            continue;
          }
          expectedTotal = agreeTotal(expectedTotal, range.total, label);
        } else {
          await res.body.dump().catch(() => undefined);
          throw new DqError('server', `The object host answered HTTP ${status} for ${label}`, {
            status,
            operation: 'download',
            hint: 'Try the download again; if it keeps failing, run the query again.',
          });
        }
        if (expectedTotal !== undefined) progress.totals.set(object.id, expectedTotal);

        const before = sink.received;
        try {
          for await (const chunk of res.body) {
            await sink.write(chunk as Buffer);
            this.setReceived(progress, object.id, sink.received);
            this.report(progress, object.id);
          }
        } catch (err) {
          if (signal.aborted) throw cancelled();
          if (isDqError(err)) throw err;
          const mapped = errorFromNetwork(err, 'download', `the object host for ${label} (${safeUrl(url)})`);
          if (!isTransientNetworkError(err)) throw mapped;
          await retryOrThrow(mapped, sink.received > before);
          continue;
        }
        if (expectedTotal !== undefined && sink.received < expectedTotal) {
          await retryOrThrow(
            new DqError('network', `The connection ended after ${sink.received} of ${expectedTotal} bytes of ${label}`, { operation: 'download' }),
            sink.received > before,
          );
          continue;
        }
        if (expectedTotal !== undefined && sink.received > expectedTotal) {
          throw sizeMismatch(label, expectedTotal, sink.received);
        }
        break;
      }

      const result = await sink.finish();
      const finalPath = safeJoin(dir, base + resultFileExtension(opts.format ?? (await sniffFile(sink.tempPath)), result.fileGzip));
      return {
        tempPath: sink.tempPath,
        file: { objectId: object.id, path: finalPath, bytes: result.fileBytes, sha256: result.sha256, gzip: result.fileGzip },
      };
    } catch (err) {
      await sink.discard();
      if (opts.signal?.aborted) throw new DqError('cancelled', 'The download was cancelled', { operation: 'download' });
      throw err;
    }
  }

  private async link(objectId: string, signal: AbortSignal): Promise<string> {
    const url = await this.options.freshUrl(objectId, signal);
    checkUrl(url, this.options.allowInsecureHttp, 'download link');
    return url;
  }
}

/** A complete, verified object still under its temporary name. */
interface StagedFile {
  tempPath: string;
  file: DownloadedFile;
}

/** The format of a finished file from its first bytes, when the caller did not say. */
async function sniffFile(file: string): Promise<string | undefined> {
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(16_384);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return sniffFormat(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
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

function agreeTotal(previous: number | undefined, next: number | undefined, label: string): number | undefined {
  if (previous !== undefined && next !== undefined && previous !== next) throw sizeMismatch(label, previous, next);
  return next ?? previous;
}
