// Bearer tokens for the data calls: fetched with the client-credentials grant, shared by all
// callers (one request at a time), kept in memory only, and renewed ahead of expiry. The
// token's lifetime comes from the JWT's `exp` claim when present, else from `expires_in`.

import type { Dispatcher } from 'undici';
import { exchange, type Exchange } from './httpExchange';
import type { Clock } from '../core/clock';
import { nullLogger, safeUrl, type Logger } from '../core/logger';
import { errorFromNetwork, errorFromResponse } from './errorMapping';
import { DqError } from './errors';
import { parseTokenResponse } from './responseParsers';
import { backoffDelayMs, isRetryableStatus, isTransientNetworkError, parseRetryAfter, type RetryPolicy } from './retryPolicy';
import type { CredentialSource } from './types';

/** Lifetime assumed when neither `exp` nor `expires_in` says anything. */
const FALLBACK_LIFETIME_MS = 5 * 60_000;

export interface TokenClientOptions {
  loginUrl: string;
  credentials: CredentialSource;
  dispatcher: Dispatcher;
  clock: Clock;
  logger?: Logger;
  userAgent: string;
  refreshMarginMs: number;
  requestTimeoutMs: number;
  retry: RetryPolicy;
  defaultRetryAfterMs: number;
}

interface HeldToken {
  value: string;
  expiresAt: number;
  refreshAt: number;
}

/** The `exp` claim (ms since the epoch) of a JWT, read without verifying it. */
export function jwtExpiryMs(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    const exp = (payload as { exp?: unknown } | null)?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

export class TokenClient {
  private held?: HeldToken;
  private inflight?: Promise<string>;
  private readonly logger: Logger;

  constructor(private readonly options: TokenClientOptions) {
    this.logger = options.logger ?? nullLogger;
  }

  /** A token valid for at least the refresh margin; fetches one when needed. */
  getToken(signal?: AbortSignal): Promise<string> {
    const held = this.held;
    if (held && this.options.clock.now() < held.refreshAt) return Promise.resolve(held.value);
    return this.shared(signal);
  }

  /**
   * Fetches a new token because `rejected` was refused. When another caller has already
   * replaced that token, the newer one is returned without another login.
   */
  refresh(rejected: string | undefined, signal?: AbortSignal): Promise<string> {
    const held = this.held;
    if (held && held.value !== rejected && this.options.clock.now() < held.refreshAt) {
      return Promise.resolve(held.value);
    }
    if (held && held.value === rejected) this.held = undefined;
    return this.shared(signal);
  }

  /** Always fetches a new token now (connection test). */
  forceFetch(signal?: AbortSignal): Promise<string> {
    this.held = undefined;
    return this.shared(signal);
  }

  /** Forgets the token (credentials changed, client closed). */
  clear(): void {
    this.held = undefined;
  }

  private shared(signal?: AbortSignal): Promise<string> {
    if (!this.inflight) {
      this.inflight = this.login().finally(() => {
        this.inflight = undefined;
      });
    }
    return raceSignal(this.inflight, signal);
  }

  private async login(): Promise<string> {
    const { options } = this;
    const creds = await options.credentials();
    if (!creds.clientId || !creds.clientSecret) {
      throw new DqError('auth', 'No client ID or secret is configured', {
        operation: 'login',
        hint: 'Enter the client ID and secret for this connection.',
      });
    }
    const basic = Buffer.from(`${creds.clientId}:${creds.clientSecret}`, 'utf8').toString('base64');
    for (let attempt = 0; ; attempt++) {
      const started = options.clock.now();
      let answer: Exchange;
      try {
        answer = await exchange(options.loginUrl, {
          method: 'POST',
          dispatcher: options.dispatcher,
          headers: {
            authorization: `Basic ${basic}`,
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
            'user-agent': options.userAgent,
          },
          body: 'grant_type=client_credentials',
          timeoutMs: options.requestTimeoutMs,
        });
      } catch (err) {
        if (isTransientNetworkError(err) && attempt < options.retry.maxRetries) {
          const delay = backoffDelayMs(attempt, options.retry);
          this.logger.info(`sign-in: connection dropped, retrying in ${delay} ms (${attempt + 1}/${options.retry.maxRetries})`);
          await options.clock.sleep(delay);
          continue;
        }
        throw errorFromNetwork(err, 'login', safeUrl(options.loginUrl));
      }
      const { status, text, retryAfter } = answer;
      this.logger.debug(`POST login ${status} in ${options.clock.now() - started} ms`);
      if (status >= 200 && status < 300) {
        const token = parseTokenResponse(text);
        this.hold(token.access_token, token.expires_in);
        return token.access_token;
      }
      if (isRetryableStatus(status) && attempt < options.retry.maxRetries) {
        const delay =
          status === 429
            ? parseRetryAfter(retryAfter, options.clock.now()) ?? options.defaultRetryAfterMs
            : backoffDelayMs(attempt, options.retry);
        this.logger.info(`sign-in: HTTP ${status}, retrying in ${delay} ms (${attempt + 1}/${options.retry.maxRetries})`);
        await options.clock.sleep(delay);
        continue;
      }
      throw errorFromResponse({ status, bodyText: text, operation: 'login', retries: attempt });
    }
  }

  private hold(value: string, expiresIn: number | undefined): void {
    const now = this.options.clock.now();
    const expiresAt =
      jwtExpiryMs(value) ?? (typeof expiresIn === 'number' && expiresIn > 0 ? now + expiresIn * 1000 : now + FALLBACK_LIFETIME_MS);
    const lifetime = Math.max(0, expiresAt - now);
    const margin = Math.min(this.options.refreshMarginMs, lifetime / 2);
    this.held = { value, expiresAt, refreshAt: expiresAt - margin };
  }
}

/** Lets one caller stop waiting on a shared promise without cancelling it for the others. */
export function raceSignal<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new DqError('cancelled', 'Cancelled'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new DqError('cancelled', 'Cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
