// The Explorer view: connections from settings, their namespaces, each namespace's tables
// and each table's columns (read lazily on expand and kept in the extension's storage; a copy
// older than 4 hours is shown while it is read again). Failures become error nodes that say
// what went wrong and offer the next step; a listing that waits for the rate limit shows a
// node saying so, counting down, instead of a bare spinner. Tables carry the marks of a marks
// source when one is given (the sync's).

import * as vscode from 'vscode';
import { DqError, isCancelled, isDqError } from '../../client/errors';
import { systemClock, type Clock } from '../../core/clock';
import type { Logger } from '../../core/logger';
import type { SchemaEnvelope } from '../../core/contract';
import type { Cached } from '../../core/schemaCache';
import { childrenOf, columnsOf, type Column } from '../../core/schema';
import type { Connection } from '../connections/connectionConfig';
import type { ClientPool } from '../connections/clientPool';
import type { ConnectionStore } from '../connections/connectionStore';
import { hoverTooltip, markSyncedTable, SET_CREDENTIALS_COMMAND, treeItem, type SyncedTableMark } from './explorerItems';
import type { ColumnNode, ConnectionNode, ExplorerNode, NamespaceNode, NodeAction, SchemaInfo, TableNode } from './explorerNodes';
import type { SchemaReader } from './schemaReader';
import { TableListCache, type TableLoader } from './tableListCache';
import type { TableMarks } from './tableMarks';

export const REFRESH_COMMAND = 'dataQuery.refresh';

/** Opens the settings file at the connections, where a name, an address or an opt-in is fixed. */
const OPEN_CONNECTION_SETTINGS: NodeAction = {
  title: 'Open Settings',
  command: 'workbench.action.openSettingsJson',
  arguments: [{ revealSetting: { key: 'dataQuery.connections' } }],
};

