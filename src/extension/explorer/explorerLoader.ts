// Reads what the Explorer shows: connections from settings, their namespaces, each namespace's
// tables and each table's columns, through the SchemaModel (a copy older than 4 hours is shown
// while it is read again). Failures become error nodes that say what went wrong and offer the
// next step; empty lists become nodes that say so; a listing that waits for the rate limit
// becomes a node saying why and until when. No `vscode` import: the provider draws the nodes
// and is told through `redraw` when one changes.

import { DqError, isCancelled, isDqError } from '../../client/errors';
import type { Logger } from '../../core/logger';
import type { SchemaEnvelope } from '../../core/contract';
import type { Cached } from '../../core/schemaCache';
import { childrenOf, columnsOf, type Column } from '../../core/schema';
import type { Connection } from '../connections/connectionConfig';
import type { ClientPool } from '../connections/clientPool';
import type { ConnectionStore } from '../connections/connectionStore';
import type { SchemaModel } from '../schema/schemaModel';
import type { ExplorerNodeIndex } from './explorerNodeIndex';
import {
  connectionId,
  namespaceId,
  tableId,
  type ColumnNode,
  type ConnectionNode,
  type ExplorerNode,
  type NamespaceNode,
  type NodeAction,
  type SchemaInfo,
  type TableNode,
} from './explorerNodes';
import type { TableListCache, TableLoader } from './tableListCache';
import { describeFailure, OPEN_CONNECTION_SETTINGS, type CommandAction, type FailureSubject } from '../ui/describeFailure';
import { Commands } from '../ui/ids';

export const REFRESH_COMMAND = Commands.refresh;

export interface ExplorerLoaderDeps {
  store: Pick<ConnectionStore, 'read' | 'credentialsState'>;
  pool: Pick<ClientPool, 'session'>;
  schemas: SchemaModel;
  logger: Logger;
  /** the nodes made so far, kept by the provider */
  index: ExplorerNodeIndex;
  /** table listings under way or failed, kept by the provider */
  tables: TableListCache;
  /** asks the view to draw a node (everything without one) again */
  redraw(node?: ExplorerNode): void;
}

export class ExplorerLoader {
  /** reads of stale copies under way, by the id of the node they redraw */
  private readonly rereads = new Map<string, Promise<void>>();
  /** first reads of tables' schemas under way, by table node id; a refresh over one stops it */
  private readonly schemaReads = new Map<string, { stop: AbortController; read: Promise<Cached<SchemaEnvelope>> }>();

  constructor(private readonly deps: ExplorerLoaderDeps) {}

  children(node?: ExplorerNode): Promise<ExplorerNode[]> | ExplorerNode[] {
    if (!node) return this.roots();
    if (node.kind === 'connection') return this.namespaces(node);
    if (node.kind === 'namespace') return this.tableNodes(node);
    if (node.kind === 'table') return this.columnNodes(node);
    if (node.kind === 'column') return this.memberNodes(node);
    return [];
  }

  /** A column's node under its table or parent column (revealing a column makes its path). */
  columnNode(parent: TableNode | ColumnNode, column: Column, hasMembers: boolean): ColumnNode {
    const { connection, namespace, table } = parent;
    const id = `${tableId(connection.name, namespace, table)}/${column.part}/${column.name}`;
    return this.deps.index.child(parent, { kind: 'column', id, connection, namespace, table, column, hasMembers });
  }

  /** What the tree shows of a kept schema: its version, age and whether it is stale. */
  schemaInfo(held: Cached<{ version: number }> | undefined): SchemaInfo | undefined {
    return held && { version: held.value.version, readAt: held.readAt, stale: this.deps.schemas.isStale(held) };
  }

  /**
   * Starts reading a namespace's table list or a table's schema again when the copy kept is
   * stale (one read at a time); the node is redrawn when it ends. A stale list whose last read
   * failed is read again only when `retryFailed` (an expand), not on every redraw.
   */
  readAgainIfStale(node: NamespaceNode | TableNode, retryFailed: boolean): void {
    if (this.rereads.has(node.id)) return;
    const { connection, namespace } = node;
    const { schemas, tables } = this.deps;
    if (node.kind === 'table') {
      const held = schemas.heldSchema(connection, namespace, node.table);
      if (held && schemas.isStale(held)) this.afterReread(node, schemas.schema(connection, namespace, node.table, { priority: 'background', force: true }));
      return;
    }
    const held = schemas.heldTables(connection, namespace);
    if (!held || !schemas.isStale(held)) return;
    if (tables.failed(connection.name, namespace)) {
      if (!retryFailed) return;
      tables.clear(connection.name, namespace);
    }
    tables.forgetSettled(connection.name, namespace);
    this.afterReread(node, tables.get(connection.name, namespace, (call) => this.listTables(connection, namespace, call)).tables);
  }

