// The row of profile strips under the preview grid's column headers: per column a bar of its
// share of NULLs and a sparkline of its values (profileText.ts), drawn from the profiles the
// extension sends as the engine finishes each column. Profiles of another version of the view
// than the grid's are dropped; a view of other rows shows "…" in every strip until its own
// profiles come (a view that only sorts differently keeps them). A failed profile is one quiet
// note in place of the strips, with Try again. The strips are one stop of the Tab order (Left
// and Right move between them); hovering one shows its summary, a click or Enter (or Space)
// opens the column's popup (profilePopup.ts).

import type { ColumnProfile } from '../engine/engineProtocol';
import { el } from './dom';
import type { ToWebview, ViewState } from './previewProtocol';
import { ProfilePopup } from './profilePopup';
import { allDistinct, nullShare, profileKind, profileSummary, sameRows, sparkline, waitingText } from './profileText';

export interface StripHooks {
  /** the row of strips appeared or went: the header changed height */
  resized(): void;
  /** the user asked for the profile of `version` again, after it failed */
  again(version: number): void;
}

export class ProfileStrips {
  readonly row = el('div', 'row profiles');
  private names: string[] = [];
  private cells: HTMLElement[] = [];
  private readonly note = el('div', 'profile-note');
  private readonly noteText = el('span');
  private version = -1;
  private view: ViewState | undefined;
  private state: 'off' | 'waiting' | 'failed' = 'off';
  private rows: number | undefined;
  private readonly done = new Map<string, ColumnProfile>();
  /** the strip the keyboard reaches the row at */
  private focusAt = 0;
  private readonly popup = new ProfilePopup();

  constructor(private readonly hooks: StripHooks) {
    this.row.hidden = true;
    this.note.setAttribute('role', 'status');
    const again = el('button', 'again', 'Try again');
    again.addEventListener('click', () => this.hooks.again(this.version));
    this.note.append(this.noteText, again);
  }

  /** A new result's columns, in the order shown: a strip each, hidden until the extension says a profile comes. */
  showColumns(names: string[]): void {
    this.names = names;
    this.view = undefined;
    this.done.clear();
    this.rows = undefined;
    this.popup.close(false);
    this.focusAt = Math.min(this.focusAt, Math.max(0, names.length - 1));
    this.cells = names.map((_name, i) => this.strip(i));
    this.row.replaceChildren(el('div', 'cell gutter'), ...this.cells, this.note);
    this.setState('off');
  }

  /** The grid shows `version` of its view: strips of other rows than before wait for their new profile. */
  showView(view: ViewState, version: number): void {
    const same = this.view !== undefined && sameRows(this.view, view);
    this.view = view;
    this.version = version;
    if (same) return;
    this.done.clear();
    this.rows = undefined;
    this.popup.close(false);
    this.setState(this.state === 'off' ? 'off' : 'waiting');
  }

  /** A message from the extension: those about profiles of the grid's version are taken, the others left. */
  receive(message: ToWebview): void {
    switch (message.type) {
      case 'profileState':
        if (message.version !== this.version) return;
        if (message.state === 'off') this.done.clear();
        this.rows = message.rows;
        this.setState(message.state);
        break;
      case 'profileColumn': {
        if (message.version !== this.version || this.state === 'off') return;
        this.done.set(message.column.name, message.column);
        const i = this.names.indexOf(message.column.name);
        if (i >= 0) this.fill(i);
        break;
      }
      case 'profileFailed':
        if (message.version !== this.version) return;
        this.noteText.textContent = `${message.message} `;
        this.setState('failed');
        break;
    }
  }

  private setState(state: 'off' | 'waiting' | 'failed'): void {
    const wasHidden = this.row.hidden;
    this.state = state;
    this.row.hidden = state === 'off';
    this.note.hidden = state !== 'failed';
    for (const cell of this.cells) cell.hidden = state === 'failed';
    if (state === 'failed') this.popup.close(false);
    this.cells.forEach((_cell, i) => this.fill(i));
    if (wasHidden !== this.row.hidden) this.hooks.resized();
  }

  private strip(i: number): HTMLElement {
    const cell = el('div', 'cell profile');
    cell.setAttribute('role', 'button');
    cell.tabIndex = i === this.focusAt ? 0 : -1;
    cell.addEventListener('click', () => this.open(i));
    cell.addEventListener('focus', () => this.tabTo(i));
    cell.addEventListener('keydown', (e) => this.onKey(e, i));
    return cell;
  }

  /** Draws strip `i`: its profile, or that it is on its way. */
  private fill(i: number): void {
    const cell = this.cells[i];
    const name = this.names[i];
    const profile = this.done.get(name);
    cell.replaceChildren();
    cell.classList.toggle('waiting', !profile);
    if (!profile) {
      cell.textContent = '…';
      cell.title = waitingText(this.rows);
      cell.setAttribute('aria-label', `Profile of ${name}: ${waitingText(this.rows)}`);
      cell.setAttribute('aria-disabled', 'true');
      return;
    }
    const share = nullShare(profile);
    const nulls = el('div', 'nulls');
    const nullFill = el('div', 'fill');
    nullFill.style.width = share > 0 ? `max(2px, ${share * 100}%)` : '0';
    nulls.append(nullFill);
    const spark = el('div', `spark ${profileKind(profile)}`);
    const bars = allDistinct(profile) ? [] : sparkline(profile);
    if (allDistinct(profile)) spark.append(el('span', 'unique', 'all distinct'));
    for (const bar of bars) {
      const b = el('div', 'bar');
      b.style.height = bar.height > 0 ? `max(1px, ${bar.height * 100}%)` : '0';
      spark.append(b);
    }
    cell.append(nulls, spark);
    const summary = profileSummary(profile);
    cell.title = `${name}\n${summary}\nClick or Enter: the whole profile`;
    cell.setAttribute('aria-label', `Profile of ${name}: ${summary.replace(/\n/g, '. ')}`);
    cell.removeAttribute('aria-disabled');
  }

  /** Opens strip `i`'s popup (or closes it, when it shows that column already). */
  private open(i: number): void {
    const profile = this.done.get(this.names[i]);
    if (!profile) return;
    if (this.popup.shows() === profile.name) this.popup.close(true);
    else this.popup.open(profile, this.cells[i]);
  }

  private onKey(e: KeyboardEvent, i: number): void {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.open(i);
      return;
    }
    const last = this.cells.length - 1;
    const to = ({ ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: last } as Record<string, number | undefined>)[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.cells[Math.min(Math.max(0, to), last)]?.focus();
  }

  /** The strip last focused is the one Tab reaches the row at. */
  private tabTo(i: number): void {
    this.cells.forEach((cell, j) => (cell.tabIndex = j === i ? 0 : -1));
    this.focusAt = i;
  }
}
