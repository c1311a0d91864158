// The object downloader's retry budget, handed to the retry loop as its strategy: it counts
// failed attempts in a row that add no byte beyond the highest reached, and any new byte
// refills it. Refused links are counted the same way, apart. Attempts found too slow are
// counted apart too, and progress does not refill those, or a trickle would never end.

import type { RetryBudget, RetryFailure } from './retryPolicy';

export class ProgressBudget implements RetryBudget {
  private highest = 0;
  private failures = 0;
  private refusals = 0;
  private slowAttempts = 0;

  constructor(private readonly maxRetries: number) {}

  /** failed attempts in a row without progress */
  get spent(): number {
    return this.failures;
  }

  /** The object now has `bytes`: a new highest refills the budget. */
  progressed(bytes: number): void {
    if (bytes <= this.highest) return;
    this.highest = bytes;
    this.refusals = 0;
    this.failures = 0;
  }

  /** Counts a refused link; returns the refusals in a row without progress. */
  refused(): number {
    return ++this.refusals;
  }

  allows(failure: RetryFailure): boolean {
    if (failure.slow && this.slowAttempts >= this.maxRetries) return false;
    return this.failures < this.maxRetries;
  }

  spend(failure: RetryFailure): void {
    if (failure.slow) this.slowAttempts++;
    this.failures++;
  }
}
