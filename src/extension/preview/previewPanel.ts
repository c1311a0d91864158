// A preview grid in a webview panel (a panel of its own, or a custom editor's): serves its page,
// relays the webview's messages to a PreviewSession, and closes the result with the panel.

import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import type { ExportSource } from '../../engine/engineProtocol';
import type { ViewState } from '../../webview/previewProtocol';
import { previewHtml, webviewRoot } from './previewHtml';
import { PreviewSession, type Opening, type PreviewState } from './previewSession';
import type { RowSource } from './rowSource';
import { ViewTypes } from '../ui/ids';

export const PREVIEW_VIEW_TYPE = ViewTypes.preview;

export interface PreviewPanelDeps {
  extensionUri: vscode.Uri;
  logger: Logger;
  /** the grid's Export button */
  onExport(panel: PreviewPanel): void;
  /** whether grids show column profiles under their headers */
  columnProfiles?(): boolean;
  /** the grid's Chart… button */
  onChart?(panel: PreviewPanel): void;
}

export class PreviewPanel implements vscode.Disposable {
  private readonly session: PreviewSession;
  private readonly closed = new vscode.EventEmitter<void>();
  readonly onDidClose = this.closed.event;
  private readonly viewChanged = new vscode.EventEmitter<void>();
  /** the rows shown changed: the user filtered or sorted them, or another result (statement) is shown */
  readonly onDidChangeView = this.viewChanged.event;
  private readonly subscriptions: vscode.Disposable[] = [];

  /** A new panel beside the active editor (or in it). */
  static create(title: string, deps: PreviewPanelDeps, column = vscode.ViewColumn.Active): PreviewPanel {
    const panel = vscode.window.createWebviewPanel(PREVIEW_VIEW_TYPE, title, { viewColumn: column, preserveFocus: column === vscode.ViewColumn.Beside });
    return new PreviewPanel(panel, title, deps);
  }

  constructor(
    readonly webviewPanel: vscode.WebviewPanel,
    title: string,
    deps: PreviewPanelDeps,
  ) {
    const webview = webviewPanel.webview;
    webview.options = { enableScripts: true, localResourceRoots: [webviewRoot(deps.extensionUri)] };
    webview.html = previewHtml(webview, deps.extensionUri);
    this.session = new PreviewSession(
      title,
      {
        post: (message) => void webview.postMessage(message),
        copy: (text) => void vscode.env.clipboard.writeText(text),
        export: () => deps.onExport(this),
        chart: () => deps.onChart?.(this),
        retitle: (name) => {
          webviewPanel.title = name;
        },
        columnProfiles: deps.columnProfiles,
        viewChanged: () => this.viewChanged.fire(),
      },
      deps.logger,
    );
    this.subscriptions.push(
      webview.onDidReceiveMessage((message: unknown) => void this.session.receive(message)),
      webviewPanel.onDidDispose(() => this.dispose()),
    );
  }

  /**
   * Shows a source's rows once it opens, or why it could not, titling the panel after it; see
   * PreviewSession.show (a cancelled statement leaves the panel as it was; `from`: the view to
   * show, and the files the page keeps for a reload should they fail to open).
   */
  show(opening: Promise<RowSource>, wanted: () => boolean = () => true, failedTitle?: string, from?: Opening): Promise<PreviewState> {
    // a panel closed while its source opened wants nothing: the source closes unseen
    return this.session.show(opening, () => !this.disposed && wanted(), failedTitle, from);
  }

  private get disposed(): boolean {
    return this.subscriptions.length === 0;
  }

  state(): PreviewState {
    return this.session.state();
  }

  /** Sorts and filters as the grid's header, filter row and WHERE box do; returns the view's version. */
  setView(view: ViewState): number {
    return this.session.setView(view);
  }

  /** Rows of the current view, as the grid reads them. */
  rows(offset: number, limit: number): Promise<unknown[][]> {
    return this.session.rows(offset, limit);
  }

  whenShown(version?: number): Promise<PreviewState> {
    return this.session.whenShown(version);
  }

  /** Settles with the state once `condition` holds, e.g. when the row count is known. */
  until(condition: (state: PreviewState) => boolean): Promise<PreviewState> {
    return this.session.until(condition);
  }

  /** The column profiles setting changed: the grid's strips come or go. */
  columnProfilesChanged(): void {
    this.session.columnProfilesChanged();
  }

  /** What an export of this grid's rows reads, in the view shown. */
  exportTarget(): ExportSource | undefined {
    return this.session.exportTarget();
  }

  /** The result files shown, when the grid shows files. */
  files(): RowSource['files'] {
    return this.session.files();
  }

  dispose(): void {
    if (this.subscriptions.length === 0) return;
    for (const s of this.subscriptions.splice(0)) s.dispose();
    this.session.dispose();
    this.webviewPanel.dispose();
    this.closed.fire();
    this.closed.dispose();
    this.viewChanged.dispose();
  }
}
