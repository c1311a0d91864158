// The Explorer view: connections from settings, their namespaces, and each namespace's
// tables (listed lazily on expand and cached until refreshed). Failures become error
// nodes that say what went wrong and offer the next step.

import * as vscode from 'vscode';
import { isDqError } from '../../client/errors';
import type { Logger } from '../../core/logger';
import type { Connection } from '../connections/connectionConfig';
import type { ClientPool } from '../connections/clientPool';
import type { ConnectionStore } from '../connections/connectionStore';
import type { ConnectionNode, ExplorerNode, NamespaceNode, NodeAction } from './explorerNodes';
import { TableListCache } from './tableListCache';

export const REFRESH_COMMAND = 'dataQuery.refresh';
export const SET_CREDENTIALS_COMMAND = 'dataQuery.setCredentials';

export class ExplorerTreeProvider implements vscode.TreeDataProvider<ExplorerNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ExplorerNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly tables = new TableListCache();
  /** nodes by id, so that a refresh of one node reaches the object VS Code holds */
  private readonly nodes = new Map<string, ExplorerNode>();

  constructor(
    private readonly store: ConnectionStore,
    private readonly pool: ClientPool,
    private readonly logger: Logger,
  ) {}

  /** Forgets cached lists under `node` (everything when omitted) and redraws it. */
  refresh(node?: ExplorerNode): void {
    if (!node || node.kind === 'error' || node.kind === 'empty') {
      this.tables.clear();
      this.nodes.clear();
      this.changed.fire(undefined);
      return;
    }
    if (node.kind === 'connection') this.tables.clear(node.connection.name);
    if (node.kind === 'namespace') this.tables.clear(node.connection.name, node.namespace);
    this.changed.fire(node.kind === 'table' ? undefined : node);
  }

  getTreeItem(node: ExplorerNode): vscode.TreeItem {
    switch (node.kind) {
      case 'connection': {
        const c = node.connection;
        const item = new vscode.TreeItem(c.name, vscode.TreeItemCollapsibleState.Collapsed);
        item.description = c.kind === 'sample' ? 'sample data' : safeHost(c.baseUrl);
        item.tooltip = new vscode.MarkdownString(
          c.kind === 'sample'
            ? `**${c.name}**\n\nA local emulator with generated sample data, running inside VS Code.`
            : `**${c.name}**\n\n${c.baseUrl}/${c.dataPrefix}${c.scope ? `\n\nscope: ${c.scope}` : ''}`,
        );
        item.iconPath = new vscode.ThemeIcon(c.kind === 'sample' ? 'beaker' : 'plug');
        item.contextValue = `dataQuery.connection.${c.kind}`;
        item.id = node.id;
        return item;
      }
      case 'namespace': {
        const item = new vscode.TreeItem(node.namespace, vscode.TreeItemCollapsibleState.Collapsed);
        item.iconPath = new vscode.ThemeIcon('symbol-namespace');
        item.contextValue = 'dataQuery.namespace';
        item.id = node.id;
        return item;
      }
      case 'table': {
        const item = new vscode.TreeItem(node.table, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('table');
        item.contextValue = 'dataQuery.table';
        item.tooltip = `${node.namespace}.${node.table}`;
        item.id = node.id;
        return item;
      }
      case 'error': {
        const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None);
        item.description = node.action.title;
        item.tooltip = `${node.detail}\n\nClick: ${node.action.title}`;
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
        item.contextValue = 'dataQuery.error';
        item.command = { title: node.action.title, command: node.action.command, arguments: node.action.arguments };
        item.id = node.id;
        return item;
      }
      case 'empty': {
        const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('info');
        item.contextValue = 'dataQuery.empty';
        item.id = node.id;
        return item;
      }
    }
  }

  async getChildren(node?: ExplorerNode): Promise<ExplorerNode[]> {
    if (!node) return this.roots();
    if (node.kind === 'connection') return this.namespaces(node);
    if (node.kind === 'namespace') return this.tableNodes(node);
    return [];
  }

  dispose(): void {
    this.changed.dispose();
  }

  private roots(): ExplorerNode[] {
    const { connections, problems } = this.store.read();
    const nodes: ExplorerNode[] = connections.map((connection) =>
      this.node({ kind: 'connection', id: `c/${connection.name}`, connection }),
    );
    problems.forEach((problem, i) => {
      nodes.push(
        this.node({
          kind: 'error',
          id: `problem/${i}`,
          message: problem,
          detail: problem,
          action: { title: 'Open Settings', command: 'workbench.action.openSettingsJson', arguments: [] },
        }),
      );
    });
    return nodes;
  }

  private async namespaces(parent: ConnectionNode): Promise<ExplorerNode[]> {
    const connection = parent.connection;
    try {
      const { namespaces } = await this.pool.session(connection);
      if (namespaces.length === 0) {
        return [this.node({ kind: 'empty', id: `${parent.id}/empty`, message: 'No namespaces configured: add some under "namespaces" in dataQuery.connections.' })];
      }
      return namespaces.map((namespace) => this.node({ kind: 'namespace', id: `${parent.id}/n/${namespace}`, connection, namespace }));
    } catch (err) {
      return [this.errorNode(`${parent.id}/error`, connection, parent, err)];
    }
  }

  private async tableNodes(parent: NamespaceNode): Promise<ExplorerNode[]> {
    const { connection, namespace } = parent;
    try {
      const tables = await this.tables.get(connection.name, namespace, async () => {
        const { client } = await this.pool.session(connection);
        return client.listTables(namespace, { priority: 'user' });
      });
      if (tables.length === 0) {
        return [this.node({ kind: 'empty', id: `${parent.id}/empty`, message: 'No tables in this namespace.' })];
      }
      return [...tables]
        .sort((a, b) => a.localeCompare(b))
        .map((table) => this.node({ kind: 'table', id: `${parent.id}/t/${table}`, connection, namespace, table }));
    } catch (err) {
      return [this.errorNode(`${parent.id}/error`, connection, parent, err)];
    }
  }

  private errorNode(id: string, connection: Connection, parent: ExplorerNode, err: unknown): ExplorerNode {
    const message = isDqError(err) ? err.message : err instanceof Error ? err.message : String(err);
    const detail = isDqError(err) ? err.describe() : message;
    this.logger.warn(`${connection.name}: ${detail}`);
    const connectionNode = this.nodes.get(`c/${connection.name}`);
    let action: NodeAction = { title: 'Retry', command: REFRESH_COMMAND, arguments: [parent] };
    if (isDqError(err) && err.kind === 'auth' && connection.kind === 'remote') {
      action = { title: 'Set Credentials', command: SET_CREDENTIALS_COMMAND, arguments: [connectionNode ?? parent] };
    }
    return this.node({ kind: 'error', id, message, detail, action });
  }

  private node<T extends ExplorerNode>(fresh: T): T {
    const known = this.nodes.get(fresh.id);
    if (known && known.kind === fresh.kind) {
      Object.assign(known, fresh);
      return known as T;
    }
    this.nodes.set(fresh.id, fresh);
    return fresh;
  }
}

function safeHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}
