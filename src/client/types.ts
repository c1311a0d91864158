// The public surface of the shared client: options, per-call options and results.
// The implementation lives in dataQueryClient.ts and the modules it composes.

import type { Dispatcher } from 'undici';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { JobRecord, Operation } from '../core/contract';
import type { DqError } from './errors';

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

/** Where credentials come from: SecretStorage in the extension, env/flags in the CLI. */
export type CredentialSource = () => Promise<Credentials>;

export interface ProxyOptions {
  /** explicit proxy URL (http://user:pass@host:port); overrides the environment */
  url?: string;
  /** hosts that bypass the proxy, comma separated or a list (NO_PROXY syntax) */
  noProxy?: string | string[];
  /** verify the proxy's and origin's TLS certificates (default true) */
  strictSSL?: boolean;
  /** read HTTPS_PROXY/HTTP_PROXY/NO_PROXY (either case) when no url is given (default true) */
  useEnvironment?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface DataQueryClientOptions {
  /** gateway base URL, e.g. https://api.example.com */
  baseUrl: string;
  /** path under which the data service is mounted (default `dap`) */
  dataPrefix?: string;
  credentials: CredentialSource;
  /** account identifier sent as `scope` on list/schema/data calls */
  scope?: string;
  clock?: Clock;
  logger?: Logger;
  /** injected dispatcher (tests, the extension's proxy-aware one); otherwise one is built */
  dispatcher?: Dispatcher;
  proxy?: ProxyOptions;
  /** calls per window per operation; defaults to DEFAULT_RATE_LIMITS */
  rateLimits?: Partial<Record<Operation, number>>;
  rateWindowMs?: number;
  /**
   * draw from one rate budget with every process on this machine that uses the same client ID
   * against the same base URL, through a ledger in this folder (rateLedgerFolder); without it,
   * this client counts its own calls alone
   */
  sharedBudgetFolder?: string;
  /**
   * least wait after a 429 without Retry-After (default 30 000); each further 429 doubles it,
   * with jitter, up to maxRetryWaitMs
   */
  defaultRetryAfterMs?: number;
  /** attempts after the first for retryable failures (default 4) */
  maxRetries?: number;
  /** backoff base and cap for retries (defaults 500 ms and 30 s) */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** longest Retry-After (or 429 pause) waited out before failing as rateLimited; default 2 minutes */
  maxRetryWaitMs?: number;
  /** permit plain http:// to a non-loopback host (default false) */
  allowInsecureHttp?: boolean;
  /** e.g. `data-query-explorer/0.1.0 (vscode)`; a default naming the client is sent otherwise */
  userAgent?: string;
  /** refresh the token this long before it expires (default 60 000) */
  tokenRefreshMarginMs?: number;
  /** per-request timeout for API calls: the longest silence before headers or between body bytes (default 60 000) */
  requestTimeoutMs?: number;
  /**
   * the longest an API call's answer (sign-in included) may take, headers and whole body,
   * however steadily it trickles in (default 60 000); a slower one is retried like a dropped connection
   */
  answerDeadlineMs?: number;
  /**
   * an object download that receives less than minDownloadBytesPerSecond (default 1024) over
   * downloadStallWindowMs (default 30 000) is dropped and resumed, like a dropped connection
   */
  minDownloadBytesPerSecond?: number;
  downloadStallWindowMs?: number;
  /** the largest result object downloaded (default MAX_OBJECT_BYTES, 64 GiB); DownloadOptions may override it */
  maxObjectBytes?: number;
  /** the most result objects of one job downloaded (default MAX_JOB_OBJECTS); DownloadOptions may override it */
  maxJobObjects?: number;
  /** random source for jitter, injectable for tests (default Math.random) */
  random?: () => number;
}

export type Priority = 'user' | 'background';

/**
 * Why a call waits: the limiter's per-window limit, a pause a 429 set, or (creating a job) an
 * identical job the service handed back that expires too soon to download, waited out first.
 */
export type QueueReason = 'limit' | 'paused' | 'expiring';

export interface CallOptions {
  signal?: AbortSignal;
  /** user actions go ahead of background polling in the limiter (default 'user') */
  priority?: Priority;
  /** overrides the client's scope for this call */
  scope?: string;
  /**
   * Called once each time the call has to wait in the limiter (the operation's own window
   * is full, or a 429 paused it), with how long it will likely wait.
   */
  onQueued?: (wait: { operation: Operation; waitMs: number; reason: QueueReason }) => void;
  /** Called each time the request leaves for the service (past the limiter, with a token). */
  onSending?: (operation: Operation) => void;
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** called on every status change and on the final record */
  onUpdate?: (job: JobRecord) => void;
  /**
   * A status check failed for a passing reason (outage, network, rate limit) and the wait goes
   * on; undefined once a check works again.
   */
  onStatusTrouble?: (trouble: DqError | undefined) => void;
}

export interface DownloadProgress {
  objectId: string;
  /** bytes written for this object so far */
  bytes: number;
  /** Content-Length of the object when known */
  total?: number;
  /** totals over all objects of the download */
  doneObjects: number;
  totalObjects: number;
  allBytes: number;
}

export interface DownloadOptions {
  /** target folder; created when missing */
  dir: string;
  /** format the job was created with, for file extensions; found from the content when absent */
  format?: string;
  /** gunzip gzip objects while writing (default false) */
  decompress?: boolean;
  /** objects downloaded at once (default 4) */
  concurrency?: number;
  /**
   * also compute each file's sha256 as it is written (default false: it costs about as much
   * CPU as the rest of the download, which decides the speed on a fast link)
   */
  sha256?: boolean;
  /** the largest object accepted (default: the client's maxObjectBytes) */
  maxObjectBytes?: number;
  /** the most objects a job may have to be downloaded (default: the client's maxJobObjects) */
  maxObjects?: number;
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
}

export interface DownloadedFile {
  objectId: string;
  /** absolute path of the file as written */
  path: string;
  bytes: number;
  /** hex sha256 of the file as written, when asked for (DownloadOptions.sha256) */
  sha256?: string;
  /** whether the file on disk is gzip-compressed */
  gzip: boolean;
}

export interface BudgetSnapshot {
  operation: Operation;
  limit: number;
  /** starts still allowed in the current window */
  remaining: number;
  /** ms until another start is allowed when remaining is 0 */
  resetInMs: number;
  /** ms left on a 429 pause for this operation, 0 when none */
  pausedForMs: number;
  /**
   * true when these are the machine's numbers (every process using the same credentials draws
   * from one budget); absent when this process counts alone
   */
  shared?: boolean;
}
