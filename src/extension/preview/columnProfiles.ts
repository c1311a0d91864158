// The column profiles under a preview grid's headers, computed in the background: once the grid
// has painted the first rows of a version of its view, the engine profiles the whole view (its
// filters and WHERE in force, not the rows on screen), and each column's profile goes to the
// grid as soon as it is done, tagged with the version. A view with other rows (other filters or
// WHERE), another source or closing the panel cancels the profile running; a view that only
// sorts differently keeps it, since its rows are the same. A profile the engine stopped to
// restart for files elsewhere starts again on the new process, one stopped by a crash once
// more; any other failure is one quiet note in the grid.

import type { Logger } from '../../core/logger';
import { isYieldedToRestart } from '../../engine/engineClient';
import type { ColumnProfile } from '../../engine/engineProtocol';
import { engineView } from '../../webview/filterText';
import type { ToWebview, ViewState } from '../../webview/previewProtocol';
import { sameRows } from '../../webview/profileText';
import { isCancellation } from '../ui/cancellation';
import { describeFailure } from '../ui/describeFailure';
import type { RowSource } from './rowSource';

export interface ColumnProfilesHost {
  post(message: ToWebview): void;
  /** whether the grid shows column profiles (the setting) */
  enabled(): boolean;
}

/** One profile of one view's rows, from its start to its end. */
interface ProfileRun {
  readonly abort: AbortController;
  started: boolean;
  /** the columns done so far, in the order they came */
  readonly columns: ColumnProfile[];
  /** the result's rows copied so far, while the engine copies it before profiling */
  rows?: number;
  failure?: string;
  /** started again once already after the engine stopped under it */
  readonly again: boolean;
}

export class ColumnProfiles {
  private version = 0;
  private source: RowSource | undefined;
  private view: ViewState | undefined;
  /** the latest version the grid painted rows of */
  private shownVersion = -1;
  private run: ProfileRun | undefined;
  /** the grid could not read the current version's first rows: its strips are hidden until it can */
  private hidden = false;

  constructor(
    private readonly host: ColumnProfilesHost,
    private readonly logger: Logger,
  ) {}

  /**
   * The grid shows `version` now (a new view, or a new source). The profile running goes on
   * only when the rows are the same as before (a sort); otherwise it is cancelled, and the new
   * version's starts once the grid has painted its first rows. Posts nothing: `replay` does,
   * after the grid has learnt of the version.
   */
  follow(version: number, source: RowSource | undefined, view: ViewState): void {
    const keep = this.run !== undefined && source === this.source && this.view !== undefined && sameRows(this.view, view);
    this.version = version;
    this.hidden = false;
    if (keep) return;
    this.source = source;
    this.view = view;
    this.cancel();
    this.run = this.profiled() ? newRun(false) : undefined;
  }

  /** The grid painted the first rows of `version`: its profile starts, if it has not. */
  shown(version: number): void {
    this.shownVersion = Math.max(this.shownVersion, version);
    if (version === this.version && this.hidden) {
      this.hidden = false;
      this.replay();
    }
    if (version === this.version && this.run && !this.run.started) this.start(this.run);
  }

  /**
   * The first rows of `version` could not be read (a WHERE that fails, the engine gone): the
   * grid shows only the error, so no strips wait under its headers; they come back with its rows.
   */
  unreadable(version: number): void {
    if (version !== this.version || !this.run || this.run.started) return;
    this.hidden = true;
    this.host.post({ type: 'profileState', version, state: 'off' });
  }

  /** The user asked for the profile of `version` again, after it failed. */
  again(version: number): void {
    if (version !== this.version || this.run?.failure === undefined) return;
    this.run = newRun(false);
    this.replay();
    this.start(this.run);
  }

  /** The setting changed: the strips come (profiled now, if the rows are on screen) or go. */
  settingChanged(): void {
    if (this.profiled() === (this.run !== undefined)) return;
    this.cancel();
    this.run = this.profiled() ? newRun(false) : undefined;
    this.replay();
    if (this.run && this.shownVersion >= this.version) this.start(this.run);
  }

  /** Tells the grid everything about the current version's profile: whether it has one, what is done, or why it failed. */
  replay(): void {
    const run = this.run;
    if (!run || this.hidden) {
      this.host.post({ type: 'profileState', version: this.version, state: 'off' });
      return;
    }
    if (run.failure !== undefined) {
      this.host.post({ type: 'profileFailed', version: this.version, message: run.failure });
      return;
    }
    this.host.post({ type: 'profileState', version: this.version, state: 'waiting', ...(run.rows !== undefined ? { rows: run.rows } : {}) });
    for (const column of run.columns) this.host.post({ type: 'profileColumn', version: this.version, column });
  }

  dispose(): void {
    this.cancel();
    this.run = undefined;
    this.source = undefined;
  }

  /** Whether the current source's rows get a profile: the setting is on and the engine can profile them. */
  private profiled(): boolean {
    return this.source?.profile !== undefined && this.source.canShape && this.host.enabled();
  }

  private cancel(): void {
    this.run?.abort.abort();
  }

  private start(run: ProfileRun): void {
    const source = this.source;
    if (!source?.profile || !this.view || run.started) return;
    run.started = true;
    // the order of the rows makes no difference to a profile
    const view = { ...engineView(this.view), sort: undefined };
    const current = (): boolean => this.run === run && !run.abort.signal.aborted;
    source
      .profile(
        view,
        {
          onColumn: (column) => {
            if (!current()) return;
            run.columns.push(column);
            this.host.post({ type: 'profileColumn', version: this.version, column });
          },
          onRows: (rows) => {
            if (!current() || run.columns.length > 0) return;
            run.rows = rows;
            this.host.post({ type: 'profileState', version: this.version, state: 'waiting', rows });
          },
        },
        run.abort.signal,
      )
      .then(
        () => undefined,
        (err: unknown) => {
          if (!current() || isCancellation(err)) return;
          // stopped so that the engine could restart for files in another folder: again, on the new process
          if (isYieldedToRestart(err)) {
            this.run = newRun(run.again);
            this.replay();
            this.start(this.run);
            return;
          }
          // the engine stopped under the profile (restarted for another request, or crashed): once more from the start
          if (errorKind(err) === 'crashed' && !run.again) {
            this.logger.info(`Column profiles of ${source.title} start again: ${err instanceof Error ? err.message : String(err)}`);
            this.run = newRun(true);
            this.replay();
            this.start(this.run);
            return;
          }
          run.failure = describeFailure(err, { what: 'Column profiles' }).label;
          this.logger.warn(`Preview of ${source.title}: ${run.failure}`);
          this.host.post({ type: 'profileFailed', version: this.version, message: run.failure });
        },
      );
  }
}

function newRun(again: boolean): ProfileRun {
  return { abort: new AbortController(), started: false, columns: [], again };
}

function errorKind(err: unknown): string | undefined {
  const kind = (err as { kind?: unknown } | undefined)?.kind;
  return typeof kind === 'string' ? kind : undefined;
}
