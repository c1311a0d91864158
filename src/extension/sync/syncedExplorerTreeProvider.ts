// The Explorer view with the sync marks: each table held by the sync target shows its point
// and row count beside its schema version (a green table icon), and a table being synced shows
// its stage. The marks come from the synced-tables model; a change redraws only the tables it
// touched. Everything else is the explorer's own.

import type * as vscode from 'vscode';
import { markSyncedTable } from '../explorer/explorerItems';
import type { ExplorerNode } from '../explorer/explorerNodes';
import { ExplorerTreeProvider } from '../explorer/explorerTreeProvider';
import type { ConnectionStore } from '../connections/connectionStore';
import type { SyncedChange, SyncedTablesModel } from './syncedTablesModel';
import { stageText, syncedMarkText, syncedTooltipText } from './syncTexts';

export class SyncedExplorerTreeProvider extends ExplorerTreeProvider {
  private readonly marks: SyncedTablesModel;
  private readonly connections: ConnectionStore;
  private readonly subscription: { dispose(): void };

  constructor(marks: SyncedTablesModel, ...explorer: ConstructorParameters<typeof ExplorerTreeProvider>) {
    super(...explorer);
    this.marks = marks;
    this.connections = explorer[0];
    this.subscription = marks.onDidChange((change) => this.redraw(change));
  }

  override getTreeItem(node: ExplorerNode): vscode.TreeItem {
    const item = super.getTreeItem(node);
    if (node.kind !== 'table') return item;
    const connection = node.connection.name;
    const state = this.marks.stateOf(connection, node.namespace, node.table);
    const activity = this.marks.activityOf(connection, node.namespace, node.table);
    const label = this.marks.targetLabel ?? 'the sync target';
    const now = Date.now();
    if (activity) {
      const before = state ? ` ${syncedTooltipText(state, label, now)}` : '';
      return markSyncedTable(item, { description: `syncing: ${stageText(activity, now)}`, tooltip: `Being synced to ${label} now.${before}`, syncing: true });
    }
    if (!state) return item;
    return markSyncedTable(item, { description: syncedMarkText(state), tooltip: syncedTooltipText(state, label, now), syncing: false });
  }

  override dispose(): void {
    this.subscription.dispose();
    super.dispose();
  }

  private redraw(change: SyncedChange): void {
    for (const connection of this.connections.list()) {
      for (const t of change.tables) this.schemaChanged(connection.name, t.namespace, t.table);
    }
  }
}
