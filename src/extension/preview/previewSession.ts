// The extension's side of one preview grid: answers the webview's messages from a row source,
// one view (sort, filters, WHERE) at a time. A new view cancels the reads of the old one.
// Failures become one message in the grid; what the user typed stays as typed. Every fetch of
// the current view is answered, with its rows or as failed, so the grid asks again later.

import type { Logger } from '../../core/logger';
import type { ExportSource, ResultColumn } from '../../engine/engineProtocol';
import { cellText, isCutValue, rowTsv } from '../../webview/cellText';
import { displayOrder, inDisplayOrder } from '../../webview/columnOrder';
import { engineView } from '../../webview/filterText';
import type { PreviewOrigin } from '../../webview/previewOrigin';
import { EMPTY_VIEW, parseToHost, type ToWebview, type ViewState } from '../../webview/previewProtocol';
import { isCancellation } from '../ui/cancellation';
import { ColumnProfiles } from './columnProfiles';
import type { RowSource } from './rowSource';

export interface ShownRows {
  version: number;
  firstRow: number;
  rows: number;
}

/** What the grid shows, for tests and for commands that act on "the current result". */
export interface PreviewState {
  title: string;
  columns: ResultColumn[];
  version: number;
  view: ViewState;
  /** the row count of the view, once known */
  total?: number;
  error?: string;
  /** the last screen the grid painted */
  shown?: ShownRows;
}

/**
 * What a grid opens (previewResult's files, or a grid opened again after a reload of the window):
 * the view to show its rows in, and the files to keep in the page's state should they fail to open.
 */
export interface Opening {
  view?: ViewState;
  origin?: PreviewOrigin;
}

export interface SessionHost {
  post(message: ToWebview): void;
  copy(text: string): void;
  export(): void;
  /** the grid's Chart… button */
  chart?(): void;
  /** names the panel (its tab) after what the grid shows now */
  retitle?(title: string): void;
  /** whether the grid shows column profiles under its headers (none when absent) */
  columnProfiles?(): boolean;
  /** the rows shown changed: a new view of them, or another source */
  viewChanged?(): void;
}

export class PreviewSession {
  private source: RowSource | undefined;
  private title: string;
  private ready = false;
  private version = 0;
  private view: ViewState = EMPTY_VIEW;
  private total: number | undefined;
  private error: string | undefined;
  /**
   * Why the current view has no count: `passing` (the engine restarted: asked again once a page
   * reads) or `lasting` (damaged files and the like: a page read before the damage does not make
   * it go away, and asking again would fail again).
   */
  private countFailure: 'lasting' | 'passing' | undefined;
  private shown: ShownRows | undefined;
  /** where the rows come from, as the page keeps it for a reload; with the view asked for, when they could not be opened */
  private origin: PreviewOrigin & { view?: ViewState } = {};
  private reads = new AbortController();
  private readonly waiters: { condition: (state: PreviewState) => boolean; done: () => void }[] = [];
  private readonly profiles: ColumnProfiles;

  constructor(
    title: string,
    private readonly host: SessionHost,
    private readonly logger: Logger,
  ) {
    this.title = title;
    this.profiles = new ColumnProfiles({ post: (message) => this.post(message), enabled: () => host.columnProfiles?.() ?? false }, logger);
  }

  /**
   * Shows a source's rows once it opens; settles when the grid has painted its first rows, or
   * shows why it could not (the state's `error`), in place of whatever the grid showed before,
   * titled `failedTitle` when given (a failed statement's). A source that is no longer `wanted` by
   * then (a newer one was asked for, or the panel was closed) is closed unseen, and so is its
   * failure. One that was cancelled leaves the grid as it was (see `fail`). `from`: the view to
   * show the rows in, and what the page keeps when they cannot be opened.
   */
  async show(opening: Promise<RowSource>, wanted: () => boolean = () => true, failedTitle?: string, from: Opening = {}): Promise<PreviewState> {
    try {
      const source = await opening;
      if (!wanted()) {
        void source.close().catch(() => undefined);
        return this.state();
      }
      this.host.retitle?.(source.title);
      this.attach(source, from.view);
    } catch (err) {
      if (!wanted()) return this.state();
      // a cancelled statement has nothing to paint: the grid keeps what it showed
      if (!this.fail(err, failedTitle, { ...from.origin, ...(from.view ? { view: from.view } : {}) })) return this.state();
      if (failedTitle !== undefined) this.host.retitle?.(failedTitle);
    }
    return this.whenShown();
  }

  /** Shows a new source (closing the one before), in `view` (an empty one by default). */
  attach(source: RowSource, view: ViewState = EMPTY_VIEW): void {
    const previous = this.source;
    this.source = source;
    this.title = source.title;
    this.origin = { ...(source.files ? { files: source.files } : {}), ...(source.job ? { job: source.job } : {}) };
    this.view = view;
    this.startVersion();
    this.sendInit();
    this.closeSource(previous);
  }

