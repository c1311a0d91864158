// What keeps the Jobs view's and status bar's times current: a tick every second while a job
// is active (countdowns such as "starts in 23 s", elapsed times), every half minute while
// only finished jobs are listed and the view is shown (their "5 min ago" ages), and none
// otherwise.

import type { Clock } from '../core/clock';
import type { JobsModel } from './jobsModel';

export const ACTIVE_TICK_MS = 1_000;
export const AGES_TICK_MS = 30_000;

export class JobsTicker {
  private period: number | undefined;
  private stop: AbortController | undefined;
  private readonly subscription: { dispose(): void };
  private disposed = false;

  /** `shown`: whether the finished jobs' ages are on screen now (the Jobs view is visible). */
  constructor(
    private readonly model: JobsModel,
    private readonly clock: Clock,
    private readonly onTick: () => void,
    private readonly shown: () => boolean,
  ) {
    this.subscription = model.onDidChange(() => this.update());
    this.update();
  }

  /** Looks again at what is on screen (call when the Jobs view is shown or hidden). */
  update(): void {
    if (this.disposed) return;
    const wanted = this.wantedPeriod();
    if (wanted === this.period) return;
    this.stop?.abort();
    this.stop = undefined;
    this.period = wanted;
    if (wanted !== undefined) void this.loop(wanted, (this.stop = new AbortController()).signal);
  }

  dispose(): void {
    this.disposed = true;
    this.stop?.abort();
    this.subscription.dispose();
  }

  private wantedPeriod(): number | undefined {
    if (this.model.active().length > 0) return ACTIVE_TICK_MS;
    return this.model.list().length > 0 && this.shown() ? AGES_TICK_MS : undefined;
  }

  private async loop(period: number, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.clock.sleep(period, signal);
      } catch {
        return; // stopped: another period took over, or disposed
      }
      this.onTick();
    }
  }
}
