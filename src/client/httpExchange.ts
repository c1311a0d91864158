// One HTTP request whose answer is read as text: what both the API transport and the
// sign-in need. The read is bounded, so a wrong base URL that points at a big file cannot
// fill memory, and so is its time: the whole answer, headers and body, must be in within a
// deadline, however steadily it trickles (the connection's own timeouts only notice silence).
// The deadline is real time, like those timeouts. Retrying, limiting and error mapping stay
// with the callers.

import { request, type Dispatcher } from 'undici';
import { systemClock } from '../core/clock';
import { operationLabel, type CallName } from './errorMapping';
import { DqError } from './errors';
import { SLOW_ANSWER_CODE } from './retryPolicy';

/** The most a successful answer may hold: far above the largest schema or link batch. */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** The most of an error answer that is read: enough for any error envelope and an excerpt. */
export const MAX_ERROR_BYTES = 16 * 1024;

export interface Exchange {
  status: number;
  retryAfter: string | string[] | undefined;
  /** the body, or for an error answer its first MAX_ERROR_BYTES */
  text: string;
}

export interface ExchangeInit {
  operation: CallName;
  method: 'GET' | 'POST';
  dispatcher: Dispatcher;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  timeoutMs: number;
  /** the longest the whole answer may take, headers and body */
  deadlineMs: number;
  /** limit for a successful answer (default MAX_ANSWER_BYTES) */
  maxBytes?: number;
}

export async function exchange(url: string, init: ExchangeInit): Promise<Exchange> {
  const late = new AbortController();
  const done = new AbortController();
  systemClock.sleep(init.deadlineMs, done.signal).then(
    () => late.abort(),
    () => undefined,
  );
  try {
    const res = await request(url, {
      method: init.method,
      dispatcher: init.dispatcher,
      headers: init.headers,
      body: init.body,
      signal: init.signal ? AbortSignal.any([init.signal, late.signal]) : late.signal,
      headersTimeout: init.timeoutMs,
      bodyTimeout: init.timeoutMs,
    });
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    const limit = ok ? (init.maxBytes ?? MAX_ANSWER_BYTES) : MAX_ERROR_BYTES;
    if (ok && Number(res.headers['content-length']) > limit) {
      res.body.destroy();
      throw tooLarge(init.operation, limit);
    }
    const { text, complete } = await readAtMost(res.body, limit);
    if (ok && !complete) throw tooLarge(init.operation, limit);
    return { status: res.statusCode, retryAfter: res.headers['retry-after'], text };
  } catch (err) {
    if (late.signal.aborted && !init.signal?.aborted) throw slowAnswer(init.deadlineMs, err);
    throw err;
  } finally {
    done.abort();
  }
}

/** The answer was not all in by the deadline: a failure retried like a dropped connection. */
function slowAnswer(deadlineMs: number, cause: unknown): Error {
  const seconds = Number((deadlineMs / 1000).toFixed(1));
  return Object.assign(new Error(`the service sent its answer too slowly: not all of it had arrived after ${seconds} s`, { cause }), { code: SLOW_ANSWER_CODE });
}

/** Reads up to `limit` bytes, then stops and destroys the body; `complete` says whether it all fit. */
async function readAtMost(body: Dispatcher.ResponseData['body'], limit: number): Promise<{ text: string; complete: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const room = limit - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      body.destroy();
      return { text: Buffer.concat(chunks).toString('utf8'), complete: false };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), complete: true };
}

function tooLarge(operation: CallName, limit: number): DqError {
  const size = limit >= 1024 * 1024 ? `${Math.round(limit / (1024 * 1024))} MiB` : `${Math.ceil(limit / 1024)} KiB`;
  return new DqError('invalidResponse', `${operationLabel(operation)} got an answer larger than ${size}, far more than the service ever sends`, {
    operation,
    hint: 'The base URL or data prefix may be wrong: check that they point at the Data Query Service gateway.',
  });
}