  /**
   * A source that could not be opened (or a statement that failed): one message in the grid, and
   * nothing else. The source shown before is closed, so no row of it stays under the message or
   * goes to an export; `title` (the failed statement's) names the grid. The message stays until
   * a new source is attached.
   *
   * A cancellation (the user stopped the statement) is no failure: the grid keeps the result (or
   * the message) it showed, with its title, rows and Export. Only a grid that showed nothing yet
   * says that it was cancelled, so that it is not left loading. Returns whether the grid now
   * shows `err`. `kept`: the files that failed to open (and the view asked for), which the page
   * keeps for the next reload of the window.
   */
  fail(err: unknown, title?: string, kept: PreviewOrigin & { view?: ViewState } = {}): boolean {
    if (isCancellation(err) && (this.source !== undefined || this.error !== undefined)) {
      this.logger.info(`${title !== undefined ? `"${title}"` : 'Opening a preview'} was cancelled; the grid still shows "${this.title}".`);
      return false;
    }
    const previous = this.source;
    this.source = undefined;
    if (title !== undefined) this.title = title;
    this.origin = kept;
    this.view = EMPTY_VIEW;
    this.shown = undefined;
    this.startVersion();
    this.sendInit();
    this.setError(err);
    this.closeSource(previous);
    return true;
  }

  state(): PreviewState {
    return {
      title: this.title,
      columns: this.source?.columns ?? [],
      version: this.version,
      view: this.view,
      total: this.total,
      error: this.error,
      shown: this.shown,
    };
  }

  /** Settles when the grid has painted rows of `version` (the current one by default), or shows a failure. */
  whenShown(version = this.version): Promise<PreviewState> {
    return this.until((s) => s.error !== undefined || (s.shown !== undefined && s.shown.version >= version));
  }

  /** Settles with the state once `condition` holds (or the preview closes). */
  until(condition: (state: PreviewState) => boolean): Promise<PreviewState> {
    return new Promise((resolve) => {
      if (condition(this.state())) resolve(this.state());
      else this.waiters.push({ condition, done: () => resolve(this.state()) });
    });
  }

  /** Applies what the user asked for to the whole result; returns the new view's version. Without a result there is nothing to apply it to. */
  setView(view: ViewState): number {
    if (!this.source) return this.version;
    this.view = view;
    this.startVersion();
    this.post({ type: 'view', view, version: this.version });
    this.profiles.replay();
    return this.version;
  }

  /** Rows of the current view, as the grid fetches them. */
  rows(offset: number, limit: number): Promise<unknown[][]> {
    return this.read(offset, limit);
  }

  /**
   * Reads rows of the current view. `answer` (while the view is still current) tells the grid
   * in the same turn as the error is set or cleared, so the grid learns both in their order.
   */
  private async read(offset: number, limit: number, answer?: (rows: unknown[][] | undefined) => void): Promise<unknown[][]> {
    const source = this.source;
    if (!source) {
      // nothing to read (the source failed to open): the grid shows the failure, not a wait
      answer?.([]);
      return [];
    }
    const version = this.version;
    try {
      const rows = await source.page(engineView(this.view), offset, limit, this.reads.signal);
      if (version === this.version) {
        if (this.error !== undefined && this.countFailure !== 'lasting') this.setError(undefined);
        answer?.(rows);
        if (this.countFailure === 'passing') this.countRows();
      }
      return rows;
    } catch (err) {
      if (version === this.version) {
        if (!isCancellation(err)) this.setError(err);
        answer?.(undefined);
      }
      throw err;
    }
  }

  /**
   * Copies row `row` of the current view (or its cell in `column`) with its long values whole:
   * the grid has only their start. Each is read on its own, so no more than one is held at once
   * beside the text copied.
   */
  private async copyWhole(row: number, column: number | undefined): Promise<void> {
    const source = this.source;
    if (!source) return;
    const view = engineView(this.view);
    const signal = this.reads.signal;
    if (column !== undefined) {
      this.host.copy(cellText(await source.cell(view, row, column, signal)));
      return;
    }
    const [values] = await source.page(view, row, 1, signal);
    if (!values) return;
    for (const [i, value] of values.entries()) {
      if (isCutValue(value)) values[i] = await source.cell(view, row, i, signal);
    }
    // in the grid's order of columns, as the grid copies a row it holds whole
    this.host.copy(rowTsv(inDisplayOrder(values, displayOrder(source.columns))));
  }

  /** What an export reads: the current view of the current source. */
  exportTarget(): ExportSource | undefined {
    return this.source?.exportTarget(engineView(this.view));
  }

