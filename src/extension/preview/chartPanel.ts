// A chart of a result in a webview panel: serves the chart's page (dist/webview/chartMain.js),
// reads the points of each chart the page asks for from the engine (the newest one only: a new
// choice cancels the read before it), and turns the chart drawn into an image file on request.
// It tells the page what the chart is drawn from (chartOrigin.ts: the files, the grid's filters
// and WHERE then, the whole result's rows), and while the grid it came from is open and shows
// other rows, offers to draw it again in the grid's view. What the page posts is checked first
// (chartMessages.ts).

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import type { ChartData, ChartSpec } from '../../engine/chartProtocol';
import type { EngineClient } from '../../engine/engineClient';
import type { ChartSource, ResultColumn } from '../../engine/engineProtocol';
import { parseChartToHost, type ChartFiles, type ChartOrigin, type ImageFormat, type ToChartPage } from '../../webview/chart/chartMessages';
import { rowsText, sameRows } from '../../webview/chart/chartOrigin';
import { engineView } from '../../webview/filterText';
import type { ViewState } from '../../webview/previewProtocol';
import { isCancellation } from '../ui/cancellation';
import { describeFailure } from '../ui/describeFailure';
import { ViewTypes } from '../ui/ids';
import { webviewDocument } from '../ui/webviewDocument';
import { imageBytes, writeWhole } from './chartFile';
import { webviewRoot } from './previewHtml';

export type ChartEngine = Pick<EngineClient, 'chart' | 'chartFiles' | 'open' | 'closeHandle' | 'count'>;

/** What a chart reads: a preview's view or console rows, or files opened for the chart alone. */
export interface ChartSubject {
  title: string;
  columns: ResultColumn[];
  source: ChartSource;
  /** the result files read, as a reload of the window opens them again; absent for a console statement's rows */
  files?: ChartFiles;
  /** the grid's view that `source` reads (no filters: the whole result); absent for a console statement's rows */
  view?: ViewState;
  /** the preview grid the chart was drawn from */
  grid?: ChartGrid;
  /** why the rows cannot be read any more (the preview they belong to was closed), once that is so */
  gone?(): string | undefined;
  /** lets go of what was opened for the chart alone, when the panel closes */
  close?(): Promise<void>;
}

/** The preview grid a chart was drawn from. */
export interface ChartGrid {
  /** its view now, while it shows the result the chart reads; undefined once it shows another or is closed */
  view(): ViewState | undefined;
  /** its view changed, or it closed */
  onDidChange: vscode.Event<void>;
}

export interface ChartPanelDeps {
  engine: ChartEngine;
  extensionUri: vscode.Uri;
  logger: Logger;
  /** the page's Save PNG… and Save SVG… buttons */
  onExport(panel: ChartPanel, format: ImageFormat): void;
}

/** How long the page is given to draw an image asked for. */
const RENDER_TIMEOUT_MS = 60_000;

function chartHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const root = webviewRoot(extensionUri);
  const script = webview.asWebviewUri(vscode.Uri.joinPath(root, 'chartMain.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(root, 'chart.css'));
  const nonce = randomBytes(16).toString('base64');
  return webviewDocument({ cspSource: webview.cspSource, nonce, style: style.toString(), script: script.toString(), title: 'Data Query Chart', body: '' });
}

export class ChartPanel implements vscode.Disposable {
  private version = 0;
  private spec: ChartSpec;
  private source: ChartSource;
  private view: ViewState | undefined;
  /** the whole result's rows, once counted (for a chart of a filtered view) */
  private total: number | undefined;
  private counting = false;
  private data: ChartData | undefined;
  private error: string | undefined;
  private drawn: { version: number; marks: number } | undefined;
  private reads = new AbortController();
  private nextRender = 1;
  private readonly renders = new Map<number, { resolve(data: string): void; reject(err: Error): void }>();
  private readonly waiters: (() => boolean)[] = [];
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly closed = new vscode.EventEmitter<void>();
  readonly onDidClose = this.closed.event;

  /** A new panel beside the active editor; with `data`, the points of `spec` already read. */
  static create(subject: ChartSubject, spec: ChartSpec, deps: ChartPanelDeps, data?: ChartData): ChartPanel {
    const panel = vscode.window.createWebviewPanel(ViewTypes.chart, `Chart: ${subject.title}`, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false });
    return new ChartPanel(panel, subject, spec, deps, data);
  }

  constructor(
    readonly webviewPanel: vscode.WebviewPanel,
    private readonly subject: ChartSubject,
    spec: ChartSpec,
    private readonly deps: ChartPanelDeps,
    data?: ChartData,
  ) {
    this.spec = spec;
    this.data = data;
    this.source = subject.source;
    this.view = subject.view;
    const webview = webviewPanel.webview;
    webview.options = { enableScripts: true, localResourceRoots: [webviewRoot(deps.extensionUri)] };
    webview.html = chartHtml(webview, deps.extensionUri);
    this.subscriptions.push(
      webview.onDidReceiveMessage((message: unknown) => this.receive(message)),
      webviewPanel.onDidDispose(() => this.dispose()),
    );
    if (subject.grid) this.subscriptions.push(subject.grid.onDidChange(() => this.postOrigin()));
  }

  /** The chart asked for last, and its points once read; what it is drawn from, and whether its grid shows other rows now. */
  state(): { spec: ChartSpec; data?: ChartData; error?: string; drawn?: { version: number; marks: number }; origin: ChartOrigin; gridChanged: boolean } {
    return { spec: this.spec, data: this.data, error: this.error, drawn: this.drawn, origin: this.origin(), gridChanged: this.gridChanged() };
  }

  /** Draws the chart asked for last again, in the grid's view now (as the page's Redraw button does); false when its grid is gone. */
  redraw(): boolean {
    const view = this.subject.grid?.view();
    if (!view || !('handle' in this.source)) return false;
    this.view = view;
    this.source = { handle: this.source.handle, view: engineView(view) };
    this.read(this.spec);
    this.postOrigin();
    return true;
  }

  /** Reads the points of `spec` and has the page draw them; settles once drawn (rejects with why not). */
  async draw(spec: ChartSpec): Promise<ChartData> {
    const version = this.read(spec);
    await this.whenDrawn(version);
    return this.data!;
  }

  /** Settles once the page has drawn the chart asked for last (rejects with why not). */
  whenShown(): Promise<void> {
    return this.whenDrawn(this.version);
  }

  /** Draws the chart as `format` and writes it to `file` (whole, or not at all). */
  async save(file: string, format: ImageFormat): Promise<string> {
    await this.whenDrawn(this.version);
    const data = await this.render(format);
    await writeWhole(file, imageBytes(format, data));
    return file;
  }

  dispose(): void {
    if (this.subscriptions.length === 0) return;
    for (const s of this.subscriptions.splice(0)) s.dispose();
    this.reads.abort();
    for (const pending of this.renders.values()) pending.reject(new Error('The chart was closed.'));
    this.renders.clear();
    this.settle();
    void this.subject.close?.().catch((err: unknown) => this.deps.logger.debug(`Closing a chart's result failed: ${String(err)}`));
    this.webviewPanel.dispose();
    this.closed.fire();
    this.closed.dispose();
  }

  private get disposed(): boolean {
    return this.subscriptions.length === 0;
  }

  private receive(data: unknown): void {
    const message = parseChartToHost(data);
    if (!message) {
      this.deps.logger.debug('A chart ignored a malformed message from its webview.');
      return;
    }
    switch (message.type) {
      case 'ready':
        this.post({ type: 'init', title: this.subject.title, columns: this.subject.columns, spec: this.spec });
        this.postOrigin();
        // a page shown again (it was hidden) gets what it showed; a new one asks for its first chart
        if (this.data && this.error === undefined) this.post({ type: 'data', version: this.version, data: this.data });
        else this.read(this.spec);
        break;
      case 'draw':
        this.read(message.spec);
        break;
      case 'drawn':
        if (message.version === this.version) this.drawn = { version: message.version, marks: message.marks };
        this.settle();
        break;
      case 'redraw':
        this.redraw();
        break;
      case 'export':
        this.deps.onExport(this, message.format);
        break;
      case 'image':
      case 'imageFailed': {
        const pending = this.renders.get(message.id);
        this.renders.delete(message.id);
        if (message.type === 'imageFailed') pending?.reject(new Error(`The chart could not be drawn as an image: ${message.message}`));
        else if (message.format === 'svg' || message.format === 'png') pending?.resolve(message.data);
        break;
      }
    }
  }

  /** Starts reading the points of `spec` (stopping the read before it); returns its version. */
  private read(spec: ChartSpec): number {
    this.reads.abort();
    this.reads = new AbortController();
    const signal = this.reads.signal;
    const version = ++this.version;
    this.spec = spec;
    this.data = undefined;
    this.error = undefined;
    this.drawn = undefined;
    this.post({ type: 'busy', version });
    const gone = this.subject.gone?.();
    const reading = gone !== undefined ? Promise.reject(new Error(gone)) : this.deps.engine.chart(this.source, spec, (rows) => this.post({ type: 'busy', version, rows }), signal);
    reading.then(
      (data) => {
        if (version !== this.version) return;
        this.data = data;
        this.post({ type: 'data', version, data });
        this.countWhole();
      },
      (err: unknown) => {
        if (version !== this.version || (isCancellation(err) && signal.aborted)) return;
        this.error = describeFailure(err).label;
        this.deps.logger.warn(`Chart of ${this.subject.title}: ${this.error}`);
        this.post({ type: 'error', version, message: this.error });
        this.settle();
      },
    );
    return version;
  }

  private origin(): ChartOrigin {
    const { title, files } = this.subject;
    return { title, ...(files ? { files } : {}), ...(this.view ? { view: this.view } : {}) };
  }

  /** Whether the grid the chart came from is open and shows other rows than the chart (other filters or WHERE). */
  private gridChanged(): boolean {
    const now = this.subject.grid?.view();
    return now !== undefined && this.view !== undefined && !sameRows(now, this.view);
  }

  private postOrigin(): void {
    this.post({ type: 'origin', origin: this.origin(), ...(this.total !== undefined ? { total: this.total } : {}), gridChanged: this.gridChanged() });
  }

  /** The whole result's rows, counted once for a chart of a filtered view: the page says "1,234 of 5,000 rows". */
  private countWhole(): void {
    if (this.total !== undefined || this.counting || !('handle' in this.source) || !this.view || !rowsText(this.view)) return;
    this.counting = true;
    this.deps.engine
      .count(this.source.handle, {}, this.reads.signal)
      .then(
        (total) => {
          this.total = total;
          this.postOrigin();
        },
        (err: unknown) => {
          if (!isCancellation(err)) this.deps.logger.debug(`Counting the rows of ${this.subject.title} failed: ${String(err)}`);
        },
      )
      .finally(() => (this.counting = false));
  }

  /** Settles when the page has drawn chart `version`; rejects when its points could not be read or the panel closed. */
  private whenDrawn(version: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        if (this.disposed) reject(new Error('The chart was closed before it was drawn.'));
        else if (version !== this.version) reject(new Error('Another chart was asked for before this one was drawn.'));
        else if (this.error !== undefined) reject(new Error(this.error));
        else if (this.drawn?.version === version) resolve();
        else return false;
        return true;
      };
      if (!check()) this.waiters.push(check);
    });
  }

  private settle(): void {
    for (const waiter of [...this.waiters]) if (waiter()) this.waiters.splice(this.waiters.indexOf(waiter), 1);
  }

  /** The chart shown, as the page draws it in `format`. */
  private render(format: ImageFormat): Promise<string> {
    const id = this.nextRender++;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.renders.delete(id);
        reject(new Error('The chart\'s page did not draw the image in time. Show the chart and try again.'));
      }, RENDER_TIMEOUT_MS);
      this.renders.set(id, {
        resolve: (data) => {
          clearTimeout(timer);
          resolve(data);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      });
      this.post({ type: 'render', id, format });
    });
  }

  private post(message: ToChartPage): void {
    if (!this.disposed) void this.webviewPanel.webview.postMessage(message);
  }
}
