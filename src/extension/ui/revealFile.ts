// Shows a file or folder to the user: in VS Code's explorer when it is in the workspace, else
// in the operating system's file manager. VS Code in a browser (code-server) has no file
// manager to open, so there the path is shown, with a button that copies it.

import * as vscode from 'vscode';
import { EditorCommands } from './ids';

export async function revealFile(target: string): Promise<void> {
  const uri = vscode.Uri.file(target);
  if (vscode.workspace.getWorkspaceFolder(uri)) {
    await vscode.commands.executeCommand(EditorCommands.revealInExplorer, uri);
    return;
  }
  if ((await vscode.commands.getCommands(true)).includes(EditorCommands.revealFileInOS)) {
    await vscode.commands.executeCommand(EditorCommands.revealFileInOS, uri);
    return;
  }
  const copy = 'Copy Path';
  void vscode.window.showInformationMessage(`It is at ${target} (this window cannot open a file manager).`, copy).then(async (choice) => {
    if (choice === copy) await vscode.env.clipboard.writeText(target);
  });
}