  /** The result files shown, when the grid shows files. */
  files(): RowSource['files'] {
    return this.source?.files;
  }

  async receive(data: unknown): Promise<void> {
    const message = parseToHost(data);
    if (!message) {
      this.logger.debug('The preview ignored a malformed message from its webview.');
      return;
    }
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.sendInit();
        break;
      case 'fetch': {
        if (message.version !== this.version) return;
        const { version, offset } = message;
        const answer = (rows: unknown[][] | undefined): void => {
          this.post(rows ? { type: 'rows', version, offset, rows } : { type: 'rowsFailed', version, offset });
          if (!rows && offset === 0) this.profiles.unreadable(version);
        };
        await this.read(offset, message.limit, answer).catch(() => undefined);
        break;
      }
      case 'setView':
        this.setView(message.view);
        break;
      case 'shown':
        this.shown = { version: message.version, firstRow: message.firstRow, rows: message.rows };
        this.settleWaiters();
        this.profiles.shown(message.version);
        break;
      case 'profileAgain':
        this.profiles.again(message.version);
        break;
      case 'copy':
        this.host.copy(message.text);
        break;
      case 'copyWhole':
        if (message.version !== this.version) return;
        await this.copyWhole(message.row, message.column).catch((err: unknown) => {
          if (!isCancellation(err)) this.setError(err);
        });
        break;
      case 'export':
        this.host.export();
        break;
      case 'chart':
        this.host.chart?.();
        break;
    }
  }

  /** The column profiles setting changed: the strips come or go. */
  columnProfilesChanged(): void {
    this.profiles.settingChanged();
  }

  dispose(): void {
    this.profiles.dispose();
    this.reads.abort();
    this.settleWaiters(true);
    this.closeSource(this.source);
    this.source = undefined;
  }

  private closeSource(source: RowSource | undefined): void {
    void source?.close().catch((err: unknown) => this.logger.debug(`Closing a preview source failed: ${String(err)}`));
  }

  private startVersion(): void {
    this.reads.abort();
    this.reads = new AbortController();
    this.version += 1;
    this.total = undefined;
    if (this.error !== undefined) this.setError(undefined);
    this.profiles.follow(this.version, this.source, this.view);
    this.countRows();
    this.host.viewChanged?.();
  }

  private countRows(): void {
    this.countFailure = undefined;
    const source = this.source;
    if (!source) return;
    const version = this.version;
    source.count(engineView(this.view), this.reads.signal).then(
      (total) => {
        if (total === undefined || version !== this.version) return;
        this.total = total;
        this.post({ type: 'count', version, total });
        this.settleWaiters();
      },
      (err: unknown) => {
        if (version !== this.version || isCancellation(err)) return;
        // only a restarted engine is likely to count now; damage, memory or a mistake would fail again
        this.countFailure = errorKind(err) === 'crashed' ? 'passing' : 'lasting';
        this.setError(err);
      },
    );
  }

  private sendInit(): void {
    if (!this.source) {
      // no rows to show: the grid keeps only the title and the failure
      const { view, ...origin } = this.origin;
      this.post({ type: 'empty', title: this.title, version: this.version, ...(Object.keys(origin).length > 0 ? { origin } : {}), ...(view ? { view } : {}) });
      if (this.error !== undefined) this.post({ type: 'error', message: this.error });
      return;
    }
    const origin = this.origin.files ? { origin: this.origin } : {};
    this.post({ type: 'init', title: this.title, columns: this.source.columns, canShape: this.source.canShape, view: this.view, version: this.version, ...origin });
    this.profiles.replay();
    if (this.total !== undefined) this.post({ type: 'count', version: this.version, total: this.total });
    if (this.error !== undefined) this.post({ type: 'error', message: this.error });
  }

  private setError(err: unknown): void {
    this.error = err === undefined ? undefined : messageOf(err);
    this.post({ type: 'error', message: this.error });
    if (this.error === undefined) return;
    this.logger.warn(`Preview of ${this.title}: ${this.error}`);
    this.settleWaiters();
  }

  private settleWaiters(all = false): void {
    const state = this.state();
    const due = this.waiters.filter((w) => all || w.condition(state));
    for (const waiter of due) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.done();
    }
  }

  private post(message: ToWebview): void {
    if (this.ready) this.host.post(message);
  }
}

/** The failure as the grid shows it: its message, and what to do when that is said apart (a DqError's hint). */
function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const hint = (err as { hint?: unknown }).hint;
  return typeof hint === 'string' && hint && !err.message.includes(hint) ? `${err.message} ${hint}` : err.message;
}

function errorKind(err: unknown): string | undefined {
  const kind = (err as { kind?: unknown } | undefined)?.kind;
  return typeof kind === 'string' ? kind : undefined;
}
