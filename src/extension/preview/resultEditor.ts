// "Data Query Preview" for result files opened from VS Code's explorer (`Open With...`): a
// read-only custom editor that shows the file in the preview grid.

import * as vscode from 'vscode';
import { ViewTypes } from '../ui/ids';

export const RESULT_EDITOR_VIEW_TYPE = ViewTypes.resultPreview;

/** `show` fills the editor's panel with a preview of the file. */
export function registerResultEditor(show: (panel: vscode.WebviewPanel, file: vscode.Uri) => void): vscode.Disposable {
  const provider: vscode.CustomReadonlyEditorProvider = {
    openCustomDocument: (uri) => ({ uri, dispose: () => undefined }),
    resolveCustomEditor: (document, panel) => show(panel, document.uri),
  };
  return vscode.window.registerCustomEditorProvider(RESULT_EDITOR_VIEW_TYPE, provider, { supportsMultipleEditorsPerDocument: true });
}
