// The typed client every caller uses: the CLI, the extension and the tests. It composes the
// token source, the per-operation limiter (drawing on the machine-wide rate ledger when given
// its folder), the HTTP transport, the shared job poller and the downloader, and owns the
// dispatcher it builds (never one that was handed in).

import type { Dispatcher } from 'undici';
import { systemClock, type Clock } from '../core/clock';
import {
  DEFAULT_DATA_PREFIX,
  DEFAULT_RATE_LIMITS,
  DEFAULT_RATE_WINDOW_MS,
  FORMATS,
  MODES,
  OPERATION_ROUTES,
  OPERATIONS,
  type CreateJobRequest,
  type JobRecord,
  type Operation,
  type PresignedUrlResponse,
  type SchemaEnvelope,
} from '../core/contract';
import { nullLogger, type Logger } from '../core/logger';
import { ApiTransport, type ApiResponse } from './apiTransport';
import { createDispatcher } from './dispatcher';
import { DqError, isDqError } from './errors';
import { JobPoller } from './jobPoller';
import { MIN_BYTES_PER_SECOND, STALL_WINDOW_MS } from './objectAttempt';
import { MAX_JOB_OBJECTS, MAX_OBJECT_BYTES, ObjectDownloader } from './objectDownloader';
import { OperationLimiter } from './operationLimiter';
import { RateLedger } from './rateLedger';
import { parseJobRecord, parsePresignedUrls, parseSchemaEnvelope, parseTableList } from './responseParsers';
import { DEFAULT_429_WAIT_MS, DEFAULT_RETRY_POLICY, waitOrCancel, type RetryPolicy } from './retryPolicy';
import { checkBaseUrl, ServiceUrls } from './serviceUrls';
import { TokenClient } from './tokenClient';
import type {
  BudgetSnapshot,
  CallOptions,
  DataQueryClientOptions,
  DownloadedFile,
  DownloadOptions,
  WaitOptions,
} from './types';
import { DEFAULT_USER_AGENT } from './version';

/** A reused job closer than this to expiry would vanish mid-download (contract 2.4). */
export const NEAR_EXPIRY_MS = 30_000;
/** How many times runJob waits out a near-expiry job and asks again. */
const MAX_EXPIRY_WAITS = 3;

export class DataQueryClient {
  readonly baseUrl: string;
  readonly dataPrefix: string;

  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly urls: ServiceUrls;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly limiter: OperationLimiter;
  /** the machine-wide budget, when this client shares one */
  private readonly ledger?: RateLedger;
  private readonly tokens: TokenClient;
  private readonly transport: ApiTransport;
  private readonly poller: JobPoller;
  private readonly downloader: ObjectDownloader;
  private readonly allowInsecureHttp: boolean;
  private readonly scope?: string;
  private closed = false;

  constructor(options: DataQueryClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.dataPrefix = (options.dataPrefix ?? DEFAULT_DATA_PREFIX).replace(/^\/+|\/+$/g, '');
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? nullLogger;
    this.allowInsecureHttp = options.allowInsecureHttp === true;
    this.scope = options.scope || undefined;
    this.urls = new ServiceUrls({ baseUrl: this.baseUrl, dataPrefix: this.dataPrefix });
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? createDispatcher(options.proxy);
    const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    const requestTimeoutMs = numberOption(options, 'requestTimeoutMs', 60_000, { min: 1 });
    const answerDeadlineMs = numberOption(options, 'answerDeadlineMs', 60_000, { min: 1 });
    const defaultRetryAfterMs = numberOption(options, 'defaultRetryAfterMs', DEFAULT_429_WAIT_MS, { min: 0 });
    const retry: RetryPolicy = {
      maxRetries: numberOption(options, 'maxRetries', DEFAULT_RETRY_POLICY.maxRetries, { min: 0, integer: true }),
      baseMs: numberOption(options, 'retryBaseMs', DEFAULT_RETRY_POLICY.baseMs, { min: 0 }),
      maxMs: numberOption(options, 'retryMaxMs', DEFAULT_RETRY_POLICY.maxMs, { min: 0 }),
      maxWaitMs: numberOption(options, 'maxRetryWaitMs', DEFAULT_RETRY_POLICY.maxWaitMs, { min: 0, infinite: true }),
      random: options.random ?? Math.random,
    };
    const limits = rateLimitsOption(options.rateLimits);
    const rateWindowMs = numberOption(options, 'rateWindowMs', DEFAULT_RATE_WINDOW_MS, { min: 1 });
    const credentials = options.credentials;
    this.ledger = options.sharedBudgetFolder
      ? new RateLedger({
          folder: options.sharedBudgetFolder,
          baseUrl: this.baseUrl,
          clientId: async () => (await credentials()).clientId,
          clock: this.clock,
          logger: this.logger,
        })
      : undefined;
    this.limiter = new OperationLimiter({
      limits,
      windowMs: rateWindowMs,
      maxPauseMs: retry.maxWaitMs,
      clock: this.clock,
      logger: this.logger,
      shared: this.ledger,
    });
    this.tokens = new TokenClient({
      loginUrl: this.urls.login(),
      credentials: options.credentials,
      dispatcher: this.dispatcher,
      limiter: this.limiter,
      clock: this.clock,
      logger: this.logger,
      userAgent,
      refreshMarginMs: numberOption(options, 'tokenRefreshMarginMs', 60_000, { min: 0 }),
      requestTimeoutMs,
      answerDeadlineMs,
      retry,
      defaultRetryAfterMs,
    });
    this.transport = new ApiTransport({
      dispatcher: this.dispatcher,
      tokens: this.tokens,
      limiter: this.limiter,
      clock: this.clock,
      logger: this.logger,
      userAgent,
      retry,
      requestTimeoutMs,
      answerDeadlineMs,
      defaultRetryAfterMs,
      limits,
    });
    this.poller = new JobPoller({
      fetchJob: (jobId) => this.getJob(jobId, { priority: 'background' }),
      clock: this.clock,
      logger: this.logger,
    });
    this.downloader = new ObjectDownloader({
      dispatcher: this.dispatcher,
      clock: this.clock,
      logger: this.logger,
      userAgent,
      retry,
      requestTimeoutMs,
      defaultRetryAfterMs,
      allowInsecureHttp: this.allowInsecureHttp,
      freshUrl: (objectId, signal) => this.freshUrl(objectId, signal),
      maxObjectBytes: numberOption(options, 'maxObjectBytes', MAX_OBJECT_BYTES, { min: 1, integer: true }),
      maxObjects: numberOption(options, 'maxJobObjects', MAX_JOB_OBJECTS, { min: 1, integer: true }),
      linkBudget: { calls: limits.createUrls, windowMs: rateWindowMs },
      minBytesPerSecond: numberOption(options, 'minDownloadBytesPerSecond', MIN_BYTES_PER_SECOND, { min: 0 }),
      stallWindowMs: numberOption(options, 'downloadStallWindowMs', STALL_WINDOW_MS, { min: 1 }),
    });
  }

