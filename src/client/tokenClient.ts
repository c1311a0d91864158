// Bearer tokens for the data calls: fetched with the client-credentials grant, shared by all
// callers (one request at a time), kept in memory only, and renewed ahead of expiry. The
// token's lifetime comes from the JWT's `exp` claim when present, else from `expires_in`.
// The sign-in retries through the shared retry loop (runWithRetries) and honours its own
// 429 pause gate, which a 429 closes for as long as it asked, even beyond the longest wait:
// sign-ins before then fail at once as rateLimited without being sent. A caller may stop
// waiting at any time, and a sign-in nobody waits for any more stops too. The credentials in use and the current
// token are held as known secrets (holdSecret), so no text that echoes them shows them.

import type { Dispatcher } from 'undici';
import { exchange, type Exchange } from './httpExchange';
import type { Clock } from '../core/clock';
import { jwtExpiryMs } from '../core/jwtCodec';
import { holdSecret, nullLogger, safeUrl, type Logger } from '../core/logger';
import { errorFromNetwork, errorFromResponse } from './errorMapping';
import { cancelledError, DqError } from './errors';
import type { OperationLimiter } from './operationLimiter';
import { parseTokenResponse } from './responseParsers';
import { isRetryableStatus, isTransientNetworkError, runWithRetries, type RetryPolicy } from './retryPolicy';
import type { CredentialSource, Credentials } from './types';

/** Lifetime assumed when neither `exp` nor `expires_in` says anything. */
const FALLBACK_LIFETIME_MS = 5 * 60_000;
const OPERATION = 'sign-in';

export interface TokenClientOptions {
  loginUrl: string;
  credentials: CredentialSource;
  dispatcher: Dispatcher;
  limiter: OperationLimiter;
  clock: Clock;
  logger?: Logger;
  userAgent: string;
  refreshMarginMs: number;
  requestTimeoutMs: number;
  answerDeadlineMs: number;
  retry: RetryPolicy;
  defaultRetryAfterMs: number;
}

interface HeldToken {
  value: string;
  expiresAt: number;
  refreshAt: number;
}

/** A sign-in in progress and who waits for it; it stops when every waiter has given up. */
interface Flight {
  promise: Promise<string>;
  controller: AbortController;
  /** waiters that can still give up */
  waiting: number;
  /** a waiter without a signal joined: the sign-in always runs to its end */
  pinned: boolean;
}

