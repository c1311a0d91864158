// The dataQuery.download.*, dataQuery.query.*, dataQuery.jobs.* and dataQuery.rateLimits
// settings, and where results go: the download folder setting (`~` is the home folder),
// else `data-query-results/` in the first workspace folder (ignored by git), else the
// extension's global storage (resultsLayout.ts decides).

import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { FORMATS, OPERATIONS, type Format, type Operation } from '../../core/contract';
import type { DownloadSettings } from '../../jobs/jobRunner';
import { ensureResultsRoot, resultsRootOf } from '../../jobs/resultsLayout';

export interface QuerySettings {
  defaultFormat: Format;
  downloadAutomatically: boolean;
}

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('dataQuery');
}

export function readDownloadSettings(): DownloadSettings {
  const concurrency = config().get<number>('download.concurrency', 4);
  return {
    decompress: config().get<boolean>('download.decompress', false),
    concurrency: Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 32 ? concurrency : 4,
    sha256: config().get<boolean>('download.sha256', false),
  };
}

export function readQuerySettings(): QuerySettings {
  const format = config().get<string>('query.defaultFormat', 'jsonl');
  return {
    defaultFormat: (FORMATS as readonly string[]).includes(format) ? (format as Format) : 'jsonl',
    downloadAutomatically: config().get<boolean>('query.downloadAutomatically', true),
  };
}

export function readKeepFinishedDays(): number {
  const days = config().get<number>('jobs.keepFinishedDays', 7);
  return typeof days === 'number' && days > 0 ? days : 7;
}

/** Per-operation calls a minute, for customers with arranged higher limits. */
export function readRateLimits(): Partial<Record<Operation, number>> {
  const raw = config().get<Record<string, unknown>>('rateLimits', {});
  const limits: Partial<Record<Operation, number>> = {};
  for (const op of OPERATIONS) {
    const value = raw?.[op];
    if (typeof value === 'number' && Number.isInteger(value) && value >= 1) limits[op] = value;
  }
  return limits;
}

/**
 * The results root, created and checked writable (with a .gitignore of `*` when it is the
 * default in a workspace); an `io` error naming the folder and the setting when it cannot be.
 * With `create: false`, only where it is, left as it is on disk.
 */
export async function resultsRoot(globalStorage: vscode.Uri, options: { create?: boolean } = {}): Promise<string> {
  const configured = config().get<unknown>('download.folder', '');
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri;
  const { root, ignoreInGit } = resultsRootOf({
    setting: typeof configured === 'string' ? configured : '',
    workspaceFolder: workspace?.scheme === 'file' ? workspace.fsPath : undefined,
    globalStorage: globalStorage.fsPath,
    home: os.homedir(),
  });
  return options.create === false ? path.resolve(root) : ensureResultsRoot(root, ignoreInGit);
}
