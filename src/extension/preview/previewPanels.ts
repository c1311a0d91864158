// The open preview panels: new ones, custom editors adopted as previews, and the one the user
// looked at last (what "Export Result" exports when it is given nothing).

import * as vscode from 'vscode';
import { PreviewPanel, type PreviewPanelDeps } from './previewPanel';

export class PreviewPanels implements vscode.Disposable {
  private readonly panels = new Set<PreviewPanel>();
  private lastActive: PreviewPanel | undefined;

  constructor(private readonly deps: PreviewPanelDeps) {}

  create(title: string, column?: vscode.ViewColumn): PreviewPanel {
    return this.track(PreviewPanel.create(title, this.deps, column));
  }

  /** A preview in a panel VS Code made (a custom editor's). */
  adopt(webviewPanel: vscode.WebviewPanel, title: string): PreviewPanel {
    return this.track(new PreviewPanel(webviewPanel, title, this.deps));
  }

  /** The preview the user looked at last, while it is open. */
  active(): PreviewPanel | undefined {
    return this.lastActive;
  }

  /** The column profiles setting changed: every grid's strips come or go. */
  columnProfilesChanged(): void {
    for (const panel of this.panels) panel.columnProfilesChanged();
  }

  dispose(): void {
    for (const panel of [...this.panels]) panel.dispose();
  }

  private track(panel: PreviewPanel): PreviewPanel {
    this.panels.add(panel);
    this.lastActive = panel;
    const viewState = panel.webviewPanel.onDidChangeViewState((e) => {
      if (e.webviewPanel.active) this.lastActive = panel;
    });
    panel.onDidClose(() => {
      viewState.dispose();
      this.panels.delete(panel);
      if (this.lastActive === panel) this.lastActive = undefined;
    });
    return panel;
  }
}