export class TokenClient {
  private held?: HeldToken;
  private flight?: Flight;
  private readonly logger: Logger;
  /** the credentials last used and what releases them as known secrets */
  private heldCredentials?: { key: string; release: () => void };
  private releaseToken?: () => void;

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
    this.releaseToken?.();
    this.releaseToken = undefined;
    this.heldCredentials?.release();
    this.heldCredentials = undefined;
  }

  private shared(signal?: AbortSignal): Promise<string> {
    if (signal?.aborted) return Promise.reject(cancelledError(OPERATION, { operation: OPERATION }));
    const flight = this.flight ?? this.takeOff();
    if (!signal) {
      flight.pinned = true;
      return flight.promise;
    }
    flight.waiting++;
    return new Promise<string>((resolve, reject) => {
      let left = false;
      /** true when this was the last waiter that could give up */
      const leave = (): boolean => {
        if (left) return false;
        left = true;
        signal.removeEventListener('abort', onAbort);
        return --flight.waiting === 0;
      };
      const onAbort = (): void => {
        reject(cancelledError(OPERATION, { operation: OPERATION }));
        if (leave() && !flight.pinned) this.abandon(flight);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (token) => {
          leave();
          resolve(token);
        },
        (err: unknown) => {
          leave();
          reject(err);
        },
      );
    });
  }

  private takeOff(): Flight {
    const controller = new AbortController();
    const flight: Flight = { promise: this.login(controller.signal), controller, waiting: 0, pinned: false };
    flight.promise
      .finally(() => {
        if (this.flight === flight) this.flight = undefined;
      })
      .catch(() => undefined);
    this.flight = flight;
    return flight;
  }

  /** Nobody waits any more: stop the sign-in, and let the next caller start a new one. */
  private abandon(flight: Flight): void {
    if (this.flight === flight) this.flight = undefined;
    flight.controller.abort();
  }

  private async login(signal: AbortSignal): Promise<string> {
    const { options } = this;
    const creds = await options.credentials();
    if (!creds.clientId || !creds.clientSecret) {
      throw new DqError('auth', 'No client ID or secret is configured', {
        operation: 'login',
        hint: 'Enter the client ID and secret for this connection.',
      });
    }
    const basic = this.holdCredentials(creds);
    return runWithRetries<string>(
      {
        policy: options.retry,
        clock: options.clock,
        operation: OPERATION,
        signal,
        default429Ms: options.defaultRetryAfterMs,
        pause: (ms) => options.limiter.pause('login', ms),
        onRetry: ({ failure, delayMs, retry, maxRetries }) => {
          const what = failure.status === undefined ? 'no answer or the connection dropped' : `HTTP ${failure.status}`;
          this.logger.warn(`sign-in: ${what}; trying again in ${(delayMs / 1000).toFixed(1)} s (${retry}/${maxRetries})`);
        },
      },
      async (retries) => {
        await options.limiter.acquire('login', { signal });
        const started = options.clock.now();
        let answer: Exchange;
        try {
          answer = await exchange(options.loginUrl, {
            operation: 'login',
            method: 'POST',
            dispatcher: options.dispatcher,
            headers: {
              authorization: `Basic ${basic}`,
              'content-type': 'application/x-www-form-urlencoded',
              accept: 'application/json',
              'user-agent': options.userAgent,
            },
            body: 'grant_type=client_credentials',
            signal,
            timeoutMs: options.requestTimeoutMs,
            deadlineMs: options.answerDeadlineMs,
          });
        } catch (err) {
          if (signal.aborted) throw cancelledError(OPERATION, { operation: OPERATION });
          const mapped = errorFromNetwork(err, 'login', safeUrl(options.loginUrl));
          if (isTransientNetworkError(err)) return { failed: { error: mapped } };
          throw mapped;
        }
        const { status, text, retryAfter } = answer;
        this.logger.debug(`POST login ${status} in ${options.clock.now() - started} ms`);
        if (status >= 200 && status < 300) {
          const token = parseTokenResponse(text);
          this.hold(token.access_token, token.expires_in);
          return { done: token.access_token };
        }
        const error = errorFromResponse({ status, bodyText: text, operation: 'login', retries });
        if (!isRetryableStatus(status) || error.kind === 'account') throw error;
        return { failed: { error, status, retryAfter, answer: error } };
      },
    );
  }

  /**
   * Holds the secret, the client ID's key part (after a `region#`, or all of it) and the Basic
   * value as known secrets while they are the ones in use; returns the Basic value.
   */
  private holdCredentials({ clientId, clientSecret }: Credentials): string {
    const basic = Buffer.from(`${clientId}:${clientSecret}`, 'utf8').toString('base64');
    if (this.heldCredentials?.key !== basic) {
      const releases = [clientSecret, clientId.slice(clientId.lastIndexOf('#') + 1), basic].map(holdSecret);
      this.heldCredentials?.release();
      this.heldCredentials = { key: basic, release: () => releases.forEach((release) => release()) };
    }
    return basic;
  }

  private hold(value: string, expiresIn: number | undefined): void {
    const release = holdSecret(value);
    this.releaseToken?.();
    this.releaseToken = release;
    const now = this.options.clock.now();
    const expiresAt =
      jwtExpiryMs(value) ?? (typeof expiresIn === 'number' && expiresIn > 0 ? now + expiresIn * 1000 : now + FALLBACK_LIFETIME_MS);
    const lifetime = Math.max(0, expiresAt - now);
    const margin = Math.min(this.options.refreshMarginMs, lifetime / 2);
    this.held = { value, expiresAt, refreshAt: expiresAt - margin };
  }
}
