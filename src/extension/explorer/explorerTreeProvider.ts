// The Explorer view's provider: hands VS Code the nodes the loader reads and the items the
// renderer draws, keeps the nodes made and the table listings under way, and says which nodes
// changed: after a refresh, a settings change, a schema the SchemaModel kept (read here or by a
// command, a job or the preview), a listing's wait for the rate limit, or a table's sync mark.

import * as vscode from 'vscode';
import { systemClock, type Clock } from '../../core/clock';
import type { Logger } from '../../core/logger';
import type { Column } from '../../core/schema';
import type { Connection } from '../connections/connectionConfig';
import type { ClientPool } from '../connections/clientPool';
import type { ConnectionStore } from '../connections/connectionStore';
import type { SchemaChange, SchemaModel } from '../schema/schemaModel';
import { ExplorerLoader } from './explorerLoader';
import { ExplorerNodeIndex } from './explorerNodeIndex';
import { connectionId, namespaceId, tableId, type ColumnNode, type ConnectionNode, type ExplorerNode, type TableNode } from './explorerNodes';
import { hoverTooltip, markSyncedTable, renderNode, type ItemTooltip, type ItemView, type SyncedTableMark } from './explorerRenderer';
import { TableListCache } from './tableListCache';
import type { TableMarks } from './tableMarks';

export { REFRESH_COMMAND } from './explorerLoader';