export class ExplorerTreeProvider implements vscode.TreeDataProvider<ExplorerNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ExplorerNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly tables: TableListCache;
  /** nodes by id, so that a refresh of one node reaches the object VS Code holds */
  private readonly nodes = new Map<string, ExplorerNode>();
  private readonly parents = new Map<string, ExplorerNode>();
  /** reads of stale copies under way, by the id of the node they redraw */
  private readonly rereads = new Map<string, Promise<void>>();
  /** first reads of tables' schemas under way, by table node id; a refresh over one stops it */
  private readonly schemaReads = new Map<string, { stop: AbortController; read: Promise<Cached<SchemaEnvelope>> }>();
  private readonly marksSubscription?: { dispose(): void };

  constructor(
    private readonly store: ConnectionStore,
    private readonly pool: ClientPool,
    private readonly logger: Logger,
    readonly schemas: SchemaReader,
    private readonly clock: Clock = systemClock,
    private readonly marks?: TableMarks,
  ) {
    this.tables = new TableListCache((connection, namespace) => {
      const node = this.nodes.get(namespaceId(connection, namespace));
      if (node) this.changed.fire(node);
    }, clock);
    this.marksSubscription = marks?.onDidChangeMarks((tables) => {
      for (const connection of this.store.list()) {
        for (const t of tables) this.schemaChanged(connection.name, t.namespace, t.table);
      }
    });
  }

  /**
   * Reads `node` again: a connection's namespaces, tables and schemas, a namespace's table
   * list, a table's schema (a column's table); without a node, everything.
   */
  async refresh(node?: ExplorerNode): Promise<void> {
    if (!node || node.kind === 'error' || node.kind === 'empty' || node.kind === 'waiting') {
      this.stopSchemaReads();
      this.tables.clear();
      await Promise.all(this.store.read().connections.map((c) => this.schemas.cache.forget(this.schemas.keyOf(c))));
      this.nodes.clear();
      this.parents.clear();
      this.changed.fire(undefined);
      return;
    }
    const cache = this.schemas.cache;
    const name = node.connection.name;
    const key = this.schemas.keyOf(node.connection);
    // a read still under way (a silent service holds it for minutes) starts over
    this.stopSchemaReads(node.kind === 'column' ? tableId(node.connection.name, node.namespace, node.table) : node.id);
    if (node.kind === 'connection') {
      this.tables.clear(name);
      await cache.forget(key);
    } else if (node.kind === 'namespace') {
      this.tables.clear(name, node.namespace);
      await cache.forget(key, node.namespace);
    } else {
      await cache.forget(key, node.namespace, node.table);
    }
    this.changed.fire(node.kind === 'column' ? this.tableOf(node) : node);
  }

  /**
   * After a settings change: forgets the listings under way of the named connections, keeps
   * the rest. Kept lists and schemas belong to a connection's service and account, so a
   * connection pointed elsewhere finds none of the old ones.
   */
  connectionsChanged(touched: string[]): void {
    for (const name of touched) {
      this.tables.clear(name);
      this.stopSchemaReads(connectionId(name));
    }
    this.changed.fire(undefined);
  }

  /** Redraws a table whose schema was read again elsewhere, with the version now kept. */
  schemaChanged(connection: string, namespace: string, table: string): void {
    const node = this.nodes.get(tableId(connection, namespace, table));
    if (node?.kind !== 'table') return;
    node.schema = this.schemaInfo(this.schemas.cache.schema(this.schemas.keyOf(node.connection), namespace, table));
    this.changed.fire(node);
  }

  /** Shows a column in the view, selected, with its table expanded. */
  revealColumn(view: vscode.TreeView<ExplorerNode>, connection: Connection, namespace: string, table: string, column: Column): Promise<void> {
    const id = connectionId(connection.name);
    const connectionNode = this.nodes.get(id) ?? this.node<ConnectionNode>({ kind: 'connection', id, connection, needsCredentials: false });
    const namespaceNode = this.child(connectionNode, { kind: 'namespace', id: namespaceId(connection.name, namespace), connection, namespace });
    let parent: TableNode | ColumnNode = this.child(namespaceNode, { kind: 'table', id: tableId(connection.name, namespace, table), connection, namespace, table });
    const path = column.name.split('.');
    for (let i = 1; i < path.length; i++) {
      const member = { ...column, name: path.slice(0, i).join('.'), parent: i > 1 ? path.slice(0, i - 1).join('.') : undefined };
      parent = this.columnNode(parent, member, true);
    }
    return this.revealShown(view, this.columnNode(parent, column, false), false);
  }

  /** Shows a connection in the view, selected and expanded. */
  reveal(view: vscode.TreeView<ExplorerNode>, connection: Connection): Promise<void> {
    const id = connectionId(connection.name);
    const node = this.nodes.get(id) ?? this.node({ kind: 'connection', id, connection, needsCredentials: false });
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
    const item = treeItem(node, now);
    const mark = this.markOf(node, now);
    return mark ? markSyncedTable(item, mark) : item;
  }

  /**
   * Fills the tooltips of namespaces and tables when hovered (VS Code asks for tooltips left
   * out of the item, once per drawing), so the age of a list or schema is told as of the hover,
   * not as of when the item was drawn.
   */
  resolveTreeItem(item: vscode.TreeItem, node: ExplorerNode): vscode.TreeItem {
    const now = this.clock.now();
    if (node.kind === 'namespace' || node.kind === 'table') item.tooltip = hoverTooltip(node, now, this.markOf(node, now));
    else item.tooltip ??= treeItem(node, now).tooltip;
    return item;
  }

  /**
   * Follows the view's expansions. VS Code keeps the children it drew, so expanding a node
   * again asks nothing: a namespace or table whose list or schema has grown older than 4
   * hours is read again there (the old copy shows meanwhile) and redrawn when it is read.
   */
  followExpansion(view: Pick<vscode.TreeView<ExplorerNode>, 'onDidExpandElement'>): vscode.Disposable {
    return view.onDidExpandElement(({ element }) => {
      if (element.kind === 'namespace' || element.kind === 'table') this.readAgainIfStale(element, true);
    });
  }

  getParent(node: ExplorerNode): ExplorerNode | undefined {
    return this.parents.get(node.id);
  }

  async getChildren(node?: ExplorerNode): Promise<ExplorerNode[]> {
    if (!node) return this.roots();
    if (node.kind === 'connection') return this.namespaces(node);
    if (node.kind === 'namespace') return this.tableNodes(node);
    if (node.kind === 'table') return this.columnNodes(node);
    if (node.kind === 'column') return this.memberNodes(node);
    return [];
  }

  dispose(): void {
    this.marksSubscription?.dispose();
    this.tables.clear();
    this.stopSchemaReads();
    this.changed.dispose();
  }

  private async roots(): Promise<ExplorerNode[]> {
    const { connections, problems } = this.store.read();
    const nodes: ExplorerNode[] = await Promise.all(
      connections.map(async (connection) => {
        const stored = connection.kind === 'remote' ? await this.store.credentialsState(connection) : undefined;
        return this.node({
          kind: 'connection',
          id: connectionId(connection.name),
          connection,
          needsCredentials: stored !== undefined && stored.state !== 'bound',
          credentialsSavedFor: stored?.state === 'elsewhere' ? stored.savedFor : undefined,
        });
      }),
    );
    problems.forEach((problem, i) => {
      nodes.push(
        this.node({
          kind: 'error',
          id: `problem/${i}`,
          message: problem,
          detail: problem,
          action: OPEN_CONNECTION_SETTINGS,
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
    const held = this.schemas.cache.tables(this.schemas.keyOf(connection), namespace);
    if (held) {
      this.readAgainIfStale(parent, false);
      return this.tableChildren(parent, held);
    }
    // a listing that failed stays until a retry clears it: a redraw shows its error, it does not list again
    this.tables.forgetSettled(connection.name, namespace);
    const listing = this.tables.get(connection.name, namespace, (call) => this.listTables(connection, namespace, call));
    await listing.ready;
    if (listing.waiting) return [this.child(parent, { kind: 'waiting', id: `${parent.id}/waiting`, ...listing.waiting })];
    try {
      await listing.tables;
    } catch (err) {
      // cancelled by a refresh or a settings change, which also redraws this node
      if (isCancelled(err)) return [];
      return [this.errorNode(`${parent.id}/error`, connection, parent, err)];
    }
    const read = this.schemas.cache.tables(this.schemas.keyOf(connection), namespace);
    return read ? this.tableChildren(parent, read) : [];
  }

  private tableChildren(parent: NamespaceNode, listing: Cached<string[]>): ExplorerNode[] {
    const { connection, namespace } = parent;
    parent.listedAt = listing.readAt;
    if (listing.value.length === 0) {
      return [this.child(parent, { kind: 'empty', id: `${parent.id}/empty`, message: 'No tables in this namespace.' })];
    }
    return [...listing.value]
      .sort((a, b) => a.localeCompare(b))
      .map((table) =>
        this.child(parent, {
          kind: 'table',
          id: tableId(connection.name, namespace, table),
          connection,
          namespace,
          table,
          schema: this.schemaInfo(this.schemas.cache.schema(this.schemas.keyOf(connection), namespace, table)),
        }),
      );
  }

  private async columnNodes(parent: TableNode): Promise<ExplorerNode[]> {
    const { connection, namespace, table } = parent;
    const cache = this.schemas.cache;
    let held = cache.schema(this.schemas.keyOf(connection), namespace, table);
    if (held) {
      this.readAgainIfStale(parent, false);
    } else {
      try {
        held = await this.readSchema(parent);
      } catch (err) {
        // stopped by a refresh or a settings change, which also redraws this node
        if (isCancelled(err)) return [];
        return [this.errorNode(`${parent.id}/error`, connection, parent, err)];
      }
    }
    this.describeSchema(parent, held);
    let columns: Column[];
    try {
      columns = columnsOf(held.value, `${namespace}.${table}`);
    } catch (err) {
      return [this.errorNode(`${parent.id}/error`, connection, parent, err)];
    }
    const top = [...childrenOf(columns, 'key'), ...childrenOf(columns, 'value')];
    if (top.length === 0) return [this.child(parent, { kind: 'empty', id: `${parent.id}/empty`, message: 'No columns could be read from this schema.' })];
    const nested = new Set(columns.map((c) => `${c.part}/${c.parent}`));
    return top.map((c) => this.columnNode(parent, c, nested.has(`${c.part}/${c.name}`)));
  }

  private memberNodes(parent: ColumnNode): ExplorerNode[] {
    const held = this.schemas.cache.schema(this.schemas.keyOf(parent.connection), parent.namespace, parent.table);
    if (!held) return [];
    const columns = columnsOf(held.value, `${parent.namespace}.${parent.table}`);
    const nested = new Set(columns.map((c) => `${c.part}/${c.parent}`));
    return childrenOf(columns, parent.column.part, parent.column.name).map((c) => this.columnNode(parent, c, nested.has(`${c.part}/${c.name}`)));
  }

  private columnNode(parent: TableNode | ColumnNode, column: Column, hasMembers: boolean): ColumnNode {
    const { connection, namespace, table } = parent;
    const id = `${tableId(connection.name, namespace, table)}/${column.part}/${column.name}`;
    return this.child(parent, { kind: 'column', id, connection, namespace, table, column, hasMembers });
  }

  private markOf(node: ExplorerNode, now: number): SyncedTableMark | undefined {
    return node.kind === 'table' ? this.marks?.markOf(node.connection.name, node.namespace, node.table, now) : undefined;
  }

  private tableOf(node: ColumnNode): ExplorerNode | undefined {
    return this.nodes.get(tableId(node.connection.name, node.namespace, node.table));
  }

  private schemaInfo(held: Cached<{ version: number }> | undefined): SchemaInfo | undefined {
    return held && { version: held.value.version, readAt: held.readAt, stale: this.schemas.cache.isStale(held) };
  }

  /** Puts what was read on the table node, redrawing it when its description changes. */
  private describeSchema(node: TableNode, held: Cached<{ version: number }>): void {
    const info = this.schemaInfo(held);
    const changed = node.schema?.version !== info?.version || node.schema?.stale !== info?.stale;
    node.schema = info;
    if (changed) this.changed.fire(node);
  }

  /**
   * Starts reading a namespace's table list or a table's schema again when the copy kept is
   * stale (one read at a time); the node is redrawn when it ends. A stale list whose last read
   * failed is read again only when `retryFailed` (an expand), not on every redraw.
   */
  private readAgainIfStale(node: NamespaceNode | TableNode, retryFailed: boolean): void {
    if (this.rereads.has(node.id)) return;
    const { connection, namespace } = node;
    const cache = this.schemas.cache;
    const key = this.schemas.keyOf(connection);
    if (node.kind === 'table') {
      const held = cache.schema(key, namespace, node.table);
      if (held && cache.isStale(held)) this.afterReread(node, this.schemas.schema(connection, namespace, node.table, { priority: 'background', force: true }));
      return;
    }
    const held = cache.tables(key, namespace);
    if (!held || !cache.isStale(held)) return;
    if (this.tables.failed(connection.name, namespace)) {
      if (!retryFailed) return;
      this.tables.clear(connection.name, namespace);
    }
    this.tables.forgetSettled(connection.name, namespace);
    this.afterReread(node, this.tables.get(connection.name, namespace, (call) => this.listTables(connection, namespace, call)).tables);
  }

  /** Redraws `node` when a read of a stale copy ends; the stale copy stays when it fails. */
  private afterReread(node: NamespaceNode | TableNode, read: Promise<unknown>): void {
    if (this.rereads.has(node.id)) return;
    const done = read
      .then(
        () => this.changed.fire(node),
        (err: unknown) => {
          if (isCancelled(err)) return;
          this.logger.warn(`${node.connection.name}: kept the copy read earlier: ${isDqError(err) ? err.describe() : String(err)}`);
        },
      )
      .finally(() => this.rereads.delete(node.id));
    this.rereads.set(node.id, done);
  }

  /** A table's schema for its columns: one read at a time per table, which a refresh can stop. */
  private readSchema(node: TableNode): Promise<Cached<SchemaEnvelope>> {
    const under = this.schemaReads.get(node.id);
    if (under) return under.read;
    const stop = new AbortController();
    const entry = {
      stop,
      read: this.schemas.schema(node.connection, node.namespace, node.table, { signal: stop.signal }).finally(() => {
        if (this.schemaReads.get(node.id) === entry) this.schemaReads.delete(node.id);
      }),
    };
    this.schemaReads.set(node.id, entry);
    return entry.read;
  }

  /** Stops the schema reads under the node with this id (all of them without one). */
  private stopSchemaReads(id?: string): void {
    for (const [tableNodeId, entry] of this.schemaReads) {
      if (id !== undefined && tableNodeId !== id && !tableNodeId.startsWith(`${id}/`)) continue;
      this.schemaReads.delete(tableNodeId);
      entry.stop.abort();
    }
  }

  /** A failure after the listing or its session was stopped is that stop, not a fault of the service. */
  private async listTables(connection: Connection, namespace: string, call: Parameters<TableLoader>[0]): Promise<string[]> {
    const session = await this.pool.session(connection);
    const signal = AbortSignal.any([call.signal, session.signal]);
    try {
      const tables = await session.client.listTables(namespace, { priority: 'user', signal, onQueued: call.onQueued });
      await this.schemas.cache.saveTables(this.schemas.keyOf(connection), namespace, tables);
      return tables;
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
    if (isDqError(err) && err.kind === 'notFound' && parent.kind === 'table') {
      const gone = `${parent.namespace}.${parent.table} no longer exists: refresh ${parent.namespace} to list its tables again.`;
      action = { title: 'Refresh', command: REFRESH_COMMAND, arguments: [this.nodes.get(namespaceId(connection.name, parent.namespace)) ?? parent] };
      return this.child(parent, { kind: 'error', id, message: gone, detail, action });
    }
    // asking again cannot help these: the connection's settings must change
    if (isDqError(err) && err.kind === 'notFound' && parent.kind === 'namespace') {
      const named = err.details?.kind === 'namespace' && err.details.id !== undefined;
      const check = named
        ? `The service has no namespace "${parent.namespace}": check its spelling under "namespaces" in the connection's settings.`
        : `Listing "${parent.namespace}" found nothing: check the namespace, and the connection's baseUrl and dataPrefix, in its settings.`;
      return this.child(parent, { kind: 'error', id, message: check, detail, action: OPEN_CONNECTION_SETTINGS });
    }
    if (isDqError(err) && err.kind === 'insecure') {
      const check = `${message.replace(/\.?$/, '.')} Use https:// in the connection's baseUrl, or set "allowInsecureHttp": true in its settings if you trust the network.`;
      return this.child(parent, { kind: 'error', id, message: check, detail, action: OPEN_CONNECTION_SETTINGS });
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

function tableId(connection: string, namespace: string, table: string): string {
  return `${namespaceId(connection, namespace)}/t/${table}`;
}
