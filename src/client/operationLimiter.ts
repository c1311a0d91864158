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
//
// With a shared budget (the machine-wide rate ledger), a rate-limited call also needs a start
// in the ledger that every process using the same credentials draws from: the queue, the
// priorities and the pause gates stay per process, the count of starts is the machine's, and a
// 429's pause reaches every process. When the ledger cannot be used, the call is counted here
// alone.

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
  /** `sharedId`: the start the shared budget granted this call */
  resolve: (sharedId?: string) => void;
  reject: (err: unknown) => void;
  cleanup: () => void;
  onQueued?: AcquireOptions['onQueued'];
  /** onQueued has been called (or there is none) */
  told: boolean;
}

/** The shared budget's answer: a start granted, when to try again, or undefined (count alone). */
export type SharedTry =
  | { granted: true; ids: string[] }
  | { granted: false; retryAt: number; pausedUntil: number; starts: number[] }
  | undefined;

/** Each operation's starts in the window (oldest first) and pause, as the shared budget holds them. */
export type SharedCounts = Map<Operation, { starts: number[]; pausedUntil: number }>;

/** A rate budget several processes draw from (see rateLedger.ts). */
export interface SharedBudget {
  /** operations allowed more calls than this per window are counted by each process alone */
  readonly maxLimit: number;
  /** up to `wanted` starts at once (at least one when any is granted) */
  tryStart(operation: Operation, limit: number, windowMs: number, wanted: number): Promise<SharedTry>;
  answered(operation: Operation, id: string, windowMs: number): void;
  release(operation: Operation, id: string, windowMs: number): void;
  pause(operation: Operation, until: number): void;
  /** undefined once this process counts alone */
  counts(windowMs: number): SharedCounts | undefined;
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
  /** the budget shared with other processes of the same account; without it, this process counts alone */
  shared?: SharedBudget;
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
  private readonly shared?: SharedBudget;
  private seq = 0;

