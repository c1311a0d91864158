// A one-second tick while jobs are active, so countdowns ("starts in 23 s"), elapsed times
// and ages stay current; silent when nothing runs.

import * as vscode from 'vscode';
import type { JobsModel } from '../../jobs/jobsModel';

const TICK_MS = 1_000;

export class JobsTicker implements vscode.Disposable {
  private readonly ticked = new vscode.EventEmitter<void>();
  readonly onDidTick = this.ticked.event;
  private timer: NodeJS.Timeout | undefined;
  private readonly subscription: { dispose(): void };

  constructor(private readonly model: JobsModel) {
    this.subscription = model.onDidChange(() => this.update());
    this.update();
  }

  private update(): void {
    const wanted = this.model.active().length > 0;
    if (wanted && !this.timer) this.timer = setInterval(() => this.ticked.fire(), TICK_MS);
    if (!wanted && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.subscription.dispose();
    this.ticked.dispose();
  }
}
