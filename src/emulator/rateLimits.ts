// Server-side rate limits: for each credential and operation, at most N calls in any sliding
// window. A refused call does not count. Retry-After is the time until the oldest counted
// call leaves the window.

import type { Clock } from '../core/clock';
import { DEFAULT_RATE_LIMITS, type Operation } from '../core/contract';

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number; limit: number };

export class RateLimits {
  private readonly calls = new Map<string, number[]>();
  private readonly limits: Partial<Record<Operation, number>> | false;

  constructor(
    private readonly clock: Clock,
    limits: Partial<Record<Operation, number>> | false | undefined,
    private readonly windowMs: number,
  ) {
    this.limits = limits === false ? false : { ...DEFAULT_RATE_LIMITS, ...(limits ?? {}) };
  }

  take(clientId: string, operation: Operation): RateDecision {
    if (this.limits === false) return { allowed: true };
    const limit = this.limits[operation];
    if (limit === undefined || !Number.isFinite(limit)) return { allowed: true };
    const now = this.clock.now();
    const key = `${clientId}\u0000${operation}`;
    const times = (this.calls.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (times.length >= limit) {
      this.calls.set(key, times);
      const wait = times[0] + this.windowMs - now;
      return { allowed: false, retryAfterMs: wait, limit };
    }
    times.push(now);
    this.calls.set(key, times);
    return { allowed: true };
  }
}
