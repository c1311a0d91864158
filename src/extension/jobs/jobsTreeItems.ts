// Renders Jobs view nodes as tree items: an icon per state, the table as label, format,
// kind, state, age and freshness as description, a Markdown tooltip, and context values
// that the menus in package.json match on.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { tableName, type JobEntry, type JobState } from '../../jobs/jobEntry';
import { jobContextValue } from '../../jobs/jobContextValue';
import { formatBytes } from '../../core/byteSize';
import { jobDescription, jobTooltip } from '../../jobs/statusTexts';
import { Commands } from '../ui/ids';
import type { JobFileNode, JobNode } from './jobsNodes';

const ICONS: Record<JobState, [string, string?]> = {
  queued: ['watch'],
  waiting: ['clock'],
  running: ['sync~spin'],
  downloading: ['cloud-download'],
  complete: ['pass', 'testing.iconPassed'],
  failed: ['error', 'errorForeground'],
  expired: ['history', 'disabledForeground'],
  cancelled: ['circle-slash'],
};

export function jobTreeItem(node: JobNode, entry: JobEntry, now: number): vscode.TreeItem {
  const item = new vscode.TreeItem(tableName(entry), entry.files.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.id = node.id;
  item.description = jobDescription(entry, now);
  item.tooltip = new vscode.MarkdownString(jobTooltip(entry, now));
  const warn = entry.state === 'complete' && entry.failure !== undefined;
  const [icon, color] = warn ? ['warning', 'problemsWarningIcon.foreground'] : ICONS[entry.state];
  item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
  item.contextValue = jobContextValue(entry);
  item.accessibilityInformation = { label: `${tableName(entry)}, ${item.description}` };
  return item;
}

export function fileTreeItem(node: JobFileNode, bytes: number): vscode.TreeItem {
  const item = new vscode.TreeItem(path.basename(node.path), vscode.TreeItemCollapsibleState.None);
  item.id = node.id;
  item.resourceUri = vscode.Uri.file(node.path);
  item.description = formatBytes(bytes);
  item.tooltip = node.path;
  item.contextValue = 'dataQuery.jobFile';
  item.command = { title: 'Open Result', command: Commands.openResult, arguments: [node] };
  return item;
}
