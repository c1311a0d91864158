// Client-side pre-filter for the service's per-operation rate limits. Each operation keeps a
// sliding log of start times: a call may start only while fewer than N starts lie in the
// last windowMs, so no window of that length ever holds more than N starts (a token bucket
// of size N can let 2N through). The server counts a call when it arrives, which is later
// than the client's start (a token to fetch, the way there): so a call's start moves to when
// its answer came back, and the client's window never opens before the server's. User calls
// go before background polling; a 429 closes a per-operation pause gate until its
// Retry-After has passed, however long that is. A call that would wait longer than the
// longest wait allowed for the gate to open fails at once as rateLimited, naming when to try
// again, and is never sent. A start granted to a call that then never left (its sign-in
// failed or was cancelled) is given back. The sign-in has a pause gate of its own and no
// window. The server stays the authority.

import type { Clock } from '../core/clock';
import type { Operation } from '../core/contract';
import { nullLogger, type Logger } from '../core/logger';
import { cancelledError, DqError } from './errors';
import { DEFAULT_MAX_WAIT_MS, waitTooLongError } from './retryPolicy';
import type { BudgetSnapshot, Priority, QueueReason } from './types';

/** What the limiter holds back: a rate-limited operation, or the sign-in (pause gate only). */
export type Gate = Operation | 'login';

interface Waiter {
  priority: Priority;
  seq: number;
  resolve: () => void;
  reject: (err: unknown) => void;
  cleanup: () => void;
}

/** One counted start; `at` only ever moves later. */
interface Start {
  at: number;
}

/** The start a call was granted. */
export interface RateSlot {
  /** The call's answer (or failure) is here: its start now counts from this moment. */
  answered(): void;
  /**
   * The call never left (its sign-in failed or it was cancelled before sending): its start
   * does not count, and the next caller may have it. Does nothing after answered().
   */
  release(): void;
}

interface OperationState {
  limit: number;
  /** oldest first */
  starts: Start[];
  queue: Waiter[];
  pausedUntil: number;
  pumping: boolean;
  /** wakes the pump's current sleep early */
  wake?: AbortController;
}

export interface OperationLimiterOptions {
  limits: Readonly<Record<Operation, number>>;
  windowMs: number;
  /**
   * The longest a call waits for a 429's pause to end (default DEFAULT_MAX_WAIT_MS); while
   * more of the pause is left, calls fail at once as rateLimited without being sent.
   */
  maxPauseMs?: number;
  clock: Clock;
  logger?: Logger;
}

export interface AcquireOptions {
  priority?: Priority;
  signal?: AbortSignal;
  /** called once when the call has to wait, with how long it likely will */
  onQueued?: (wait: { waitMs: number; reason: QueueReason }) => void;
}

export class OperationLimiter {
  private readonly states = new Map<Gate, OperationState>();
  private readonly windowMs: number;
  private readonly maxPauseMs: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private seq = 0;

  constructor(options: OperationLimiterOptions) {
    this.windowMs = options.windowMs;
    this.maxPauseMs = options.maxPauseMs ?? DEFAULT_MAX_WAIT_MS;
    this.clock = options.clock;
    this.logger = options.logger ?? nullLogger;
    for (const [op, limit] of Object.entries(options.limits) as [Operation, number][]) {
      if (!Number.isInteger(limit) || limit < 1) {
        throw new DqError('usage', `The rate limit for ${op} must be a whole number of at least 1, not ${String(limit)}`);
      }
      this.states.set(op, { limit, starts: [], queue: [], pausedUntil: 0, pumping: false });
    }
    this.states.set('login', { limit: Infinity, starts: [], queue: [], pausedUntil: 0, pumping: false });
    if (!(this.windowMs > 0)) throw new DqError('usage', 'The rate window must be a positive number of milliseconds');
  }

