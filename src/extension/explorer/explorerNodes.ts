// The explorer tree's nodes: connection -> namespace -> table, plus message nodes for
// errors (with a way forward) and empty lists. Plain data; the provider renders them.

import type { Connection } from '../connections/connectionConfig';

export interface ConnectionNode {
  kind: 'connection';
  id: string;
  connection: Connection;
}

export interface NamespaceNode {
  kind: 'namespace';
  id: string;
  connection: Connection;
  namespace: string;
}

export interface TableNode {
  kind: 'table';
  id: string;
  connection: Connection;
  namespace: string;
  table: string;
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

export type ExplorerNode = ConnectionNode | NamespaceNode | TableNode | ErrorNode | EmptyNode;
