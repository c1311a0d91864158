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
import { setting } from '../ui/vscodeSettings';

export interface QuerySettings {
  defaultFormat: Format;
  downloadAutomatically: boolean;
}

export function readDownloadSettings(): DownloadSettings {
  const concurrency = setting('dataQuery.download.concurrency');
  return {
    decompress: setting('dataQuery.download.decompress'),
    concurrency: Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 32 ? concurrency : 4,
    sha256: setting('dataQuery.download.sha256'),
  };
}

export function readQuerySettings(): QuerySettings {
  const format = setting('dataQuery.query.defaultFormat');
  return {
    defaultFormat: (FORMATS as readonly string[]).includes(format) ? (format as Format) : 'jsonl',
    downloadAutomatically: setting('dataQuery.query.downloadAutomatically'),
  };
}

export function readKeepFinishedDays(): number {
  const days = setting('dataQuery.jobs.keepFinishedDays');
  return days > 0 ? days : 7;
}

/** Per-operation calls a minute, for customers with arranged higher limits. */
export function readRateLimits(): Partial<Record<Operation, number>> {
  const raw = setting('dataQuery.rateLimits');
  const limits: Partial<Record<Operation, number>> = {};
  for (const op of OPERATIONS) {
    const value = raw[op];
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
  const configured = setting('dataQuery.download.folder');
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri;
  const { root, ignoreInGit } = resultsRootOf({
    setting: configured,
    workspaceFolder: workspace?.scheme === 'file' ? workspace.fsPath : undefined,
    globalStorage: globalStorage.fsPath,
    home: os.homedir(),
  });
  return options.create === false ? path.resolve(root) : ensureResultsRoot(root, ignoreInGit);
}
