// When and how long to wait before trying a failed call again: exponential backoff with
// full jitter, Retry-After parsing, and which failures are worth another attempt; and the one
// loop that runs a call's attempts by those rules (`runWithRetries`), for the data calls, the
// sign-in and the object downloads alike.

import type { Clock } from '../core/clock';
import { isoUtc } from '../core/isoTime';
import { cancelledError, DqError } from './errors';

export interface RetryPolicy {
  /** attempts after the first */
  maxRetries: number;
  baseMs: number;
  maxMs: number;
  /**
   * The longest wait a server may ask for with Retry-After (or a 429 without it may cost).
   * A longer one fails at once as kind `rateLimited`, naming the time the server gave; a
   * 429's pause still holds back the operation's later calls until then.
   */
  maxWaitMs: number;
  /** uniform in [0, 1) */
  random: () => number;
}

export const DEFAULT_MAX_WAIT_MS = 2 * 60_000;

/** The policy every client uses unless told otherwise: 4 retries, backoff from 500 ms up to 30 s. */
export const DEFAULT_RETRY_POLICY: Readonly<Omit<RetryPolicy, 'random'>> = {
  maxRetries: 4,
  baseMs: 500,
  maxMs: 30_000,
  maxWaitMs: DEFAULT_MAX_WAIT_MS,
};

/** The default policy with `random` as its jitter source. */
export function defaultRetryPolicy(random: () => number = Math.random): RetryPolicy {
  return { ...DEFAULT_RETRY_POLICY, random };
}

/**
 * Refused download links (403/404 from the object host) in a row, with no byte added in
 * between, before an object is given up. Links expire early now and then; eight refusals in a
 * row mean the results are gone, not bad luck.
 */
export const MAX_REFUSALS_IN_A_ROW = 8;

/**
 * How the object store's credential chain asks the machine's own metadata services (a
 * container's, an EC2 instance's) before it gives up: briefly, as those answer at once where
 * they exist, and a machine without one should not keep a sync waiting.
 */
export const METADATA_SERVICE_RETRIES = {
  container: { timeout: 2000, maxRetries: 1 },
  instance: { timeout: 1000, maxRetries: 0 },
} as const;

/**
 * The longest wait a server's Retry-After is taken to ask for: a longer one (up to a number
 * too large for a date) counts as this, far beyond any wait this client makes, and names a
 * time that can still be shown. Results are deleted after about a day anyway.
 */
export const MAX_SERVER_WAIT_MS = 7 * 24 * 3_600_000;

export interface RetryWaitInput {
  /** retries already made (0 before the first retry) */
  retry: number;
  /** the answer's status, when there was an answer */
  status?: number;
  /** the answer's Retry-After header */
  retryAfter?: string | string[];
  /** the least wait for a 429 that named none (contract: a conservative default, 30 s, then back off) */
  default429Ms?: number;
  now: number;
  /** e.g. `listTables`, `sign-in`, `object 2/5`: named in the error */
  operation: string;
  /** the error the answer maps to, whose server type and uuid the rateLimited error keeps */
  answer?: DqError;
}

/**
 * The wait an answer asks for, before the longest-wait check: the server's Retry-After when
 * it named one; for a 429 that named none, the default doubled for every retry made, with
 * jitter between half and all of that (capped by `maxWaitMs`) and never less than the default,
 * so clients that share credentials spread their retries; else full-jitter backoff.
 */
export function serverWaitMs(policy: RetryPolicy, input: RetryWaitInput): number {
  const backoff = backoffDelayMs(input.retry, policy);
  const named = parseRetryAfter(input.retryAfter, input.now);
  if (named !== undefined) return named;
  if (input.status === 429) return Math.max(unnamed429WaitMs(input.retry, input.default429Ms ?? DEFAULT_429_WAIT_MS, policy), backoff);
  return backoff;
}

/** The contract's conservative wait for a 429 without Retry-After. */
export const DEFAULT_429_WAIT_MS = 30_000;

/**
 * A 429 without Retry-After, `retry` counting from 0: uniform in [c / 2, c] with
 * c = min(maxWaitMs, default * 2^(retry + 1)), and never below the default. The first retry
 * waits 1 to 2 times the default, the next 2 to 4 times, until the longest wait caps it.
 */
