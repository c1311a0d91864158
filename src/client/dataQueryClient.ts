// The typed client every caller uses: the CLI, the extension and the tests. It composes the
// token source, the per-operation limiter, the HTTP transport, the shared job poller and the
// downloader, and owns the dispatcher it builds (never one that was handed in).

import type { Dispatcher } from 'undici';
import { systemClock, type Clock } from '../core/clock';
import {
  DEFAULT_DATA_PREFIX,
  DEFAULT_RATE_LIMITS,
  DEFAULT_RATE_WINDOW_MS,
  FORMATS,
  MODES,
  type CreateJobRequest,
  type JobRecord,
  type Operation,
  type PresignedUrlResponse,
  type SchemaEnvelope,
} from '../core/contract';
import { nullLogger, type Logger } from '../core/logger';
import { ApiTransport } from './apiTransport';
import { createDispatcher } from './dispatcher';
import { DqError, isDqError } from './errors';
import { JobPoller } from './jobPoller';
import { ObjectDownloader } from './objectDownloader';
import { OperationLimiter } from './operationLimiter';
import { parseJobRecord, parsePresignedUrls, parseSchemaEnvelope, parseTableList } from './responseParsers';
import { DEFAULT_MAX_WAIT_MS, type RetryPolicy } from './retryPolicy';
import { checkUrl, ServiceUrls } from './serviceUrls';
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
    const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    const defaultRetryAfterMs = options.defaultRetryAfterMs ?? 30_000;
    const retry: RetryPolicy = {
      maxRetries: options.maxRetries ?? 4,
      baseMs: options.retryBaseMs ?? 500,
      maxMs: options.retryMaxMs ?? 30_000,
      maxWaitMs: options.maxRetryWaitMs ?? DEFAULT_MAX_WAIT_MS,
      random: options.random ?? Math.random,
    };
    const limits: Record<Operation, number> = { ...DEFAULT_RATE_LIMITS, ...(options.rateLimits ?? {}) };
    this.limiter = new OperationLimiter({
      limits,
      windowMs: options.rateWindowMs ?? DEFAULT_RATE_WINDOW_MS,
      clock: this.clock,
      logger: this.logger,
    });
    this.tokens = new TokenClient({
      loginUrl: this.urls.login(),
      credentials: options.credentials,
      dispatcher: this.dispatcher,
      clock: this.clock,
      logger: this.logger,
      userAgent,
      refreshMarginMs: options.tokenRefreshMarginMs ?? 60_000,
      requestTimeoutMs,
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
      allowInsecureHttp: this.allowInsecureHttp,
      freshUrl: (objectId, signal) => this.freshUrl(objectId, signal),
    });
  }

  /** Fetches a token now (forced), to test a connection. */
  async testConnection(opts: CallOptions = {}): Promise<void> {
    this.ready();
    await this.tokens.forceFetch(opts.signal);
  }

  async listTables(namespace: string, opts: CallOptions = {}): Promise<string[]> {
    const url = this.url('listTables', { namespace }, opts);
    const res = await this.transport.call({ operation: 'listTables', method: 'GET', url, priority: opts.priority, signal: opts.signal });
    return parseTableList(res.data);
  }

  async getSchema(namespace: string, table: string, opts: CallOptions = {}): Promise<SchemaEnvelope> {
    const url = this.url('getSchema', { namespace, table }, opts);
    const res = await this.transport.call({ operation: 'getSchema', method: 'GET', url, priority: opts.priority, signal: opts.signal });
    return parseSchemaEnvelope(res.data);
  }

  async createJob(namespace: string, table: string, request: CreateJobRequest, opts: CallOptions = {}): Promise<JobRecord> {
    const body = jobRequestBody(request);
    const url = this.url('createJob', { namespace, table }, opts);
    const res = await this.transport.call({ operation: 'createJob', method: 'POST', url, body, priority: opts.priority, signal: opts.signal });
    return parseJobRecord(res.data, 'createJob');
  }

  async getJob(jobId: string, opts: CallOptions = {}): Promise<JobRecord> {
    const url = this.url('getJob', { jobId }, { ...opts, scope: undefined }, false);
    const res = await this.transport.call({ operation: 'getJob', method: 'GET', url, priority: opts.priority, signal: opts.signal });
    return parseJobRecord(res.data, 'getJob');
  }

  async createUrls(objectIds: string[], opts: CallOptions = {}): Promise<PresignedUrlResponse> {
    if (objectIds.length === 0) return { urls: {} };
    const url = this.url('createUrls', {}, opts, false);
    const body = objectIds.map((id) => ({ id }));
    const res = await this.transport.call({ operation: 'createUrls', method: 'POST', url, body, priority: opts.priority, signal: opts.signal });
    return parsePresignedUrls(res.data, objectIds);
  }

  /** Polls (shared poller, background priority) until the job completes. */
  waitForJob(jobId: string, opts: WaitOptions = {}): Promise<JobRecord> {
    this.ready();
    return this.poller.watch(jobId, { signal: opts.signal, onUpdate: opts.onUpdate });
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
      try {
        await this.clock.sleep(Math.max(0, left) + 1_000, opts.signal);
      } catch {
        throw new DqError('cancelled', 'Stopped waiting for an expiring job', { operation: 'createJob' });
      }
      job = await this.createJob(namespace, table, request, opts);
    }
    opts.onUpdate?.(job);
    if (job.status === 'complete') return job;
    return this.poller.watch(job.id, { signal: opts.signal, onUpdate: opts.onUpdate, firstPollInMs: 1_000, known: job });
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

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.poller.close();
    this.tokens.clear();
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private ready(): void {
    if (this.closed) throw new DqError('usage', 'The client has been closed');
    checkUrl(this.baseUrl, this.allowInsecureHttp, 'base URL');
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