  /** Fetches a token now (forced), to test a connection. */
  async testConnection(opts: CallOptions = {}): Promise<void> {
    this.ready();
    await this.tokens.forceFetch(opts.signal);
  }

  async listTables(namespace: string, opts: CallOptions = {}): Promise<string[]> {
    const res = await this.call('listTables', this.url('listTables', { namespace }, opts), opts);
    return parseTableList(res.data);
  }

  async getSchema(namespace: string, table: string, opts: CallOptions = {}): Promise<SchemaEnvelope> {
    const res = await this.call('getSchema', this.url('getSchema', { namespace, table }, opts), opts);
    return parseSchemaEnvelope(res.data);
  }

  async createJob(namespace: string, table: string, request: CreateJobRequest, opts: CallOptions = {}): Promise<JobRecord> {
    const body = jobRequestBody(request);
    const res = await this.call('createJob', this.url('createJob', { namespace, table }, opts), opts, body);
    return parseJobRecord(res.data, 'createJob');
  }

  async getJob(jobId: string, opts: CallOptions = {}): Promise<JobRecord> {
    const res = await this.call('getJob', this.url('getJob', { jobId }, { ...opts, scope: undefined }, false), opts);
    return parseJobRecord(res.data, 'getJob');
  }

  async createUrls(objectIds: string[], opts: CallOptions = {}): Promise<PresignedUrlResponse> {
    if (objectIds.length === 0) return { urls: {} };
    const body = objectIds.map((id) => ({ id }));
    const res = await this.call('createUrls', this.url('createUrls', {}, opts, false), opts, body);
    return parsePresignedUrls(res.data, objectIds);
  }

  /** Polls (shared poller, background priority) until the job completes. */
  waitForJob(jobId: string, opts: WaitOptions = {}): Promise<JobRecord> {
    this.ready();
    return this.poller.watch(jobId, { signal: opts.signal, onUpdate: opts.onUpdate, onTrouble: opts.onStatusTrouble });
  }

  /** createJob, the near-expiry rule for reused jobs, then waitForJob. */
  async runJob(
    namespace: string,
    table: string,
    request: CreateJobRequest,
    opts: CallOptions & WaitOptions = {},
  ): Promise<JobRecord> {
    let job = await this.createJob(namespace, table, request, opts);
    for (let waits = 0; waits < MAX_EXPIRY_WAITS; waits++) {
      const expiresAt = job.expires_at ? Date.parse(job.expires_at) : NaN;
      const left = expiresAt - this.clock.now();
      if (Number.isNaN(expiresAt) || left >= NEAR_EXPIRY_MS) break;
      this.logger.info(`job ${job.id} expires in ${Math.max(0, Math.round(left / 1000))} s; waiting for it to expire before asking again`);
      const waitMs = Math.max(0, left) + 1_000;
      opts.onQueued?.({ operation: 'createJob', waitMs, reason: 'expiring' });
      await waitOrCancel(this.clock, waitMs, opts.signal, 'Waiting for an expiring job');
      job = await this.createJob(namespace, table, request, opts);
    }
    opts.onUpdate?.(job);
    if (job.status === 'complete') return job;
    return this.poller.watch(job.id, { signal: opts.signal, onUpdate: opts.onUpdate, onTrouble: opts.onStatusTrouble, firstPollInMs: 1_000, known: job });
  }

