// A column's whole profile in a popup beside its strip: rows, values, NULLs, distinct values
// ("≈" when estimated), the range (earliest and latest for times), mean and quartiles for
// numbers, the most common values with their counts, and the histogram. Escape, the close
// button or a click elsewhere closes it; Escape and the button give the focus back to the
// strip it was opened from. Texts come from profileText.ts.

import type { ColumnProfile } from '../engine/engineProtocol';
import { el } from './dom';
import { histogramBars, profileFigures, topValues, VALUE_CHARS, valueText } from './profileText';

/** The gap between the strip and the popup, and between the popup and the window's edge, in pixels. */
const MARGIN_PX = 4;

export class ProfilePopup {
  private readonly box = el('div', 'profile-popup');
  /** the strip the popup was opened from, which gets the focus back */
  private opener: HTMLElement | undefined;
  /** the column shown, while open */
  private column: string | undefined;

  constructor() {
    this.box.setAttribute('role', 'dialog');
    this.box.tabIndex = -1;
    this.box.hidden = true;
    this.box.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      // the popup's own: not the grid's Escape (which cancels a view on its way)
      e.preventDefault();
      e.stopPropagation();
      this.close(true);
    });
    document.addEventListener('mousedown', (e) => {
      if (this.box.hidden) return;
      const target = e.target as Node;
      if (!this.box.contains(target) && !this.opener?.contains(target)) this.close(false);
    });
    document.body.append(this.box);
  }

  /** The name of the column shown, while the popup is open. */
  shows(): string | undefined {
    return this.box.hidden ? undefined : this.column;
  }

  open(profile: ColumnProfile, opener: HTMLElement): void {
    this.opener = opener;
    this.column = profile.name;
    this.box.setAttribute('aria-label', `Profile of ${profile.name}`);
    this.box.replaceChildren(this.head(profile), this.figures(profile), ...this.topList(profile), ...this.histogram(profile));
    this.box.hidden = false;
    this.place(opener);
    this.box.focus();
  }

  /** Closes the popup; with `refocus`, the focus goes back to the strip it was opened from. */
  close(refocus: boolean): void {
    if (this.box.hidden) return;
    const hadFocus = this.box.contains(document.activeElement);
    this.box.hidden = true;
    this.column = undefined;
    if ((refocus || hadFocus) && this.opener?.isConnected) this.opener.focus();
  }

  private head(profile: ColumnProfile): HTMLElement {
    const head = el('div', 'popup-head');
    const close = el('button', 'close', '×');
    close.setAttribute('aria-label', 'Close');
    close.title = 'Close (Escape)';
    close.addEventListener('click', () => this.close(true));
    head.append(el('span', 'name', profile.name), el('span', 'type', profile.type), close);
    return head;
  }

  private figures(profile: ColumnProfile): HTMLElement {
    const list = el('dl', 'figures');
    for (const figure of profileFigures(profile)) list.append(el('dt', undefined, figure.label), el('dd', undefined, figure.value));
    return list;
  }

  private topList(profile: ColumnProfile): HTMLElement[] {
    const values = topValues(profile);
    if (values.length === 0) return [];
    const table = el('table', 'top');
    table.setAttribute('aria-label', 'Most common values');
    for (const [i, top] of values.entries()) {
      const row = el('tr');
      const value = el('td', 'value', top.value);
      const whole = profile.top?.[i]?.value;
      if (typeof whole === 'string' && whole.length > VALUE_CHARS) value.title = whole;
      const bar = el('div', 'bar');
      bar.style.width = `${Math.max(top.share * 100, top.share > 0 ? 1 : 0)}%`;
      const share = el('td', 'share');
      share.append(bar);
      row.append(value, el('td', 'count', top.count), share);
      table.append(row);
    }
    return [el('h3', undefined, 'Most common values'), table];
  }

  private histogram(profile: ColumnProfile): HTMLElement[] {
    const bars = histogramBars(profile);
    if (bars.length === 0) return [];
    const chart = el('div', 'histogram');
    chart.setAttribute('role', 'img');
    const first = profile.histogram?.[0];
    const last = profile.histogram?.[profile.histogram.length - 1];
    chart.setAttribute('aria-label', `Histogram: ${bars.length} buckets from ${valueText(first?.from)} to ${valueText(last?.to)}. ${bars.map((b) => b.label).join('; ')}`);
    for (const bar of bars) {
      const column = el('div', 'bar');
      column.style.height = `${bar.count > 0 ? Math.max(bar.height * 100, 2) : 0}%`;
      column.title = bar.label;
      chart.append(column);
    }
    const axis = el('div', 'axis');
    // the least and greatest value (the last bucket of whole numbers ends past the greatest)
    axis.append(el('span', undefined, valueText(profile.min)), el('span', undefined, valueText(profile.max)));
    return [el('h3', undefined, 'Histogram'), chart, axis];
  }

  /** Under the strip, inside the window (above it when there is no room below). */
  private place(opener: HTMLElement): void {
    const strip = opener.getBoundingClientRect();
    const width = this.box.offsetWidth;
    const height = this.box.offsetHeight;
    const left = Math.max(MARGIN_PX, Math.min(strip.left, window.innerWidth - width - MARGIN_PX));
    const below = strip.bottom + MARGIN_PX;
    const top = below + height <= window.innerHeight - MARGIN_PX ? below : Math.max(MARGIN_PX, window.innerHeight - height - MARGIN_PX);
    this.box.style.left = `${left}px`;
    this.box.style.top = `${top}px`;
  }
}
