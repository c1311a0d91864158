// Commands of the Explorer view itself: refresh (a node or everything) and show the log.

import * as vscode from 'vscode';
import type { ExplorerNode } from './explorerNodes';
import { REFRESH_COMMAND, type ExplorerTreeProvider } from './explorerTreeProvider';

export function registerExplorerCommands(explorer: ExplorerTreeProvider, channel: vscode.LogOutputChannel): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(REFRESH_COMMAND, (node?: ExplorerNode) => explorer.refresh(node)),
    vscode.commands.registerCommand('dataQuery.showLog', () => channel.show()),
  ];
}