  /**
   * Resolves when `operation` may start one call; the start is counted from that moment
   * until the caller says the call was answered.
   */
  acquire(operation: Gate, options: AcquireOptions = {}): Promise<RateSlot> {
    const state = this.state(operation);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(cancelled(operation));
    const refusal = this.pauseTooLong(operation, state);
    if (refusal) return Promise.reject(refusal);
    const priority = options.priority ?? 'user';
    this.prune(state);
    const canGoNow =
      state.queue.length === 0 && this.clock.now() >= state.pausedUntil && state.starts.length < state.limit;
    if (canGoNow) return Promise.resolve(this.take(state));
    return new Promise<RateSlot>((resolve, reject) => {
      const waiter: Waiter = {
        priority,
        seq: this.seq++,
        resolve: () => resolve(this.take(state)),
        reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      const onAbort = (): void => {
        const i = state.queue.indexOf(waiter);
        if (i >= 0) state.queue.splice(i, 1);
        waiter.cleanup();
        reject(cancelled(operation));
        state.wake?.abort();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.enqueue(state, waiter);
      this.tellQueued(state, waiter, options.onQueued);
      this.pump(operation, state);
    });
  }

  /**
   * Closes `operation`'s gate for `ms` (a 429's Retry-After or the default, however long);
   * never shortens a pause. When more than the longest wait is left, the calls queued for the
   * operation fail at once as rateLimited, as do calls made before less is left.
   */
  pause(operation: Gate, ms: number): void {
    const state = this.state(operation);
    const pauseMs = Math.max(0, ms);
    const until = this.clock.now() + pauseMs;
    if (until <= state.pausedUntil) return;
    state.pausedUntil = until;
    this.logger.warn(`rate limited: pausing ${operation} for ${Math.ceil(pauseMs / 1000)} s`);
    const refusal = this.pauseTooLong(operation, state);
    if (refusal) {
      const queued = state.queue.splice(0);
      if (queued.length > 0) this.logger.warn(`${label(operation)}: ${queued.length} waiting call(s) not sent: ${refusal.message}`);
      for (const waiter of queued) {
        waiter.cleanup();
        waiter.reject(refusal);
      }
    }
    state.wake?.abort();
  }

  /** Remaining budget per operation, for status displays. */
  snapshot(): BudgetSnapshot[] {
    const now = this.clock.now();
    const operations = [...this.states.entries()].filter((entry): entry is [Operation, OperationState] => entry[0] !== 'login');
    return operations.map(([operation, state]) => {
      this.prune(state);
      const remaining = Math.max(0, state.limit - state.starts.length);
      const resetInMs = remaining > 0 ? 0 : Math.max(0, state.starts[0].at + this.windowMs - now);
      return {
        operation,
        limit: state.limit,
        remaining,
        resetInMs,
        pausedForMs: Math.max(0, state.pausedUntil - now),
      };
    });
  }

  /** The refusal for a call made now, when the pause has longer left than a call may wait. */
  private pauseTooLong(operation: Gate, state: OperationState): DqError | undefined {
    const now = this.clock.now();
    const left = state.pausedUntil - now;
    if (left <= this.maxPauseMs) return undefined;
    return waitTooLongError(this.maxPauseMs, { operation: label(operation), waitMs: left, now, notSent: true });
  }

  private state(operation: Gate): OperationState {
    const state = this.states.get(operation);
    if (!state) throw new DqError('usage', `Unknown operation ${operation}`);
    return state;
  }

  private prune(state: OperationState): void {
    const cutoff = this.clock.now() - this.windowMs;
    while (state.starts.length > 0 && state.starts[0].at <= cutoff) state.starts.shift();
  }

  /**
   * Counts a start now; its answer moves it to the end of the log (the newest time), and a
   * release takes it out (the call never left), letting a queued caller go.
   */
  private take(state: OperationState): RateSlot {
    const start: Start = { at: this.clock.now() };
    state.starts.push(start);
    let settled = false;
    const remove = (): void => {
      const i = state.starts.indexOf(start);
      if (i >= 0) state.starts.splice(i, 1);
    };
    return {
      answered: () => {
        if (settled) return;
        settled = true;
        remove();
        start.at = this.clock.now();
        state.starts.push(start);
      },
      release: () => {
        if (settled) return;
        settled = true;
        remove();
        state.wake?.abort(); // a queued caller may start now
      },
    };
  }

  private enqueue(state: OperationState, waiter: Waiter): void {
    // user before background; first come first served within a priority
    const rank = (w: Waiter): number => (w.priority === 'user' ? 0 : 1);
    let i = state.queue.length;
    while (i > 0 && rank(state.queue[i - 1]) > rank(waiter)) i--;
    state.queue.splice(i, 0, waiter);
  }

  /** Tells a queued caller when it will likely start: replays the window for those ahead of it. */
  private tellQueued(state: OperationState, waiter: Waiter, onQueued: AcquireOptions['onQueued']): void {
    if (!onQueued) return;
    const now = this.clock.now();
    const starts = state.starts.map((s) => s.at);
    let windowAt = now;
    let at = now;
    for (let i = 0; i <= state.queue.indexOf(waiter); i++) {
      windowAt = starts.length >= state.limit ? starts[starts.length - state.limit] + this.windowMs : now;
      at = Math.max(now, state.pausedUntil, windowAt);
      starts.push(at);
    }
    const reason: QueueReason = state.pausedUntil > now && state.pausedUntil >= windowAt ? 'paused' : 'limit';
    try {
      onQueued({ waitMs: at - now, reason });
    } catch {
      /* a listener's failure must not break the queue */
    }
  }

  private pump(operation: Gate, state: OperationState): void {
    if (state.pumping) {
      state.wake?.abort(); // re-evaluate with the new waiter
      return;
    }
    state.pumping = true;
    void this.runPump(operation, state).finally(() => {
      state.pumping = false;
      state.wake = undefined;
    });
  }

  private async runPump(_operation: Gate, state: OperationState): Promise<void> {
    while (state.queue.length > 0) {
      this.prune(state);
      const now = this.clock.now();
      while (state.queue.length > 0 && now >= state.pausedUntil && state.starts.length < state.limit) {
        const waiter = state.queue.shift() as Waiter;
        waiter.cleanup();
        waiter.resolve();
      }
      if (state.queue.length === 0) return;
      const windowFreeAt = state.starts.length >= state.limit ? state.starts[0].at + this.windowMs : now;
      const wakeAt = Math.max(state.pausedUntil, windowFreeAt);
      const wake = new AbortController();
      state.wake = wake;
      try {
        await this.clock.sleep(Math.max(0, wakeAt - now), wake.signal);
      } catch {
        /* woken early: re-evaluate */
      }
      state.wake = undefined;
    }
  }
}

/** How errors and the log name a gate. */
function label(operation: Gate): string {
  return operation === 'login' ? 'sign-in' : operation;
}

function cancelled(operation: Gate): DqError {
  return cancelledError(`Waiting to call ${operation}`, { operation });
}