export class ExplorerTreeProvider implements vscode.TreeDataProvider<ExplorerNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ExplorerNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly tables: TableListCache;
  private readonly index = new ExplorerNodeIndex();
  private readonly loader: ExplorerLoader;
  private readonly subscriptions: { dispose(): void }[] = [];

  constructor(
    private readonly store: ConnectionStore,
    pool: ClientPool,
    logger: Logger,
    private readonly schemas: SchemaModel,
    private readonly clock: Clock = systemClock,
    private readonly marks?: TableMarks,
  ) {
    this.tables = new TableListCache((connection, namespace) => {
      const node = this.index.get(namespaceId(connection, namespace));
      if (node) this.changed.fire(node);
    }, clock);
    this.loader = new ExplorerLoader({ store, pool, schemas, logger, index: this.index, tables: this.tables, redraw: (node) => this.changed.fire(node) });
    this.subscriptions.push(schemas.onDidChange((change) => this.schemaChanged(change)));
    if (marks) {
      this.subscriptions.push(
        marks.onDidChangeMarks((tables) => {
          for (const connection of this.store.list()) {
            for (const t of tables) this.redrawTable(connection.name, t.namespace, t.table);
          }
        }),
      );
    }
  }

  /**
   * Reads `node` again: a connection's namespaces, tables and schemas, a namespace's table
   * list, a table's schema (a column's table); without a node, everything.
   */
  async refresh(node?: ExplorerNode): Promise<void> {
    if (!node || node.kind === 'error' || node.kind === 'empty' || node.kind === 'waiting') {
      this.loader.stopSchemaReads();
      this.tables.clear();
      await Promise.all(this.store.read().connections.map((c) => this.schemas.forget(c)));
      this.index.clear();
      this.changed.fire(undefined);
      return;
    }
    const name = node.connection.name;
    // a read still under way (a silent service holds it for minutes) starts over
    this.loader.stopSchemaReads(node.kind === 'column' ? tableId(node.connection.name, node.namespace, node.table) : node.id);
    if (node.kind === 'connection') {
      this.tables.clear(name);
      await this.schemas.forget(node.connection);
    } else if (node.kind === 'namespace') {
      this.tables.clear(name, node.namespace);
      await this.schemas.forget(node.connection, node.namespace);
    } else {
      await this.schemas.forget(node.connection, node.namespace, node.table);
    }
    this.changed.fire(node.kind === 'column' ? this.index.get(tableId(node.connection.name, node.namespace, node.table)) : node);
  }

  /**
   * After a settings change: forgets the listings under way of the named connections, keeps
   * the rest. Kept lists and schemas belong to a connection's service and account, so a
   * connection pointed elsewhere finds none of the old ones.
   */
  connectionsChanged(touched: string[]): void {
    for (const name of touched) {
      this.tables.clear(name);
      this.loader.stopSchemaReads(connectionId(name));
    }
    this.changed.fire(undefined);
  }

  /** Shows a column in the view, selected, with its table expanded. */
  revealColumn(view: vscode.TreeView<ExplorerNode>, connection: Connection, namespace: string, table: string, column: Column): Promise<void> {
    const id = connectionId(connection.name);
    const connectionNode = this.index.get(id) ?? this.index.node<ConnectionNode>({ kind: 'connection', id, connection, needsCredentials: false });
    const namespaceNode = this.index.child(connectionNode, { kind: 'namespace', id: namespaceId(connection.name, namespace), connection, namespace });
    let parent: TableNode | ColumnNode = this.index.child(namespaceNode, { kind: 'table', id: tableId(connection.name, namespace, table), connection, namespace, table });
    const path = column.name.split('.');
    for (let i = 1; i < path.length; i++) {
      const member = { ...column, name: path.slice(0, i).join('.'), parent: i > 1 ? path.slice(0, i - 1).join('.') : undefined };
      parent = this.loader.columnNode(parent, member, true);
    }
    return this.revealShown(view, this.loader.columnNode(parent, column, false), false);
  }

  /** Shows a connection in the view, selected and expanded. */
  reveal(view: vscode.TreeView<ExplorerNode>, connection: Connection): Promise<void> {
    const id = connectionId(connection.name);
    const node = this.index.get(id) ?? this.index.node({ kind: 'connection', id, connection, needsCredentials: false });
    return this.revealShown(view, node, true);
  }

  /**
   * Reveals a node, selected, also in a hidden view. A hidden view is not redrawn when the
   * connections change, and revealing a node it has not drawn yet does nothing: so a first
   * reveal opens the view, a redraw lists the connections again, and the reveal after it
   * waits for that redraw.
   */
  private async revealShown(view: vscode.TreeView<ExplorerNode>, node: ExplorerNode, expand: boolean): Promise<void> {
    if (!view.visible) {
      await view.reveal(node, { select: false, focus: false, expand: false });
      this.changed.fire(undefined);
    }
    await view.reveal(node, { select: true, focus: true, expand });
  }

  getTreeItem(node: ExplorerNode): vscode.TreeItem {
    const now = this.clock.now();
    const item = renderNode(node, now);
    const mark = this.markOf(node, now);
    return toTreeItem(mark ? markSyncedTable(item, mark) : item);
  }

  /**
   * Fills the tooltips of namespaces and tables when hovered (VS Code asks for tooltips left
   * out of the item, once per drawing), so the age of a list or schema is told as of the hover,
   * not as of when the item was drawn.
   */
  resolveTreeItem(item: vscode.TreeItem, node: ExplorerNode): vscode.TreeItem {
    const now = this.clock.now();
    if (node.kind === 'namespace' || node.kind === 'table') item.tooltip = toTooltip(hoverTooltip(node, now, this.markOf(node, now)));
    else item.tooltip ??= toTooltip(renderNode(node, now).tooltip);
    return item;
  }

  /**
   * Follows the view's expansions. VS Code keeps the children it drew, so expanding a node
   * again asks nothing: a namespace or table whose list or schema has grown older than 4
   * hours is read again there (the old copy shows meanwhile) and redrawn when it is read.
   */
  followExpansion(view: Pick<vscode.TreeView<ExplorerNode>, 'onDidExpandElement'>): vscode.Disposable {
    return view.onDidExpandElement(({ element }) => {
      if (element.kind === 'namespace' || element.kind === 'table') this.loader.readAgainIfStale(element, true);
    });
  }

  getParent(node: ExplorerNode): ExplorerNode | undefined {
    return this.index.parentOf(node);
  }

  async getChildren(node?: ExplorerNode): Promise<ExplorerNode[]> {
    return this.loader.children(node);
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.tables.clear();
    this.loader.stopSchemaReads();
    this.changed.dispose();
  }

  /** A schema kept (whoever read it) redraws its table with the version now kept. */
  private schemaChanged(change: SchemaChange): void {
    if (change.what === 'saved' && change.namespace !== undefined && change.table !== undefined) this.redrawTable(change.connection, change.namespace, change.table);
  }

  private redrawTable(connection: string, namespace: string, table: string): void {
    const node = this.index.get(tableId(connection, namespace, table));
    if (node?.kind !== 'table') return;
    node.schema = this.loader.schemaInfo(this.schemas.heldSchema(node.connection, namespace, table));
    this.changed.fire(node);
  }

  private markOf(node: ExplorerNode, now: number): SyncedTableMark | undefined {
    return node.kind === 'table' ? this.marks?.markOf(node.connection.name, node.namespace, node.table, now) : undefined;
  }
}

function toTreeItem(view: ItemView): vscode.TreeItem {
  const item = new vscode.TreeItem(view.label, view.collapsible === 'collapsed' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.id = view.id;
  if (view.description !== undefined) item.description = view.description;
  if (view.tooltip !== undefined) item.tooltip = toTooltip(view.tooltip);
  item.iconPath = new vscode.ThemeIcon(view.icon.id, view.icon.color === undefined ? undefined : new vscode.ThemeColor(view.icon.color));
  item.contextValue = view.contextValue;
  if (view.command) item.command = view.command;
  return item;
}

function toTooltip(tooltip: ItemTooltip): string | vscode.MarkdownString;
function toTooltip(tooltip: ItemTooltip | undefined): string | vscode.MarkdownString | undefined;
function toTooltip(tooltip: ItemTooltip | undefined): string | vscode.MarkdownString | undefined {
  return typeof tooltip === 'object' ? new vscode.MarkdownString(tooltip.markdown) : tooltip;
}