  constructor(options: OperationLimiterOptions) {
    this.windowMs = options.windowMs;
    this.maxPauseMs = options.maxPauseMs ?? DEFAULT_MAX_WAIT_MS;
    this.clock = options.clock;
    this.logger = options.logger ?? nullLogger;
    this.shared = options.shared;
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
    const shared = this.sharedFor(operation, state);
    const localWait = this.clock.now() < state.pausedUntil || state.starts.length >= state.limit;
    if (!shared && state.queue.length === 0 && !localWait) return Promise.resolve(this.take(operation, state));
    return new Promise<RateSlot>((resolve, reject) => {
      const waiter: Waiter = {
        priority,
        seq: this.seq++,
        resolve: (sharedId) => resolve(this.take(operation, state, sharedId)),
        reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
        onQueued: options.onQueued,
        told: !options.onQueued,
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
      // with a shared budget, only the ledger tells whether a call that may go here must wait
      if (!shared || localWait) this.tellQueued(state);
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
    if (operation !== 'login') this.sharedFor(operation, state)?.pause(operation, until);
    this.logger.warn(`rate limited: pausing ${operation} for ${Math.ceil(pauseMs / 1000)} s`);
    this.closeGate(operation, state, until);
  }

  /** Closes the gate until `until`, refusing the queued calls when that is longer than they may wait. */
  private closeGate(operation: Gate, state: OperationState, until: number): void {
    if (until <= state.pausedUntil) return;
    state.pausedUntil = until;
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
    const counts = this.shared?.counts(this.windowMs);
    const operations = [...this.states.entries()].filter((entry): entry is [Operation, OperationState] => entry[0] !== 'login');
    return operations.map(([operation, state]) => {
      this.prune(state);
      const own = state.starts.map((s) => s.at);
      const machine = counts && state.limit <= (this.shared as SharedBudget).maxLimit ? counts.get(operation) : undefined;
      // the ledger holds this process's starts too; a fresh (replaced) one may hold fewer
      const starts = machine && machine.starts.length >= own.length ? machine.starts : own;
      const pausedUntil = Math.max(state.pausedUntil, machine?.pausedUntil ?? 0);
      const remaining = Math.max(0, state.limit - starts.length);
      const resetInMs = remaining > 0 ? 0 : Math.max(0, starts[starts.length - state.limit] + this.windowMs - now);
      const snapshot: BudgetSnapshot = { operation, limit: state.limit, remaining, resetInMs, pausedForMs: Math.max(0, pausedUntil - now) };
      if (counts && state.limit <= (this.shared as SharedBudget).maxLimit) snapshot.shared = true;
      return snapshot;
    });
  }

  /** The refusal for a call made now, when the pause has longer left than a call may wait. */
  private pauseTooLong(operation: Gate, state: OperationState): DqError | undefined {
    const now = this.clock.now();
    const left = state.pausedUntil - now;
    if (left <= this.maxPauseMs) return undefined;
    return waitTooLongError(this.maxPauseMs, { operation: label(operation), waitMs: left, now, notSent: true });
  }

  /** The shared budget this operation draws from, if any (never the sign-in's gate). */
  private sharedFor(operation: Gate, state: OperationState): SharedBudget | undefined {
    return operation !== 'login' && this.shared && state.limit <= this.shared.maxLimit ? this.shared : undefined;
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
  private take(operation: Gate, state: OperationState, sharedId?: string): RateSlot {
    const start: Start = { at: this.clock.now() };
    const shared = sharedId !== undefined && operation !== 'login' ? this.shared : undefined;
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
        shared?.answered(operation as Operation, sharedId as string, this.windowMs);
      },
      release: () => {
        if (settled) return;
        settled = true;
        remove();
        shared?.release(operation as Operation, sharedId as string, this.windowMs);
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

  /**
   * Tells each queued caller not told yet when it will likely start: replays the window (this
   * process's starts, or the shared budget's) for those ahead of it.
   */
  private tellQueued(state: OperationState, sharedStarts?: number[]): void {
    const now = this.clock.now();
    const starts = sharedStarts ? [...sharedStarts] : state.starts.map((s) => s.at);
    for (const waiter of state.queue) {
      const windowAt = starts.length >= state.limit ? starts[starts.length - state.limit] + this.windowMs : now;
      const at = Math.max(now, state.pausedUntil, windowAt);
      starts.push(at);
      if (waiter.told) continue;
      waiter.told = true;
      const reason: QueueReason = state.pausedUntil > now && state.pausedUntil >= windowAt ? 'paused' : 'limit';
      try {
        waiter.onQueued?.({ waitMs: at - now, reason });
      } catch {
        /* a listener's failure must not break the queue */
      }
    }
  }

  private pump(operation: Gate, state: OperationState): void {
    if (state.pumping) {
      state.wake?.abort(); // re-evaluate with the new waiter
      return;
    }
    state.pumping = true;
    const shared = this.sharedFor(operation, state);
    const run = shared ? this.runSharedPump(operation as Operation, state, shared) : this.runPump(operation, state);
    void run.finally(() => {
      state.pumping = false;
      state.wake = undefined;
      // a caller that queued after the pump's last look, before it ended, must not be left behind
      if (state.queue.length > 0) this.pump(operation, state);
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

  /**
   * The queue of an operation that draws from the shared budget: the first caller asks it for a
   * start whenever this process's own gate and window let it go; when the machine's window is
   * full or paused, everyone waits until the ledger says the next slot opens.
   */
  private async runSharedPump(operation: Operation, state: OperationState, shared: SharedBudget): Promise<void> {
    while (state.queue.length > 0) {
      this.prune(state);
      const now = this.clock.now();
      const ownFreeAt = state.starts.length >= state.limit ? state.starts[state.starts.length - state.limit].at + this.windowMs : now;
      let wakeAt = Math.max(state.pausedUntil, ownFreeAt);
      if (wakeAt <= now) {
        // as many as wait and this process's own window lets go, in one turn of the ledger
        const wanted = Math.min(state.queue.length, state.limit - state.starts.length);
        const answer = await shared.tryStart(operation, state.limit, this.windowMs, wanted);
        if (!answer) {
          // the ledger cannot be used now: this process's own count decides, as without it
          const waiter = state.queue.shift();
          waiter?.cleanup();
          waiter?.resolve();
          continue;
        }
        if (answer.granted) {
          for (const id of answer.ids) {
            const waiter = state.queue.shift();
            if (waiter) {
              waiter.cleanup();
              waiter.resolve(id);
            } else {
              shared.release(operation, id, this.windowMs); // its caller gave up meanwhile
            }
          }
          continue;
        }
        if (answer.pausedUntil > state.pausedUntil) {
          this.logger.info(`${operation}: paused for ${Math.ceil((answer.pausedUntil - this.clock.now()) / 1000)} s by a 429 another process received`);
          this.closeGate(operation, state, answer.pausedUntil);
        }
        if (state.queue.length === 0) return;
        this.tellQueued(state, answer.starts);
        wakeAt = answer.retryAt;
      } else {
        this.tellQueued(state);
      }
      const wake = new AbortController();
      state.wake = wake;
      try {
        await this.clock.sleep(Math.max(0, wakeAt - this.clock.now()), wake.signal);
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