  /** Stops the schema reads under the node with this id (all of them without one). */
  stopSchemaReads(id?: string): void {
    for (const [tableNodeId, entry] of this.schemaReads) {
      if (id !== undefined && tableNodeId !== id && !tableNodeId.startsWith(`${id}/`)) continue;
      this.schemaReads.delete(tableNodeId);
      entry.stop.abort();
    }
  }

  private async roots(): Promise<ExplorerNode[]> {
    const { store, index } = this.deps;
    const { connections, problems } = store.read();
    const nodes: ExplorerNode[] = await Promise.all(
      connections.map(async (connection) => {
        const stored = connection.kind === 'remote' ? await store.credentialsState(connection) : undefined;
        return index.node({
          kind: 'connection',
          id: connectionId(connection.name),
          connection,
          needsCredentials: stored !== undefined && stored.state !== 'bound',
          credentialsSavedFor: stored?.state === 'elsewhere' ? stored.savedFor : undefined,
        });
      }),
    );
    problems.forEach((problem, i) => {
      nodes.push(index.node({ kind: 'error', id: `problem/${i}`, message: problem, detail: problem, action: OPEN_CONNECTION_SETTINGS }));
    });
    return nodes;
  }

  private async namespaces(parent: ConnectionNode): Promise<ExplorerNode[]> {
    const connection = parent.connection;
    const { index } = this.deps;
    try {
      const { namespaces } = await this.deps.pool.session(connection);
      if (namespaces.length === 0) {
        return [index.child(parent, { kind: 'empty', id: `${parent.id}/empty`, message: 'No namespaces configured: add some under "namespaces" in dataQuery.connections.' })];
      }
      return namespaces.map((namespace) => index.child(parent, { kind: 'namespace', id: namespaceId(connection.name, namespace), connection, namespace }));
    } catch (err) {
      return [this.errorNode(`${parent.id}/error`, connection, parent, err)];
    }
  }

  private async tableNodes(parent: NamespaceNode): Promise<ExplorerNode[]> {
    const { connection, namespace } = parent;
    const { schemas, tables } = this.deps;
    const held = schemas.heldTables(connection, namespace);
    if (held) {
      this.readAgainIfStale(parent, false);
      return this.tableChildren(parent, held);
    }
    // a listing that failed stays until a retry clears it: a redraw shows its error, it does not list again
    tables.forgetSettled(connection.name, namespace);
    const listing = tables.get(connection.name, namespace, (call) => this.listTables(connection, namespace, call));
    await listing.ready;
    if (listing.waiting) return [this.deps.index.child(parent, { kind: 'waiting', id: `${parent.id}/waiting`, ...listing.waiting })];
    try {
      await listing.tables;
    } catch (err) {
      // cancelled by a refresh or a settings change, which also redraws this node
      if (isCancelled(err)) return [];
      return [this.errorNode(`${parent.id}/error`, connection, parent, err)];
    }
    const read = schemas.heldTables(connection, namespace);
    return read ? this.tableChildren(parent, read) : [];
  }

  private tableChildren(parent: NamespaceNode, listing: Cached<string[]>): ExplorerNode[] {
    const { connection, namespace } = parent;
    const { index, schemas } = this.deps;
    parent.listedAt = listing.readAt;
    if (listing.value.length === 0) {
      return [index.child(parent, { kind: 'empty', id: `${parent.id}/empty`, message: 'No tables in this namespace.' })];
    }
    return [...listing.value]
      .sort((a, b) => a.localeCompare(b))
      .map((table) =>
        index.child(parent, {
          kind: 'table',
          id: tableId(connection.name, namespace, table),
          connection,
          namespace,
          table,
          schema: this.schemaInfo(schemas.heldSchema(connection, namespace, table)),
        }),
      );
  }

  private async columnNodes(parent: TableNode): Promise<ExplorerNode[]> {
    const { connection, namespace, table } = parent;
    let held = this.deps.schemas.heldSchema(connection, namespace, table);
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
    if (top.length === 0) return [this.deps.index.child(parent, { kind: 'empty', id: `${parent.id}/empty`, message: 'No columns could be read from this schema.' })];
    const nested = new Set(columns.map((c) => `${c.part}/${c.parent}`));
    return top.map((c) => this.columnNode(parent, c, nested.has(`${c.part}/${c.name}`)));
  }

