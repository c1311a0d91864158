// The folders whose files the SQL engine reads without restarting (engineClient.ts): the
// results folder (as the download folder setting names it now), the extension's storage
// (results by default, the synced database) and the workspace folders (files opened from the
// explorer). A file anywhere else still opens: the engine then starts again with its folder.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { resultsRoot } from '../jobs/jobSettings';

export async function engineFolders(globalStorage: vscode.Uri): Promise<string[]> {
  const workspaces = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  return [globalStorage.fsPath, await resultsRoot(globalStorage, { create: false }), ...workspaces].map((folder) => path.resolve(folder));
}
