// One request for the rest of a result object, streamed into its sink: a Range request from
// the bytes already here, judged by the answer's status and headers before its body is read,
// bounded by the object's announced size and the largest allowed, and dropped when it
// trickles. It never carries a credential of any kind, and never follows a redirect. How the
// attempt ended is for the caller (objectFetch.ts) to act on.
//
// The throughput windows are measured in real time, like the connection's own timeouts,
// never on the injected clock.

import type { IncomingHttpHeaders } from 'node:http';
import { Writable } from 'node:stream';
import { stream, type Dispatcher } from 'undici';
import { systemClock } from '../core/clock';
import { safeUrl, type Logger } from '../core/logger';
import { downloadCancelled, longerThanAnnounced, objectTooLarge, redirected, sizeMismatch, tooSlow } from './downloadErrors';
import type { RunProgress } from './downloadProgress';
import { errorFromNetwork } from './errorMapping';
import { DqError, isDqError } from './errors';
import type { ObjectFileSink } from './objectFileSink';
import { isTransientNetworkError } from './retryPolicy';

/** An object host sending less than this per second, averaged over STALL_WINDOW_MS, is trickling. */
export const MIN_BYTES_PER_SECOND = 1024;
export const STALL_WINDOW_MS = 30_000;
/** The most of an error answer's body that is read before the connection is dropped. */
const DISCARDED_BODY_BYTES = 64 * 1024;

export interface AttemptSettings {
  dispatcher: Dispatcher;
  userAgent: string;
  requestTimeoutMs: number;
  logger: Logger;
  /** an attempt receiving less than this per second over stallWindowMs is too slow (default MIN_BYTES_PER_SECOND) */
  minBytesPerSecond?: number;
  /** default STALL_WINDOW_MS */
  stallWindowMs?: number;
}

/** What the attempts of one run share. */
export interface ObjectRun {
  signal: AbortSignal;
  progress: RunProgress;
  maxObjectBytes: number;
}

/** The object an attempt is for, and what earlier attempts learnt of it. */
export interface ObjectTarget {
  objectId: string;
  /** how messages and the log name it, e.g. `object 2/5` */
  label: string;
  sink: ObjectFileSink;
  /** its size, once an answer has told it */
  known: { total?: number };
}

/** How one request for an object ended. */
export type Attempt =
  | { kind: 'complete' }
  | { kind: 'refused'; status: number }
  | { kind: 'failed'; error: DqError; retryAfter?: string | string[]; slow?: boolean };

/** What the status and headers of the object host's answer say. */
type Answer =
  | Attempt
  | { kind: 'body'; skip: number }
  | { kind: 'otherRange'; error: DqError }
  | { kind: 'stop'; error: DqError };

/** One request for the rest of the object, streamed into the sink. */
export async function attemptObject(url: string, target: ObjectTarget, run: ObjectRun, settings: AttemptSettings): Promise<Attempt> {
  const { objectId, label, sink, known } = target;
  const { logger } = settings;
  const offset = sink.received;
  const headers: Record<string, string> = { 'user-agent': settings.userAgent };
  if (offset > 0) headers.range = `bytes=${offset}-`;
  let answer: Answer | undefined;
  const onBytes = (): void => run.progress.bytesIn(objectId, sink.received);
  let failure: unknown;
  const watch = watchThroughput(sink, label, settings);
  try {
    // deliberately no Authorization or any other credential: the link carries its own
    await stream(
      url,
      {
        method: 'GET',
        dispatcher: settings.dispatcher,
        headers,
        signal: AbortSignal.any([run.signal, watch.signal]),
        headersTimeout: settings.requestTimeoutMs,
        bodyTimeout: settings.requestTimeoutMs,
      },
      ({ statusCode, headers: answered }) => {
        logger.debug(`GET ${label} ${safeUrl(url)} ${statusCode}${offset > 0 ? ` from byte ${offset}` : ''}`);
        answer = judgeAnswer(statusCode, answered, offset, known, label, run.maxObjectBytes);
        if (answer.kind !== 'body') return discardBody();
        const { total } = known;
        const announced = total !== undefined && total <= run.maxObjectBytes;
        sink.limitTo(announced ? total : run.maxObjectBytes, () => (announced ? longerThanAnnounced(label, total) : objectTooLarge(label, run.maxObjectBytes)));
        if (known.total !== undefined) run.progress.setTotal(objectId, known.total);
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
    run.progress.setReceived(objectId, 0);
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
function watchThroughput(sink: ObjectFileSink, label: string, settings: AttemptSettings): { signal: AbortSignal; stop: () => void; tooSlow?: DqError } {
  const windowMs = settings.stallWindowMs ?? STALL_WINDOW_MS;
  const perSecond = settings.minBytesPerSecond ?? MIN_BYTES_PER_SECOND;
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

function networkFailure(err: unknown, url: string, label: string, signal: AbortSignal): Attempt {
  if (signal.aborted) throw downloadCancelled();
  const mapped = errorFromNetwork(err, 'download', `the object host for ${label} (${safeUrl(url)})`);
  if (!isTransientNetworkError(err)) throw mapped;
  return { kind: 'failed', error: mapped };
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

function agreeTotal(previous: number | undefined, next: number | undefined, label: string): number | undefined {
  if (previous !== undefined && next !== undefined && previous !== next) throw sizeMismatch(label, previous, next);
  return next ?? previous;
}
