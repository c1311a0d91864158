// How each explorer node looks: label, description, icon, tooltip, context value and click
// command. Pure apart from building VS Code's TreeItem objects; the provider supplies the time.

import * as vscode from 'vscode';
import { missingCredentials } from '../connections/clientPool';
import type { ConnectionNode, ExplorerNode, WaitingNode } from './explorerNodes';

export const SET_CREDENTIALS_COMMAND = 'dataQuery.setCredentials';

export function treeItem(node: ExplorerNode, now: number): vscode.TreeItem {
  switch (node.kind) {
    case 'connection':
      return node.needsCredentials ? credentialsNeededItem(node) : connectionItem(node);
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
    case 'waiting':
      return waitingItem(node, now);
  }
}

function connectionItem(node: ConnectionNode): vscode.TreeItem {
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

function credentialsNeededItem(node: ConnectionNode): vscode.TreeItem {
  const name = node.connection.name;
  const item = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.None);
  item.description = 'no credentials: click to set them';
  item.tooltip = new vscode.MarkdownString(`**${name}**\n\n${missingCredentials(name).message} Click to enter the client ID and secret.`);
  item.iconPath = new vscode.ThemeIcon('key', new vscode.ThemeColor('errorForeground'));
  item.contextValue = 'dataQuery.connection.remote.noCredentials';
  item.command = { title: 'Set Credentials', command: SET_CREDENTIALS_COMMAND, arguments: [node] };
  item.id = node.id;
  return item;
}

function waitingItem(node: WaitingNode, now: number): vscode.TreeItem {
  const seconds = Math.ceil((node.until - now) / 1000);
  const left = seconds > 0 ? `${seconds} s` : 'starting';
  const label = node.reason === 'paused' ? `Paused by the service's rate limit: ${left}` : `Waiting for the list-tables limit: ${left}`;
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
  item.tooltip =
    node.reason === 'paused'
      ? 'The service answered "too many requests" and asked to wait. The listing starts by itself when the wait is over.'
      : 'The service allows only a few table listings a minute. This one starts by itself when the limit allows it.';
  item.iconPath = new vscode.ThemeIcon('watch');
  item.contextValue = 'dataQuery.waiting';
  item.id = node.id;
  return item;
}

function safeHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}
