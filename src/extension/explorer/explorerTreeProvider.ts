// The Explorer view: connections from settings, their namespaces, and each namespace's
// tables (listed lazily on expand and cached until refreshed). Failures become error
// nodes that say what went wrong and offer the next step; a listing that waits for the
// rate limit shows a node saying so, counting down, instead of a bare spinner.

import * as vscode from 'vscode';
import { DqError, isCancelled, isDqError } from '../../client/errors';
import { systemClock, type Clock } from '../../core/clock';
import type { Logger } from '../../core/logger';
import type { Connection } from '../connections/connectionConfig';
import type { ClientPool } from '../connections/clientPool';
import type { ConnectionStore } from '../connections/connectionStore';
import { SET_CREDENTIALS_COMMAND, treeItem } from './explorerItems';
import type { ConnectionNode, ExplorerNode, NamespaceNode, NodeAction } from './explorerNodes';
import { TableListCache, type TableLoader } from './tableListCache';

export const REFRESH_COMMAND = 'dataQuery.refresh';

export class ExplorerTreeProvider implements vscode.TreeDataProvider<ExplorerNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ExplorerNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly tables: TableListCache;
  /** nodes by id, so that a refresh of one node reaches the object VS Code holds */
  private readonly nodes = new Map<string, ExplorerNode>();
  private readonly parents = new Map<string, ExplorerNode>();

  constructor(
    private readonly store: ConnectionStore,
    private readonly pool: ClientPool,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    this.tables = new TableListCache((connection, namespace) => {
      const node = this.nodes.get(namespaceId(connection, namespace));
      if (node) this.changed.fire(node);
    }, clock);
  }

  /** Forgets cached lists under `node` (everything when omitted) and redraws it. */
  refresh(node?: ExplorerNode): void {
    if (!node || node.kind === 'error' || node.kind === 'empty' || node.kind === 'waiting') {
      this.tables.clear();
      this.nodes.clear();
      this.parents.clear();
      this.changed.fire(undefined);
      return;
    }
    if (node.kind === 'connection') this.tables.clear(node.connection.name);
    if (node.kind === 'namespace') this.tables.clear(node.connection.name, node.namespace);
    this.changed.fire(node.kind === 'table' ? undefined : node);
  }

  /** After a settings change: forgets what it knew of the named connections, keeps the rest. */
  connectionsChanged(touched: string[]): void {
    for (const name of touched) this.tables.clear(name);
    this.changed.fire(undefined);
  }

  /** Shows a connection in the view, selected and expanded. */
  reveal(view: vscode.TreeView<ExplorerNode>, connection: Connection): Thenable<void> {
    const id = connectionId(connection.name);
    const node = this.nodes.get(id) ?? this.node({ kind: 'connection', id, connection, needsCredentials: false });
    return view.reveal(node, { select: true, focus: true, expand: true });
  }

  getTreeItem(node: ExplorerNode): vscode.TreeItem {
    return treeItem(node, this.clock.now());
  }

  getParent(node: ExplorerNode): ExplorerNode | undefined {
    return this.parents.get(node.id);
  }

  async getChildren(node?: ExplorerNode): Promise<ExplorerNode[]> {
    if (!node) return this.roots();
    if (node.kind === 'connection') return this.namespaces(node);
    if (node.kind === 'namespace') return this.tableNodes(node);
    return [];
  }

  dispose(): void {
    this.tables.clear();
    this.changed.dispose();
  }

  private async roots(): Promise<ExplorerNode[]> {
    const { connections, problems } = this.store.read();
    const nodes: ExplorerNode[] = await Promise.all(
      connections.map(async (connection) =>
        this.node({
          kind: 'connection',
          id: connectionId(connection.name),
          connection,
          needsCredentials: connection.kind === 'remote' && !(await this.store.getCredentials(connection.name)),
        }),
      ),
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
        return [this.child(parent, { kind: 'empty', id: `${parent.id}/empty`, message: 'No namespaces configured: add some under "namespaces" in dataQuery.connections.' })];
      }
      return namespaces.map((namespace) =>
        this.child(parent, { kind: 'namespace', id: namespaceId(connection.name, namespace), connection, namespace }),
      );
    } catch (err) {
      return [this.errorNode(`${parent.id}/error`, connection, parent, err)];
    }
  }

  private async tableNodes(parent: NamespaceNode): Promise<ExplorerNode[]> {
    const { connection, namespace } = parent;
    const listing = this.tables.get(connection.name, namespace, (call) => this.listTables(connection, namespace, call));
    await listing.ready;
    if (listing.waiting) return [this.child(parent, { kind: 'waiting', id: `${parent.id}/waiting`, ...listing.waiting })];
    try {
      const tables = await listing.tables;
      if (tables.length === 0) {
        return [this.child(parent, { kind: 'empty', id: `${parent.id}/empty`, message: 'No tables in this namespace.' })];
      }
      return [...tables]
        .sort((a, b) => a.localeCompare(b))
        .map((table) => this.child(parent, { kind: 'table', id: `${parent.id}/t/${table}`, connection, namespace, table }));
    } catch (err) {
      // cancelled by a refresh or a settings change, which also redraws this node
      if (isCancelled(err)) return [];
      return [this.errorNode(`${parent.id}/error`, connection, parent, err)];
    }
  }

  /** A failure after the listing or its session was stopped is that stop, not a fault of the service. */
  private async listTables(connection: Connection, namespace: string, call: Parameters<TableLoader>[0]): Promise<string[]> {
    const session = await this.pool.session(connection);
    const signal = AbortSignal.any([call.signal, session.signal]);
    try {
      return await session.client.listTables(namespace, { priority: 'user', signal, onQueued: call.onQueued });
    } catch (err) {
      if (!signal.aborted) throw err;
      throw new DqError('cancelled', `Listing the tables of ${namespace} stopped: the connection was refreshed or its settings changed.`, {
        operation: 'listTables',
      });
    }
  }

  private errorNode(id: string, connection: Connection, parent: ExplorerNode, err: unknown): ExplorerNode {
    const message = isDqError(err) ? err.message : err instanceof Error ? err.message : String(err);
    const detail = isDqError(err) ? err.describe() : message;
    this.logger.warn(`${connection.name}: ${detail}`);
    const connectionNode = this.nodes.get(connectionId(connection.name));
    let action: NodeAction = { title: 'Retry', command: REFRESH_COMMAND, arguments: [parent] };
    if (isDqError(err) && err.kind === 'auth' && connection.kind === 'remote') {
      action = { title: 'Set Credentials', command: SET_CREDENTIALS_COMMAND, arguments: [connectionNode ?? parent] };
    }
    return this.child(parent, { kind: 'error', id, message, detail, action });
  }

  private child<T extends ExplorerNode>(parent: ExplorerNode, fresh: T): T {
    const node = this.node(fresh);
    this.parents.set(node.id, parent);
    return node;
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

function connectionId(name: string): string {
  return `c/${name}`;
}

function namespaceId(connection: string, namespace: string): string {
  return `${connectionId(connection)}/n/${namespace}`;
}
