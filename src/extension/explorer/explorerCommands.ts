// Commands of the Explorer view itself: refresh a node, or everything.

import type * as vscode from 'vscode';
import { registerCommand } from '../ui/commands';
import { Commands } from '../ui/ids';
import type { ExplorerNode } from './explorerNodes';
import type { ExplorerTreeProvider } from './explorerTreeProvider';

export function registerExplorerCommands(explorer: ExplorerTreeProvider): vscode.Disposable[] {
  return [registerCommand(Commands.refresh, (node?: ExplorerNode) => explorer.refresh(node))];
}