  /** Downloads a complete job's objects into opts.dir. */
  downloadJob(job: JobRecord, opts: DownloadOptions): Promise<DownloadedFile[]> {
    this.ready();
    return this.downloader.download(job, opts);
  }

  /** Remaining per-operation budget, for status displays. */
  budgets(): BudgetSnapshot[] {
    return this.limiter.snapshot();
  }

  /** True once closed: its calls fail, and work on it must move to a new client. */
  get isClosed(): boolean {
    return this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.poller.close();
    this.tokens.clear();
    await this.ledger?.idle(); // the last answers' times, written for the other processes
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private ready(): void {
    if (this.closed) throw new DqError('usage', 'The client has been closed');
    checkBaseUrl(this.baseUrl, this.allowInsecureHttp);
  }

  private call(operation: Operation, url: string, opts: CallOptions, body?: unknown): Promise<ApiResponse> {
    const { method } = OPERATION_ROUTES[operation];
    return this.transport.call({ operation, method, url, body, priority: opts.priority, signal: opts.signal, onQueued: opts.onQueued, onSending: opts.onSending });
  }

  private url(operation: Operation, params: Record<string, string>, opts: CallOptions, scoped = true): string {
    this.ready();
    return this.urls.operation(operation, params, scoped ? (opts.scope ?? this.scope) : undefined);
  }

  private async freshUrl(objectId: string, signal: AbortSignal): Promise<string> {
    try {
      const res = await this.createUrls([objectId], { signal, priority: 'user' });
      return res.urls[objectId].url;
    } catch (err) {
      if (isDqError(err) && err.kind === 'notFound') {
        throw new DqError('jobExpired', 'The result files no longer exist', {
          status: err.status,
          type: err.type,
          uuid: err.uuid,
          operation: 'createUrls',
          details: err.details,
          hint: 'Results are deleted about 24 hours after the job started; run the query again.',
        });
      }
      throw err;
    }
  }
}

/** Checks a job request before sending it, so a typo never costs one of five calls a minute. */
function jobRequestBody(request: CreateJobRequest): CreateJobRequest {
  if (!(FORMATS as readonly string[]).includes(request.format)) {
    throw new DqError('usage', `Unknown format "${String(request.format)}"`, { hint: `Use one of ${FORMATS.join(', ')}.` });
  }
  if (request.mode !== undefined && !(MODES as readonly string[]).includes(request.mode)) {
    throw new DqError('usage', `Unknown mode "${String(request.mode)}"`, { hint: `Use one of ${MODES.join(', ')}.` });
  }
  const body: CreateJobRequest = { format: request.format };
  if (request.since) body.since = request.since;
  if (request.until) body.until = request.until;
  if (request.mode) body.mode = request.mode;
  return body;
}

interface NumberRule {
  min: number;
  integer?: boolean;
  /** Infinity is meaningful (no limit) */
  infinite?: boolean;
}

type NumericOption = {
  [K in keyof DataQueryClientOptions]-?: NonNullable<DataQueryClientOptions[K]> extends number ? K : never;
}[keyof DataQueryClientOptions];

/** A numeric option, or its default; NaN, out of range or a needless Infinity is a usage error naming it. */
function numberOption(options: DataQueryClientOptions, name: NumericOption, fallback: number, rule: NumberRule): number {
  const value = options[name];
  return value === undefined ? fallback : checkNumber(name, value, rule);
}

function checkNumber(name: string, value: unknown, rule: NumberRule): number {
  const n = value as number;
  const finiteOk = typeof n === 'number' && Number.isFinite(n) && (!rule.integer || Number.isInteger(n));
  if ((finiteOk || (rule.infinite && n === Infinity)) && n >= rule.min) return n;
  const what = rule.integer ? 'a whole number' : 'a number';
  throw new DqError('usage', `The client option ${name} must be ${what} of at least ${rule.min}${rule.infinite ? ' (or Infinity)' : ''}, not ${String(value)}`, {
    hint: `Fix ${name} in the settings or code that creates the client.`,
  });
}

/** The per-operation limits: the defaults, overridden by whole numbers of at least 1. */
function rateLimitsOption(overrides: DataQueryClientOptions['rateLimits']): Record<Operation, number> {
  const limits: Record<Operation, number> = { ...DEFAULT_RATE_LIMITS };
  for (const op of OPERATIONS) {
    const value = overrides?.[op];
    if (value !== undefined) limits[op] = checkNumber(`rateLimits.${op}`, value, { min: 1, integer: true });
  }
  return limits;
}
