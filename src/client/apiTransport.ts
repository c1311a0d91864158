// One data call end to end: wait for the operation's rate budget, attach the bearer token,
// send, and read the answer. 401 gets one forced token refresh and one more try (tokens
// expire, and gateways refuse a valid one now and then). A 401 for the token fetched after
// that fails at once as an auth error while the service has accepted none of this client's
// tokens yet: the credentials sign in but are not accepted, and retrying would only spend
// rate budget. Once tokens have been accepted, such a 401 is retried like a 5xx. 429 closes
// the operation's pause gate for the wait the service asked for (or the growing default),
// even when that is too long to wait out: this call then fails at once, and so do the
// operation's later calls until little enough of the pause is left. 5xx and dropped
// connections are retried after the policy's wait, by the one retry loop (runWithRetries). A call whose sign-in fails or is
// cancelled gives its rate slot back: it never reached the service. Failures come out as
// DqErrors; nothing secret is logged.

import type { Dispatcher } from 'undici';
import { exchange, type Exchange } from './httpExchange';
import type { Clock } from '../core/clock';
import type { Operation } from '../core/contract';
import { nullLogger, safeUrl, type Logger } from '../core/logger';
import { isRecord } from '../core/isRecord';
import { errorFromNetwork, errorFromResponse, type RequestedRange } from './errorMapping';
import { cancelledError } from './errors';
import type { OperationLimiter } from './operationLimiter';
import { parseJson } from './responseParsers';
import { isRetryableStatus, isTransientNetworkError, runWithRetries, type RetryPolicy } from './retryPolicy';
import type { TokenClient } from './tokenClient';
import type { CallOptions, Priority, QueueReason } from './types';
import { formatDuration } from '../core/durationText';

export interface ApiTransportOptions {
  dispatcher: Dispatcher;
  tokens: TokenClient;
  limiter: OperationLimiter;
  clock: Clock;
  logger?: Logger;
  userAgent: string;
  retry: RetryPolicy;
  requestTimeoutMs: number;
  answerDeadlineMs: number;
  defaultRetryAfterMs: number;
  limits: Readonly<Record<Operation, number>>;
}

export interface ApiRequest {
  operation: Operation;
  method: 'GET' | 'POST';
  url: string;
  body?: unknown;
  priority?: Priority;
  signal?: AbortSignal;
  onQueued?: CallOptions['onQueued'];
  onSending?: CallOptions['onSending'];
}

export interface ApiResponse {
  status: number;
  data: unknown;
}

export class ApiTransport {
  private readonly logger: Logger;
  /** the service has answered a call made with one of this client's tokens */
  private tokenAccepted = false;

  constructor(private readonly options: ApiTransportOptions) {
    this.logger = options.logger ?? nullLogger;
  }

  call(req: ApiRequest): Promise<ApiResponse> {
    const { options } = this;
    const { operation, signal } = req;
    const shown = safeUrl(req.url);
    const onQueued = req.onQueued && ((wait: { waitMs: number; reason: QueueReason }) => req.onQueued?.({ operation, ...wait }));
    let refreshed = false;
    return runWithRetries<ApiResponse>(
      {
        policy: options.retry,
        clock: options.clock,
        operation,
        signal,
        default429Ms: options.defaultRetryAfterMs,
        pause: (ms) => options.limiter.pause(operation, ms),
        // a warning: a person waiting on a silent service should see why nothing happens
        onRetry: ({ failure, delayMs, retry, maxRetries }) => {
          if (failure.status === 429) this.logger.warn(`${operation}: HTTP 429, waiting ${Math.ceil(delayMs / 1000)} s before retry ${retry}/${maxRetries}`);
          else if (failure.status === undefined) this.logger.warn(`${operation}: ${failure.error.message}; trying again in ${formatDuration(delayMs, 'long')} (${retry}/${maxRetries})`);
          else this.logger.warn(`${operation}: HTTP ${failure.status}; trying again in ${formatDuration(delayMs, 'long')} (${retry}/${maxRetries})`);
        },
      },
      async (retries) => {
        const slot = await options.limiter.acquire(operation, { priority: req.priority, signal, onQueued });
        let token: string;
        try {
          token = await options.tokens.getToken(signal);
          req.onSending?.(operation);
        } catch (err) {
          slot.release(); // nothing was sent: the service counted nothing
          throw err;
        }
        const started = options.clock.now();
        let answer: Exchange;
        try {
          answer = await exchange(req.url, {
            operation,
            method: req.method,
            dispatcher: options.dispatcher,
            headers: {
              authorization: `Bearer ${token}`,
              accept: 'application/json',
              'user-agent': options.userAgent,
              ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
            },
            body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
            signal,
            timeoutMs: options.requestTimeoutMs,
            deadlineMs: options.answerDeadlineMs,
          }).finally(() => slot.answered()); // the server counted the call somewhere before this
        } catch (err) {
          if (signal?.aborted) throw cancelledError(operation, { operation });
          const mapped = errorFromNetwork(err, operation, shown, signal);
          this.logger.debug(`${req.method} ${operation} failed after ${options.clock.now() - started} ms: ${mapped.message}`);
          if (isTransientNetworkError(err)) return { failed: { error: mapped } };
          throw mapped;
        }
        const { status, text, retryAfter } = answer;
        this.logger.debug(`${req.method} ${operation} ${status} in ${options.clock.now() - started} ms`);

        if (status >= 200 && status < 300) {
          this.tokenAccepted = true;
          return { done: { status, data: parseJson(text, operation) } };
        }
        if (status === 401 && !refreshed) {
          refreshed = true;
          this.logger.info(`${operation}: token refused (401), fetching a new one`);
          await options.tokens.refresh(token, signal);
          return { again: true };
        }
        const error = errorFromResponse({
          status,
          bodyText: text,
          operation,
          afterRefresh: status === 401,
          limit: options.limits[operation],
          retries,
          requested: requestedRange(req.body),
        });
        if (status === 401 && !this.tokenAccepted) {
          this.logger.info(`${operation}: the token fetched after the first 401 was refused too, and no token has been accepted yet; not trying again`);
          throw error;
        }
        if (!(isRetryableStatus(status) || status === 401) || error.kind === 'account') throw error;
        return { failed: { error, status, retryAfter, answer: error } };
      },
    );
  }
}

/** The `since`/`until` a create-job body asked for, to tell which end a range refusal is about. */
function requestedRange(body: unknown): RequestedRange | undefined {
  if (!isRecord(body)) return undefined;
  const since = typeof body.since === 'string' ? body.since : undefined;
  const until = typeof body.until === 'string' ? body.until : undefined;
  return since !== undefined || until !== undefined ? { since, until } : undefined;
}

