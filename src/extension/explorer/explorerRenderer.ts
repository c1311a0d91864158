// How each explorer node looks: label, description, icon, tooltip, context value and click
// command, as plain data (an ItemView) that the provider turns into VS Code's TreeItem. Pure: no
// I/O and no `vscode` import; the provider supplies the time. Namespaces and tables tell the age
// of their list or schema, so their tooltips are left out of the item and made when hovered
// (hoverTooltip).

import { columnNotes, fieldName } from '../../core/schema';
import { STALE_AFTER_MS } from '../../core/schemaCache';
import { formatAge } from '../../core/durationText';
import { missingCredentials } from '../connections/clientPool';
import { markdownCode, markdownInline, markdownText } from '../../core/markdownText';
import type { ColumnNode, ConnectionNode, ExplorerNode, NamespaceNode, TableNode, WaitingNode } from './explorerNodes';
import { Commands } from '../ui/ids';

export const SET_CREDENTIALS_COMMAND = Commands.setCredentials;

/** A tooltip: plain text, or Markdown. */
export type ItemTooltip = string | { markdown: string };

/** A theme icon by id, with a theme colour by id. */
export interface ItemIcon {
  id: string;
  color?: string;
}

/** What a TreeItem shows, without VS Code's classes. */
export interface ItemView {
  id: string;
  label: string;
  collapsible: 'none' | 'collapsed';
  description?: string;
  tooltip?: ItemTooltip;
  icon: ItemIcon;
  contextValue: string;
  command?: { title: string; command: string; arguments: unknown[] };
}

export function renderNode(node: ExplorerNode, now: number): ItemView {
  switch (node.kind) {
    case 'connection':
      return node.needsCredentials ? credentialsNeededItem(node) : connectionItem(node);
    case 'namespace':
      return namespaceItem(node);
    case 'table':
      return tableItem(node);
    case 'column':
      return columnItem(node);
    case 'error':
      return {
        id: node.id,
        label: node.message,
        collapsible: 'none',
        description: node.action.title,
        tooltip: `${node.detail}\n\nClick: ${node.action.title}`,
        icon: { id: 'error', color: 'errorForeground' },
        contextValue: 'dataQuery.error',
        command: { title: node.action.title, command: node.action.command, arguments: node.action.arguments },
      };
    case 'empty':
      return { id: node.id, label: node.message, collapsible: 'none', icon: { id: 'info' }, contextValue: 'dataQuery.empty' };
    case 'waiting':
      return waitingItem(node, now);
  }
}

function namespaceItem(node: NamespaceNode): ItemView {
  return { id: node.id, label: node.namespace, collapsible: 'collapsed', icon: { id: 'symbol-namespace' }, contextValue: 'dataQuery.namespace' };
}

function tableItem(node: TableNode): ItemView {
  const item: ItemView = { id: node.id, label: node.table, collapsible: 'collapsed', icon: { id: 'table' }, contextValue: 'dataQuery.table' };
  if (node.schema) item.description = `v${node.schema.version}${node.schema.stale ? ' (stale)' : ''}`;
  return item;
}