export function unnamed429WaitMs(retry: number, defaultMs: number, policy: Pick<RetryPolicy, 'maxWaitMs' | 'random'>): number {
  const ceiling = Math.min(policy.maxWaitMs, defaultMs * 2 ** Math.min(retry + 1, 30));
  const r = Math.min(Math.max(policy.random(), 0), 1);
  return Math.max(defaultMs, Math.floor((ceiling / 2) * (1 + r)));
}

export interface WaitTooLong {
  /** e.g. `listTables`, `sign-in` */
  operation: string;
  /** how long the service asked to wait, from `now` */
  waitMs: number;
  now: number;
  /** the answer's status, when this call got the answer */
  status?: number;
  /** the answer that asked for the wait, when this call got it */
  answer?: DqError;
  /** true when the call was refused here, without being sent, because of an earlier answer */
  notSent?: boolean;
}

/**
 * The `rateLimited` error for a wait beyond the longest this client waits: what the service
 * asked for, until when, and that calls before then are likely refused again.
 */
export function waitTooLongError(maxWaitMs: number, facts: WaitTooLong): DqError {
  const seconds = `${facts.waitMs >= MAX_SERVER_WAIT_MS ? 'at least ' : ''}${Math.ceil(facts.waitMs / 1000)}`;
  const until = isoUtc(Math.ceil((facts.now + facts.waitMs) / 1000) * 1000);
  const longest = `longer than the ${Math.ceil(maxWaitMs / 1000)} s this client waits`;
  const message = facts.notSent
    ? `The service asked ${facts.operation} to wait until ${until} (${seconds} s from now), ${longest}; this call was not sent`
    : `The service asked ${facts.operation} to wait ${seconds} s (until ${until}), ${longest}`;
  return new DqError('rateLimited', message, {
    status: facts.status,
    type: facts.answer?.type,
    uuid: facts.answer?.uuid,
    operation: facts.operation,
    details: { retryAfterMs: facts.waitMs, retryAt: until, ...(facts.notSent ? { notSent: true } : {}) },
    hint: `Try again after ${until}; calls made before then are likely to be refused again.`,
  });
}

/** Sleeps on the clock; an abort becomes a `cancelled` DqError naming the operation. */
export function waitOrCancel(clock: Clock, ms: number, signal: AbortSignal | undefined, operation: string): Promise<void> {
  return sleepOrCancel(clock, ms, signal, () => cancelledError(operation, { operation }));
}

async function sleepOrCancel(clock: Clock, ms: number, signal: AbortSignal | undefined, cancelled: () => Error): Promise<void> {
  if (signal?.aborted) throw cancelled();
  try {
    await clock.sleep(ms, signal);
  } catch {
    throw cancelled();
  }
}

/** An attempt that failed in a way worth another try. */
export interface RetryFailure {
  /** what the call fails with when it is not tried again */
  error: DqError;
  /** the answer's status, when the failure is an answer */
  status?: number;
  /** the answer's Retry-After header */
  retryAfter?: string | string[];
  /** the error the answer maps to, whose server type and uuid a rateLimited error keeps */
  answer?: DqError;
  /** the attempt was dropped for being too slow (the downloader's budget counts these apart) */
  slow?: boolean;
}

/**
 * How one attempt ended: with the call's result, with a reason to go again at once and
 * without a wait or a retry spent (a fresh token after a 401, a fresh link after a refusal),
 * or with a failure worth another try. A failure not worth one is thrown by the attempt.
 */
export type AttemptResult<T> = { done: T } | { again: true } | { failed: RetryFailure };

/** How many retries a call may still make: a strategy, a plain count unless a caller brings its own. */
export interface RetryBudget {
  /** retries spent so far that count toward the backoff and the messages (0 before the first) */
  readonly spent: number;
  /** whether `failure` may be tried again */
  allows(failure: RetryFailure): boolean;
  /** spends a retry on `failure` */
  spend(failure: RetryFailure): void;
}

/** The usual budget: `maxRetries` retries in all. */
export function countedRetries(maxRetries: number): RetryBudget {
  let spent = 0;
  return {
    get spent() {
      return spent;
    },
    allows: () => spent < maxRetries,
    spend: () => {
      spent++;
    },
  };
}