  private memberNodes(parent: ColumnNode): ExplorerNode[] {
    const held = this.deps.schemas.heldSchema(parent.connection, parent.namespace, parent.table);
    if (!held) return [];
    const columns = columnsOf(held.value, `${parent.namespace}.${parent.table}`);
    const nested = new Set(columns.map((c) => `${c.part}/${c.parent}`));
    return childrenOf(columns, parent.column.part, parent.column.name).map((c) => this.columnNode(parent, c, nested.has(`${c.part}/${c.name}`)));
  }

  /** Puts what was read on the table node, redrawing it when its description changes. */
  private describeSchema(node: TableNode, held: Cached<{ version: number }>): void {
    const info = this.schemaInfo(held);
    const changed = node.schema?.version !== info?.version || node.schema?.stale !== info?.stale;
    node.schema = info;
    if (changed) this.deps.redraw(node);
  }

  /** Redraws `node` when a read of a stale copy ends; the stale copy stays when it fails. */
  private afterReread(node: NamespaceNode | TableNode, read: Promise<unknown>): void {
    if (this.rereads.has(node.id)) return;
    const done = read
      .then(
        () => this.deps.redraw(node),
        (err: unknown) => {
          if (isCancelled(err)) return;
          this.deps.logger.warn(`${node.connection.name}: kept the copy read earlier: ${isDqError(err) ? err.describe() : String(err)}`);
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
      read: this.deps.schemas.schema(node.connection, node.namespace, node.table, { signal: stop.signal }).finally(() => {
        if (this.schemaReads.get(node.id) === entry) this.schemaReads.delete(node.id);
      }),
    };
    this.schemaReads.set(node.id, entry);
    return entry.read;
  }

  /** A failure after the listing or its session was stopped is that stop, not a fault of the service. */
  private async listTables(connection: Connection, namespace: string, call: Parameters<TableLoader>[0]): Promise<string[]> {
    const session = await this.deps.pool.session(connection);
    const signal = AbortSignal.any([call.signal, session.signal]);
    try {
      const tables = await session.client.listTables(namespace, { priority: 'user', signal, onQueued: call.onQueued });
      await this.deps.schemas.saveTables(connection, namespace, tables);
      return tables;
    } catch (err) {
      if (!signal.aborted) throw err;
      throw new DqError('cancelled', `Listing the tables of ${namespace} stopped: the connection was refreshed or its settings changed.`, {
        operation: 'listTables',
      });
    }
  }

  /**
   * A failure under `parent` in describeFailure's words: its sentence, its facts for the tooltip,
   * and as the click its kind's step (Set Credentials, Open Settings) or else the Explorer's own.
   */
  private errorNode(id: string, connection: Connection, parent: ExplorerNode, err: unknown): ExplorerNode {
    const { index } = this.deps;
    const own = this.ownStep(connection, parent, err);
    const failure = describeFailure(err, { about: subjectOf(connection, parent), actions: [own] });
    this.deps.logger.warn(`${connection.name}: ${failure.detail}`);
    // a sample connection has no credentials to set
    const step = failure.actions.find((a): a is CommandAction => 'command' in a && (a.command !== Commands.setCredentials || connection.kind === 'remote')) ?? own;
    const onConnection = index.get(connectionId(connection.name)) ?? parent;
    const action: NodeAction = { title: step.title, command: step.command, arguments: step.arguments ?? [onConnection] };
    return index.child(parent, { kind: 'error', id, message: failure.label, detail: failure.detail, action });
  }

  /** Reading the node again, or for a table that is gone, listing its namespace's tables again. */
  private ownStep(connection: Connection, parent: ExplorerNode, err: unknown): NodeAction {
    if (isDqError(err) && err.kind === 'notFound' && parent.kind === 'table') {
      return { title: 'Refresh', command: REFRESH_COMMAND, arguments: [this.deps.index.get(namespaceId(connection.name, parent.namespace)) ?? parent] };
    }
    return { title: 'Retry', command: REFRESH_COMMAND, arguments: [parent] };
  }
}

/** The connection, namespace and table a node's read was on. */
function subjectOf(connection: Connection, node: ExplorerNode): FailureSubject {
  if (node.kind === 'namespace') return { connection: connection.name, namespace: node.namespace };
  if (node.kind === 'table') return { connection: connection.name, namespace: node.namespace, table: node.table };
  return { connection: connection.name };
}
