// When and how long to wait before trying a failed call again: exponential backoff with
// full jitter, Retry-After parsing, and which failures are worth another attempt.

export interface RetryPolicy {
  /** attempts after the first */
  maxRetries: number;
  baseMs: number;
  maxMs: number;
  /** uniform in [0, 1) */
  random: () => number;
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

/** 429, 502/503/504 and every other 5xx: the same request may succeed later. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
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
