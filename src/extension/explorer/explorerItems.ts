// How each explorer node looks: label, description, icon, tooltip, context value and click
// command. Pure apart from building VS Code's TreeItem objects; the provider supplies the time.
// Namespaces and tables tell the age of their list or schema, so their tooltips are left out
// of the item and made when hovered (hoverTooltip).

import * as vscode from 'vscode';
import { columnNotes, fieldName } from '../../core/schema';
import { STALE_AFTER_MS } from '../../core/schemaCache';
import { formatAge } from '../../jobs/statusTexts';
import { missingCredentials } from '../connections/clientPool';
import { markdownCode, markdownInline, markdownText } from '../../core/markdownText';
import type { ColumnNode, ConnectionNode, ExplorerNode, NamespaceNode, TableNode, WaitingNode } from './explorerNodes';

export const SET_CREDENTIALS_COMMAND = 'dataQuery.setCredentials';

export function treeItem(node: ExplorerNode, now: number): vscode.TreeItem {
  switch (node.kind) {
    case 'connection':
      return node.needsCredentials ? credentialsNeededItem(node) : connectionItem(node);
    case 'namespace':
      return namespaceItem(node);
    case 'table':
      return tableItem(node);
    case 'column':
      return columnItem(node);
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

function namespaceItem(node: NamespaceNode): vscode.TreeItem {
  const item = new vscode.TreeItem(node.namespace, vscode.TreeItemCollapsibleState.Collapsed);
  item.iconPath = new vscode.ThemeIcon('symbol-namespace');
  item.contextValue = 'dataQuery.namespace';
  item.id = node.id;
  return item;
}

function tableItem(node: TableNode): vscode.TreeItem {
  const item = new vscode.TreeItem(node.table, vscode.TreeItemCollapsibleState.Collapsed);
  item.iconPath = new vscode.ThemeIcon('table');
  item.contextValue = 'dataQuery.table';
  if (node.schema) item.description = `v${node.schema.version}${node.schema.stale ? ' (stale)' : ''}`;
  item.id = node.id;
  return item;
}

/** The tooltip of a namespace or table as of `now` (when it is hovered), with a table's sync mark. */
export function hoverTooltip(node: NamespaceNode | TableNode, now: number, mark?: SyncedTableMark): vscode.MarkdownString {
  if (node.kind === 'namespace') {
    const listed = node.listedAt === undefined ? 'Expand to list its tables.' : `Tables listed ${formatAge(node.listedAt, now)}${stale(node.listedAt, now) ? `: ${READ_AGAIN}` : '.'}`;
    return new vscode.MarkdownString(`**${markdownInline(node.namespace)}**\n\n${markdownText(listed)}`);
  }
  const paragraphs = [`**${markdownInline(`${node.namespace}.${node.table}`)}**`];
  if (node.schema) {
    const age = `Schema version ${node.schema.version}, read ${formatAge(node.schema.readAt, now)}`;
    paragraphs.push(markdownText(stale(node.schema.readAt, now) ? `${age}: ${READ_AGAIN}` : `${age}.`));
  } else {
    paragraphs.push('Expand to read its schema.');
  }
  if (mark) paragraphs.push(markdownText(mark.tooltip));
  return new vscode.MarkdownString(paragraphs.join('\n\n'));
}

const READ_AGAIN = "older than the service's 4-hour refresh, so it is read again on the next expand.";

function stale(readAt: number, now: number): boolean {
  return now - readAt >= STALE_AFTER_MS;
}

/** What a table's node shows of its copy in the sync target, or of a sync of it under way. */
export interface SyncedTableMark {
  /** e.g. `synced 2026-11-24 08:00, 1,234 rows` or `syncing: applying` */
  description: string;
  /** a paragraph for the tooltip */
  tooltip: string;
  /** a sync of the table is running now */
  syncing: boolean;
}

/** Adds a sync mark to a table's item, after its schema version: the text and a green (or spinning) icon; its tooltip paragraph joins hoverTooltip. */
export function markSyncedTable(item: vscode.TreeItem, mark: SyncedTableMark): vscode.TreeItem {
  item.description = [typeof item.description === 'string' ? item.description : '', mark.description].filter(Boolean).join(' · ');
  item.iconPath = mark.syncing ? new vscode.ThemeIcon('sync~spin') : new vscode.ThemeIcon('table', new vscode.ThemeColor('charts.green'));
  return item;
}

function columnItem(node: ColumnNode): vscode.TreeItem {
  const c = node.column;
  const item = new vscode.TreeItem(fieldName(c), node.hasMembers ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  const marks = [c.part === 'key' ? 'key' : undefined, c.required ? 'required' : undefined].filter(Boolean);
  item.description = [c.type, ...marks].join(' · ');
  item.iconPath = c.problem
    ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'))
    : new vscode.ThemeIcon(c.part === 'key' ? 'key' : columnIcon(c.type));
  item.tooltip = columnTooltip(node);
  item.contextValue = c.part === 'key' ? 'dataQuery.column.key' : 'dataQuery.column';
  item.id = node.id;
  return item;
}

function columnTooltip(node: ColumnNode): vscode.MarkdownString {
  const c = node.column;
  const marks = [c.part === 'key' ? 'Primary key column' : 'Data column', c.required ? 'required' : 'optional'];
  const paragraphs = [`**${markdownInline(c.name)}** ${markdownCode(c.type)}`, `${marks.join(', ')}.`, ...[c.description, ...columnNotes(c)].filter((p): p is string => !!p).map(markdownText)];
  return new vscode.MarkdownString(paragraphs.join('\n\n'));
}

function columnIcon(type: string): string {
  if (/^(int|number)/.test(type)) return 'symbol-number';
  if (type.startsWith('date')) return 'calendar';
  if (type === 'enum') return 'symbol-enum';
  if (type === 'boolean') return 'symbol-boolean';
  if (type.startsWith('array')) return 'symbol-array';
  if (type === 'object') return 'symbol-object';
  return type === 'string' ? 'symbol-string' : 'symbol-field';
}

function connectionItem(node: ConnectionNode): vscode.TreeItem {
  const c = node.connection;
  const item = new vscode.TreeItem(c.name, vscode.TreeItemCollapsibleState.Collapsed);
  item.description = c.kind === 'sample' ? 'sample data' : safeHost(c.baseUrl);
  item.tooltip = new vscode.MarkdownString(
    c.kind === 'sample'
      ? `**${markdownInline(c.name)}**\n\nA local emulator with generated sample data, running inside VS Code.`
      : `**${markdownInline(c.name)}**\n\n${markdownText(`${c.baseUrl}/${c.dataPrefix}`)}${c.scope ? `\n\n${markdownText(`scope: ${c.scope}`)}` : ''}`,
  );
  item.iconPath = new vscode.ThemeIcon(c.kind === 'sample' ? 'beaker' : 'plug');
  item.contextValue = `dataQuery.connection.${c.kind}`;
  item.id = node.id;
  return item;
}

function credentialsNeededItem(node: ConnectionNode): vscode.TreeItem {
  const name = node.connection.name;
  const item = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.None);
  const elsewhere = node.credentialsSavedFor;
  item.description = elsewhere ? 'credentials saved for another URL: click' : 'no credentials: click to set them';
  const why = elsewhere
    ? `Its stored client ID and secret were saved for ${elsewhere}, not for this base URL, so they are not sent. Click to use them here (after a test sign-in) or to enter new ones.`
    : `${missingCredentials(name).message} Click to enter the client ID and secret.`;
  item.tooltip = new vscode.MarkdownString(`**${markdownInline(name)}**\n\n${markdownText(why)}`);
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
