// The explorer tree's nodes: connection -> namespace -> table -> column (-> member column),
// plus message nodes for errors (with a way forward), empty lists and waits for the rate
// limit, and the ids that name them. Plain data: the loader makes them, the renderer draws them.

import type { Column } from '../../core/schema';
import type { Connection } from '../connections/connectionConfig';
import type { LimiterWait } from './tableListCache';

export interface ConnectionNode {
  kind: 'connection';
  id: string;
  connection: Connection;
  /** a remote connection without stored credentials: the node offers Set Credentials */
  needsCredentials: boolean;
  /** with needsCredentials: the base URL its stored credentials were saved for, when not this one */
  credentialsSavedFor?: string;
}

export interface NamespaceNode {
  kind: 'namespace';
  id: string;
  connection: Connection;
  namespace: string;
  /** when the table list shown was read (ms epoch), once it is known */
  listedAt?: number;
}

/** What the tree knows of a table's schema, once read. */
export interface SchemaInfo {
  version: number;
  /** ms since the epoch */
  readAt: number;
  stale: boolean;
}

export interface TableNode {
  kind: 'table';
  id: string;
  connection: Connection;
  namespace: string;
  table: string;
  schema?: SchemaInfo;
}

export interface ColumnNode {
  kind: 'column';
  id: string;
  connection: Connection;
  namespace: string;
  table: string;
  column: Column;
  /** a nested object whose members expand under it */
  hasMembers: boolean;
}

/** A next step offered on an error node: a command and the arguments to run it with. */
export interface NodeAction {
  title: string;
  command: string;
  arguments: unknown[];
}

export interface ErrorNode {
  kind: 'error';
  id: string;
  message: string;
  /** longer text for the tooltip (kind, HTTP status, uuid for support) */
  detail: string;
  action: NodeAction;
}

export interface EmptyNode {
  kind: 'empty';
  id: string;
  message: string;
}

/** A listing held back by the client's rate limiter: why, and when it will likely start. */
export interface WaitingNode {
  kind: 'waiting';
  id: string;
  reason: LimiterWait['reason'];
  /** ms since the epoch */
  until: number;
}

export type ExplorerNode = ConnectionNode | NamespaceNode | TableNode | ColumnNode | ErrorNode | EmptyNode | WaitingNode;

/** The ids of the nodes that stand for a connection, a namespace and a table. */
export function connectionId(name: string): string {
  return `c/${name}`;
}

export function namespaceId(connection: string, namespace: string): string {
  return `${connectionId(connection)}/n/${namespace}`;
}

export function tableId(connection: string, namespace: string, table: string): string {
  return `${namespaceId(connection, namespace)}/t/${table}`;
}
