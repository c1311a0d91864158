// A Clock whose time moves only when a test says so. `advance(ms)` fires due sleeps in time
// order (ties in the order they were made), letting promise chains run between them, so
// code that sleeps again after waking is handled within the same advance.

import type { Clock } from '../../src/core/clock';

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

/** Lets pending promise callbacks and immediate I/O callbacks run. */
export async function flushMicrotasks(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  private timers: Timer[] = [];
  /** every sleep duration requested, in order (for backoff assertions) */
  readonly sleeps: number[] = [];

  constructor(start = Date.UTC(2026, 10, 20, 8, 0, 0)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason ?? new Error('aborted'));
        return;
      }
      const timer: Timer = {
        at: this.time + Math.max(0, ms),
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
    });
  }

  /** Sleeps not yet fired. */
  get pending(): number {
    return this.timers.length;
  }

  /** When the earliest pending sleep fires, or undefined. */
  nextAt(): number | undefined {
    return this.timers.reduce<number | undefined>((m, t) => (m === undefined || t.at < m ? t.at : m), undefined);
  }

  /** Moves time forward by `ms`, firing every sleep that falls due on the way, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await flushMicrotasks();
    for (;;) {
      const next = this.earliest();
      if (!next || next.at > target) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = Math.max(this.time, next.at);
      next.resolve();
      await flushMicrotasks();
    }
    this.time = target;
    await flushMicrotasks();
  }

  /**
   * Advances from one pending sleep to the next until `promise` settles, and returns its
   * outcome. Fails when nothing is pending and the promise still has not settled.
   */
  async run<T>(promise: Promise<T>, maxSteps = 2_000): Promise<T> {
    let settled = false;
    promise.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let step = 0; step < maxSteps; step++) {
      await flushMicrotasks();
      if (settled) return promise;
      const at = this.nextAt();
      if (at === undefined) {
        // maybe real I/O is in flight: give it a moment
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      await this.advance(Math.max(0, at - this.time));
    }
    throw new Error('FakeClock.run: the promise never settled');
  }

  private earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.timers) if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    return best;
  }
}
