// The "Data Query" status bar item: a spinner and the count while jobs run (queued ones
// counted apart), the last result for a few seconds, then a quiet icon. The tooltip lists
// the running jobs and the remaining per-operation budget of each connection in use.
// Clicking it shows the Jobs view.

import * as vscode from 'vscode';
import { isActive, type JobEntry } from '../../jobs/jobEntry';
import type { JobClient } from '../../jobs/jobRunner';
import type { JobsModel } from '../../jobs/jobsModel';
import { statusBarTooltip, statusBarView, type ConnectionBudgets } from '../../jobs/statusTexts';
import { Commands, ViewTypes } from '../ui/ids';

const LAST_RESULT_MS = 5_000;

export class JobsStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(ViewTypes.statusBar, vscode.StatusBarAlignment.Left, 10);
  private readonly wasActive = new Set<string>();
  private lastResult: JobEntry | undefined;
  private lastTimer: NodeJS.Timeout | undefined;
  private readonly subscription: { dispose(): void };

  constructor(
    private readonly model: JobsModel,
    private readonly clientFor: (connection: string) => Promise<JobClient>,
    private readonly now: () => number,
  ) {
    this.item.name = 'Data Query';
    this.item.command = Commands.showJobs;
    for (const e of model.active()) this.wasActive.add(e.key);
    this.subscription = model.onDidChange(() => this.onModelChange());
    this.render();
  }

  /** Redraws text and tooltip (the ticker calls this every second while jobs run). */
  render(): void {
    const entries = this.model.list();
    const view = statusBarView(entries, this.lastResult);
    this.item.text = view.text;
    this.item.accessibilityInformation = { label: `Data Query: ${view.text.replace(/\$\([^)]*\)\s*/g, '') || 'no jobs running'}` };
    void this.tooltip(entries);
    if (view.visible) this.item.show();
    else this.item.hide();
  }

  private onModelChange(): void {
    for (const entry of this.model.list()) {
      if (isActive(entry)) this.wasActive.add(entry.key);
      else if (this.wasActive.delete(entry.key)) this.showResult(entry);
    }
    this.render();
  }

  private showResult(entry: JobEntry): void {
    this.lastResult = entry;
    if (this.lastTimer) clearTimeout(this.lastTimer);
    this.lastTimer = setTimeout(() => {
      this.lastResult = undefined;
      this.render();
    }, LAST_RESULT_MS);
  }

  private async tooltip(entries: readonly JobEntry[]): Promise<void> {
    const connections = [...new Set(entries.filter(isActive).map((e) => e.connection))];
    const budgets: ConnectionBudgets[] = [];
    for (const connection of connections) {
      try {
        budgets.push({ connection, budgets: (await this.clientFor(connection)).budgets() });
      } catch {
        // a connection that cannot be reached has no budget to show
      }
    }
    this.item.tooltip = new vscode.MarkdownString(statusBarTooltip(entries, budgets, this.now()));
  }

  dispose(): void {
    if (this.lastTimer) clearTimeout(this.lastTimer);
    this.subscription.dispose();
    this.item.dispose();
  }
}