export interface RetryRun {
  policy: RetryPolicy;
  clock: Clock;
  /** names the call in rateLimited and cancelled errors, e.g. `listTables`, `sign-in` */
  operation: string;
  signal?: AbortSignal;
  /** the least wait for a 429 that named none (default DEFAULT_429_WAIT_MS) */
  default429Ms?: number;
  /** default: `countedRetries(policy.maxRetries)` */
  budget?: RetryBudget;
  /**
   * The operation's pause gate. A 429 closes it for the wait the service asked, and the next
   * attempt waits at the gate rather than here. With a gate, an answer's wait is judged before
   * the budget: the gate closes, and a wait beyond the longest fails as such, even when the
   * call has no retry left.
   */
  pause?: (ms: number) => void;
  /** the error for a call cancelled before an attempt or during a wait (default `<operation> was cancelled`) */
  cancelled?: () => Error;
  /** told of every retry before its wait; `retry` counts from 1 */
  onRetry?: (retry: { failure: RetryFailure; delayMs: number; retry: number; maxRetries: number }) => void;
}

/**
 * Runs `attempt` until it is done, throws, or its failures have spent the budget. Between
 * attempts it waits as the policy says (`serverWaitMs`, on the run's clock; a 429 with a pause
 * gate waits at the gate instead), and fails at once as rateLimited when the wait is beyond the
 * longest. `attempt` is given the retries spent so far.
 */
export async function runWithRetries<T>(run: RetryRun, attempt: (retries: number) => Promise<AttemptResult<T>>): Promise<T> {
  const { policy, clock, signal, pause } = run;
  const budget = run.budget ?? countedRetries(policy.maxRetries);
  const cancelled = run.cancelled ?? (() => cancelledError(run.operation, { operation: run.operation }));
  for (;;) {
    if (signal?.aborted) throw cancelled();
    const result = await attempt(budget.spent);
    if ('done' in result) return result.done;
    if ('again' in result) continue;
    const failure = result.failed;
    const waitFirst = pause !== undefined && failure.status !== undefined;
    if (!waitFirst && !budget.allows(failure)) throw failure.error;
    const wait: RetryWaitInput = {
      retry: budget.spent,
      status: failure.status,
      retryAfter: failure.retryAfter,
      default429Ms: run.default429Ms,
      now: clock.now(),
      operation: run.operation,
      answer: failure.answer,
    };
    const delay = serverWaitMs(policy, wait);
    const atGate = pause !== undefined && failure.status === 429;
    if (atGate) pause(delay); // holds back every caller of the operation, for as long as the service said
    if (delay > policy.maxWaitMs) throw waitTooLongError(policy.maxWaitMs, { ...wait, waitMs: delay });
    if (waitFirst && !budget.allows(failure)) throw failure.error;
    budget.spend(failure);
    run.onRetry?.({ failure, delayMs: delay, retry: budget.spent, maxRetries: policy.maxRetries });
    if (!atGate) await sleepOrCancel(clock, delay, signal, cancelled);
  }
}

/** Full jitter: uniform in [0, min(maxMs, baseMs * 2^retry)). `retry` counts from 0. */
export function backoffDelayMs(retry: number, policy: RetryPolicy): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(retry, 30));
  const r = Math.min(Math.max(policy.random(), 0), 1);
  return Math.floor(r * ceiling);
}

/**
 * Retry-After as milliseconds from `now`: delta-seconds or an HTTP date, at most
 * MAX_SERVER_WAIT_MS (however many digits the server sent); undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.min(Math.ceil(Number(text) * 1000), MAX_SERVER_WAIT_MS);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), MAX_SERVER_WAIT_MS);
}

/** 5xx answers that say the same request will fail again: not implemented, HTTP version not
 *  supported, network sign-in required (a captive portal). */
const LASTING_SERVER_STATUSES = new Set([501, 505, 511]);

/** 429, 502/503/504 and every other 5xx but the lasting ones: the same request may succeed later. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599 && !LASTING_SERVER_STATUSES.has(status));
}

/** The code of an API answer that did not arrive in full within its deadline (httpExchange.ts). */
export const SLOW_ANSWER_CODE = 'DQ_SLOW_ANSWER';

const TRANSIENT_CODES = new Set([
  SLOW_ANSWER_CODE,
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
