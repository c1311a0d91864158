// One poller for every job a client waits on: a single loop sleeps until the next job is
// due, polls the due jobs at background priority (so the get-job budget and user calls come
// first), and waits between a job's polls a quarter of the time it has been watched (from
// 1 s up to 5 minutes). A job is then never noticed much later than a quarter of its run
// time after it ends, and the number of polls grows with the log of that time, not with the
// time itself. Waiters get status updates and settle when the job completes, fails or expires.
// A status check that fails for a passing reason (a gateway outage, the network, a rate limit)
// does not end the wait: the job goes on at the service, so the poller keeps checking every
// 30 s or more and tells the waiters, until a check works again or they stop waiting.

import type { Clock } from '../core/clock';
import type { JobRecord } from '../core/contract';
import { nullLogger, redact, type Logger } from '../core/logger';
import { DqError, isDqError } from './errors';

export const POLL_MIN_MS = 1_000;
export const POLL_MAX_MS = 300_000;
/** the wait between polls, as a share of the time the job has been watched */
const POLL_SHARE_OF_AGE = 0.25;
/** the wait after a poll that failed (the transport has retried already) */
const POLL_FAILED_MS = 30_000;

export type FetchJob = (jobId: string) => Promise<JobRecord>;

interface Listener {
  onUpdate?: (job: JobRecord) => void;
  onTrouble?: (trouble: DqError | undefined) => void;
  resolve: (job: JobRecord) => void;
  reject: (err: unknown) => void;
  cleanup: () => void;
}

interface Watched {
  jobId: string;
  listeners: Set<Listener>;
  /** when the first waiter began watching */
  since: number;
  dueAt: number;
  lastStatus?: string;
  /** the passing failure of the last status check, until one works again */
  trouble?: DqError;
  polling: boolean;
}

export interface JobPollerOptions {
  fetchJob: FetchJob;
  clock: Clock;
  logger?: Logger;
  minDelayMs?: number;
  maxDelayMs?: number;
}

export interface WatchOptions {
  signal?: AbortSignal;
  onUpdate?: (job: JobRecord) => void;
  /** delay before the first poll (default 0) */
  firstPollInMs?: number;
  /** the record the caller already holds, so its status counts as known */
  known?: JobRecord;
  /**
   * A status check failed for a passing reason (the wait goes on), or, with undefined, a check
   * worked again after such failures.
   */
  onTrouble?: (trouble: DqError | undefined) => void;
}

export class JobPoller {
  private readonly jobs = new Map<string, Watched>();
  private readonly logger: Logger;
  private readonly minDelay: number;
  private readonly maxDelay: number;
  private running = false;
  private wake?: AbortController;
  private closed = false;

  constructor(private readonly options: JobPollerOptions) {
    this.logger = options.logger ?? nullLogger;
    this.minDelay = options.minDelayMs ?? POLL_MIN_MS;
    this.maxDelay = options.maxDelayMs ?? POLL_MAX_MS;
  }

  /** Number of jobs being watched. */
  get size(): number {
    return this.jobs.size;
  }