/** The tooltip of a namespace or table as of `now` (when it is hovered), with a table's sync mark. */
export function hoverTooltip(node: NamespaceNode | TableNode, now: number, mark?: SyncedTableMark): ItemTooltip {
  if (node.kind === 'namespace') {
    const listed = node.listedAt === undefined ? 'Expand to list its tables.' : `Tables listed ${formatAge(node.listedAt, now)}${stale(node.listedAt, now) ? `: ${READ_AGAIN}` : '.'}`;
    return { markdown: `**${markdownInline(node.namespace)}**\n\n${markdownText(listed)}` };
  }
  const paragraphs = [`**${markdownInline(`${node.namespace}.${node.table}`)}**`];
  if (node.schema) {
    const age = `Schema version ${node.schema.version}, read ${formatAge(node.schema.readAt, now)}`;
    paragraphs.push(markdownText(stale(node.schema.readAt, now) ? `${age}: ${READ_AGAIN}` : `${age}.`));
  } else {
    paragraphs.push('Expand to read its schema.');
  }
  if (mark) paragraphs.push(markdownText(mark.tooltip));
  return { markdown: paragraphs.join('\n\n') };
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
export function markSyncedTable(item: ItemView, mark: SyncedTableMark): ItemView {
  item.description = [item.description ?? '', mark.description].filter(Boolean).join(' · ');
  item.icon = mark.syncing ? { id: 'sync~spin' } : { id: 'table', color: 'charts.green' };
  return item;
}

function columnItem(node: ColumnNode): ItemView {
  const c = node.column;
  const marks = [c.part === 'key' ? 'key' : undefined, c.required ? 'required' : undefined].filter(Boolean);
  return {
    id: node.id,
    label: fieldName(c),
    collapsible: node.hasMembers ? 'collapsed' : 'none',
    description: [c.type, ...marks].join(' · '),
    icon: c.problem ? { id: 'warning', color: 'problemsWarningIcon.foreground' } : { id: c.part === 'key' ? 'key' : columnIcon(c.type) },
    tooltip: columnTooltip(node),
    contextValue: c.part === 'key' ? 'dataQuery.column.key' : 'dataQuery.column',
  };
}

function columnTooltip(node: ColumnNode): ItemTooltip {
  const c = node.column;
  const marks = [c.part === 'key' ? 'Primary key column' : 'Data column', c.required ? 'required' : 'optional'];
  const paragraphs = [`**${markdownInline(c.name)}** ${markdownCode(c.type)}`, `${marks.join(', ')}.`, ...[c.description, ...columnNotes(c)].filter((p): p is string => !!p).map(markdownText)];
  return { markdown: paragraphs.join('\n\n') };
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

function connectionItem(node: ConnectionNode): ItemView {
  const c = node.connection;
  return {
    id: node.id,
    label: c.name,
    collapsible: 'collapsed',
    description: c.kind === 'sample' ? 'sample data' : safeHost(c.baseUrl),
    tooltip: {
      markdown:
        c.kind === 'sample'
          ? `**${markdownInline(c.name)}**\n\nA local emulator with generated sample data, running inside VS Code.`
          : `**${markdownInline(c.name)}**\n\n${markdownText(`${c.baseUrl}/${c.dataPrefix}`)}${c.scope ? `\n\n${markdownText(`scope: ${c.scope}`)}` : ''}`,
    },
    icon: { id: c.kind === 'sample' ? 'beaker' : 'plug' },
    contextValue: `dataQuery.connection.${c.kind}`,
  };
}

function credentialsNeededItem(node: ConnectionNode): ItemView {
  const name = node.connection.name;
  const elsewhere = node.credentialsSavedFor;
  const why = elsewhere
    ? `Its stored client ID and secret were saved for ${elsewhere}, not for this base URL, so they are not sent. Click to use them here (after a test sign-in) or to enter new ones.`
    : `${missingCredentials(name).message} Click to enter the client ID and secret.`;
  return {
    id: node.id,
    label: name,
    collapsible: 'none',
    description: elsewhere ? 'credentials saved for another URL: click' : 'no credentials: click to set them',
    tooltip: { markdown: `**${markdownInline(name)}**\n\n${markdownText(why)}` },
    icon: { id: 'key', color: 'errorForeground' },
    contextValue: 'dataQuery.connection.remote.noCredentials',
    command: { title: 'Set Credentials', command: SET_CREDENTIALS_COMMAND, arguments: [node] },
  };
}

function waitingItem(node: WaitingNode, now: number): ItemView {
  const seconds = Math.ceil((node.until - now) / 1000);
  const left = seconds > 0 ? `${seconds} s` : 'starting';
  const label = node.reason === 'paused' ? `Paused by the service's rate limit: ${left}` : `Waiting for the list-tables limit: ${left}`;
  return {
    id: node.id,
    label,
    collapsible: 'none',
    tooltip:
      node.reason === 'paused'
        ? 'The service answered "too many requests" and asked to wait. The listing starts by itself when the wait is over.'
        : 'The service allows only a few table listings a minute. This one starts by itself when the limit allows it.',
    icon: { id: 'watch' },
    contextValue: 'dataQuery.waiting',
  };
}

function safeHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}
