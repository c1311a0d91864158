// The Jobs view: every job of the JobsModel, newest first, with its files as children.
// Redraws when the model changes and on the ticker (ages, "starts in 23 s" countdowns).

import * as vscode from 'vscode';
import type { JobsModel } from '../../jobs/jobsModel';
import { jobNode, type JobNode, type JobsViewNode } from './jobsNodes';
import { fileTreeItem, jobTreeItem } from './jobsTreeItems';

export class JobsTreeProvider implements vscode.TreeDataProvider<JobsViewNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<JobsViewNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscription: { dispose(): void };

  constructor(
    private readonly model: JobsModel,
    private readonly now: () => number,
  ) {
    this.subscription = model.onDidChange(() => this.changed.fire(undefined));
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(node: JobsViewNode): vscode.TreeItem {
    const entry = this.model.get(node.key);
    if (!entry) return new vscode.TreeItem('(removed)');
    if (node.kind === 'job') return jobTreeItem(node, entry, this.now());
    return fileTreeItem(node, entry.files.find((f) => f.path === node.path)?.bytes ?? 0);
  }

  getChildren(node?: JobsViewNode): JobsViewNode[] {
    if (!node) return this.model.list().map((e) => jobNode(e.key));
    if (node.kind !== 'job') return [];
    return (this.model.get(node.key)?.files ?? []).map((f, i) => ({ kind: 'file', id: `${node.id}/file/${i}`, key: node.key, path: f.path }));
  }

  getParent(node: JobsViewNode): JobNode | undefined {
    return node.kind === 'file' ? jobNode(node.key) : undefined;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
