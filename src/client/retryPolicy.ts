// When and how long to wait before trying a failed call again: exponential backoff with
// full jitter, Retry-After parsing, and which failures are worth another attempt.

import type { Clock } from '../core/clock';
import { isoUtc } from '../core/isoTime';
import { DqError } from './errors';

export interface RetryPolicy {
  /** attempts after the first */
  maxRetries: number;
  baseMs: number;
  maxMs: number;
  /**
   * The longest wait a server may ask for with Retry-After (or a 429 without it may cost).
   * A longer one fails at once as kind `rateLimited`, naming the time the server gave.
   */
  maxWaitMs: number;
  /** uniform in [0, 1) */
  random: () => number;
}

export const DEFAULT_MAX_WAIT_MS = 2 * 60_000;

export interface RetryWaitInput {
  /** retries already made (0 before the first retry) */
  retry: number;
  /** the answer's status, when there was an answer */
  status?: number;
  /** the answer's Retry-After header */
  retryAfter?: string | string[];
  /** the wait for a 429 that named none (contract: a conservative default, 30 s) */
  default429Ms?: number;
  now: number;
  /** e.g. `listTables`, `sign-in`, `object 2/5`: named in the error */
  operation: string;
  /** the error the answer maps to, whose server type and uuid the rateLimited error keeps */
  answer?: DqError;
}

/**
 * The one answer to "how long before the next try": the server's Retry-After when it named
 * one, the 429 default when a 429 named none (never less than the backoff), else full-jitter
 * backoff. A wait above `policy.maxWaitMs` throws a `rateLimited` DqError at once.
 */
export function retryDelayMs(policy: RetryPolicy, input: RetryWaitInput): number {
  const backoff = backoffDelayMs(input.retry, policy);
  const named = parseRetryAfter(input.retryAfter, input.now);
  let wait = backoff;
  if (named !== undefined) wait = named;
  else if (input.status === 429) wait = Math.max(input.default429Ms ?? 30_000, backoff);
  if (wait > policy.maxWaitMs) {
    const seconds = Math.ceil(wait / 1000);
    const until = isoUtc(Math.ceil((input.now + wait) / 1000) * 1000);
    throw new DqError('rateLimited', `The service asked ${input.operation} to wait ${seconds} s (until ${until}), longer than the ${Math.ceil(policy.maxWaitMs / 1000)} s this client waits`, {
      status: input.status,
      type: input.answer?.type,
      uuid: input.answer?.uuid,
      operation: input.operation,
      details: { retryAfterMs: wait, retryAt: until },
      hint: `Try again after ${until}; calls made before then are likely to be refused again.`,
    });
  }
  return wait;
}

/** Sleeps on the clock; an abort becomes a `cancelled` DqError naming the operation. */
export async function waitOrCancel(clock: Clock, ms: number, signal: AbortSignal | undefined, operation: string): Promise<void> {
  if (signal?.aborted) throw cancelledError(operation);
  try {
    await clock.sleep(ms, signal);
  } catch {
    throw cancelledError(operation);
  }
}

export function cancelledError(operation: string): DqError {
  return new DqError('cancelled', `${operation} was cancelled`, { operation });
}

/** Full jitter: uniform in [0, min(maxMs, baseMs * 2^retry)). `retry` counts from 0. */
export function backoffDelayMs(retry: number, policy: RetryPolicy): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(retry, 30));
  const r = Math.min(Math.max(policy.random(), 0), 1);
  return Math.floor(r * ceiling);
}

/** Retry-After as milliseconds from `now`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** 5xx answers that say the same request will fail again: not implemented, HTTP version not
 *  supported, network sign-in required (a captive portal). */
const LASTING_SERVER_STATUSES = new Set([501, 505, 511]);

/** 429, 502/503/504 and every other 5xx but the lasting ones: the same request may succeed later. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599 && !LASTING_SERVER_STATUSES.has(status));
}

const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/** Dropped or timed-out connections; refused connections and DNS failures are not transient. */
export function isTransientNetworkError(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && /other side closed|socket hang up|socket closed/i.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The first string `code` along an error's cause chain. */
export function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