  /** Resolves with the complete job; rejects with 'jobFailed', 'jobExpired' or 'cancelled'. */
  watch(jobId: string, options: WatchOptions = {}): Promise<JobRecord> {
    if (this.closed) return Promise.reject(new DqError('cancelled', 'The client was closed'));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(cancelled(jobId));
    return new Promise<JobRecord>((resolve, reject) => {
      const now = this.options.clock.now();
      let watched = this.jobs.get(jobId);
      if (!watched) {
        watched = {
          jobId,
          listeners: new Set(),
          since: now,
          dueAt: now + (options.firstPollInMs ?? 0),
          lastStatus: options.known?.status,
          polling: false,
        };
        this.jobs.set(jobId, watched);
      } else {
        watched.dueAt = Math.min(watched.dueAt, now + (options.firstPollInMs ?? 0));
      }
      const entry = watched;
      const listener: Listener = {
        onUpdate: options.onUpdate,
        onTrouble: options.onTrouble,
        resolve,
        reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      const onAbort = (): void => {
        entry.listeners.delete(listener);
        if (entry.listeners.size === 0 && this.jobs.get(jobId) === entry) this.jobs.delete(jobId);
        reject(cancelled(jobId));
        this.wake?.abort();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      entry.listeners.add(listener);
      if (entry.trouble) safeCall(listener.onTrouble, entry.trouble);
      this.start();
    });
  }

  /** Stops polling; every waiter is rejected with 'cancelled'. */
  close(): void {
    this.closed = true;
    for (const watched of this.jobs.values()) {
      this.settle(watched, undefined, new DqError('cancelled', 'The client was closed'));
    }
    this.jobs.clear();
    this.wake?.abort();
  }

  private start(): void {
    if (this.running) {
      this.wake?.abort();
      return;
    }
    this.running = true;
    void this.loop().finally(() => {
      this.running = false;
      this.wake = undefined;
    });
  }

  private async loop(): Promise<void> {
    const { clock } = this.options;
    while (this.jobs.size > 0 && !this.closed) {
      const now = clock.now();
      const waiting = [...this.jobs.values()].filter((w) => !w.polling);
      const due = waiting.filter((w) => w.dueAt <= now);
      for (const w of due) void this.poll(w);
      const next = waiting.filter((w) => w.dueAt > now).reduce((m, w) => Math.min(m, w.dueAt), Infinity);
      const wake = new AbortController();
      this.wake = wake;
      try {
        // with nothing scheduled, sleep until a poll finishes or a watch arrives (they wake us)
        await clock.sleep(Number.isFinite(next) ? next - now : this.maxDelay, wake.signal);
      } catch {
        /* woken early */
      }
      this.wake = undefined;
    }
  }

  private async poll(w: Watched): Promise<void> {
    w.polling = true;
    let job: JobRecord | undefined;
    let error: unknown;
    try {
      job = await this.options.fetchJob(w.jobId);
    } catch (err) {
      error = err;
    }
    w.polling = false;
    if (this.jobs.get(w.jobId) !== w) return; // no one is waiting any more
    const now = this.options.clock.now();
    if (job) {
      if (w.trouble) {
        w.trouble = undefined;
        this.logger.info(`job ${w.jobId}: status checks work again`);
        for (const l of w.listeners) safeCall(l.onTrouble, undefined);
      }
      const changed = job.status !== w.lastStatus;
      w.lastStatus = job.status;
      if (job.status === 'complete') {
        this.settle(w, job);
      } else if (job.status === 'failed') {
        this.settle(w, job, jobFailedError(job));
      } else {
        if (changed) for (const l of w.listeners) safeCall(l.onUpdate, job);
        w.dueAt = now + this.delayFor(w, now);
      }
    } else {
      const err = error;
      if (isDqError(err) && err.kind === 'notFound') {
        this.settle(
          w,
          undefined,
          new DqError('jobExpired', `Job ${w.jobId} no longer exists`, {
            status: err.status,
            uuid: err.uuid,
            type: err.type,
            operation: 'getJob',
            details: { id: w.jobId, ...(err.details ?? {}) },
            hint: 'Jobs and their files are deleted about 24 hours after they start; run the query again.',
          }),
        );
      } else if (isDqError(err) && ['rateLimited', 'server', 'network'].includes(err.kind)) {
        const delay = Math.max(POLL_FAILED_MS, this.delayFor(w, now));
        this.logger.warn(`job ${w.jobId}: status check failed (${err.describe()}); the job goes on at the service, checking again in ${Math.round(delay / 1000)} s`);
        w.trouble = err;
        for (const l of w.listeners) safeCall(l.onTrouble, err);
        w.dueAt = now + delay;
      } else {
        this.settle(w, undefined, err);
      }
    }
    this.wake?.abort();
  }

  /** The wait before a job's next poll: a share of its age, within the bounds. */
  private delayFor(w: Watched, now: number): number {
    return Math.min(this.maxDelay, Math.max(this.minDelay, Math.round((now - w.since) * POLL_SHARE_OF_AGE)));
  }

  private settle(w: Watched, job: JobRecord | undefined, error?: unknown): void {
    if (this.jobs.get(w.jobId) === w) this.jobs.delete(w.jobId);
    for (const l of w.listeners) {
      l.cleanup();
      if (job) safeCall(l.onUpdate, job);
      if (error !== undefined) l.reject(error);
      else if (job) l.resolve(job);
    }
    w.listeners.clear();
  }
}

export function jobFailedError(job: JobRecord): DqError {
  const e = job.error ?? {};
  const type = typeof e.type === 'string' ? redact(e.type) : undefined;
  const uuid = typeof e.uuid === 'string' ? redact(e.uuid) : undefined;
  const message = typeof e.message === 'string' && e.message ? redact(e.message) : 'no reason given';
  return new DqError('jobFailed', `Job ${job.id} failed: ${message}`, {
    type,
    uuid,
    operation: 'getJob',
    details: { id: job.id },
    hint: `Check the query's format and range and run it again${uuid ? `; if it fails again, contact support quoting uuid ${uuid}` : ''}.`,
  });
}

function cancelled(jobId: string): DqError {
  return new DqError('cancelled', `Stopped waiting for job ${jobId}`, { operation: 'getJob' });
}

function safeCall<T>(fn: ((value: T) => void) | undefined, value: T): void {
  try {
    fn?.(value);
  } catch {
    /* a listener's failure must not stop polling */
  }
}
