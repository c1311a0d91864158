// The preview grid, running in the webview: a header with names, types and descriptions, a
// filter row, a WHERE box, and a virtual body that shows only the rows on screen, fetched in
// windows from the extension. The scrollbar spans every row (scaled beyond a browser's
// limit); the wheel and the keys move by exact rows at any size. A column header sorts by
// click or by keyboard (Tab or Up from the first row reaches the headers, Left and Right move
// between them, Enter sorts, Shift adds to the sort, Down goes back to the rows). Rows whose
// read failed are asked for again when the user next moves, or once the engine answers again.
// "Go to" a row not read yet waits for the row count. Without a result (a statement failed)
// the grid shows only why. Columns show key columns first and `meta.*` last (columnOrder.ts),
// each as wide as its header and the first rows' values need (columnWidths.ts), numbers
// right-aligned; rows keep the result's order, and a copied row follows the display. Under the
// headers, each column's profile over the whole view (profileStrip.ts).

import { BUSY_AFTER_MS, busyText, sameView } from './busyText';
import { cellText, holdsCutValue, hoverText, rowTsv, shownText } from './cellText';
import { displayOrder, inDisplayOrder } from './columnOrder';
import { columnWidths, isNumeric, typeLabel } from './columnWidths';
import { el } from './dom';
import { countingToText, goToRow } from './goToRow';
import { followCursor, moveCursor, type Cursor } from './gridCursor';
import type { ResultColumn } from '../engine/engineProtocol';
import type { PreviewOrigin, SavedPreview } from './previewOrigin';
import { EMPTY_VIEW, WINDOW_ROWS, type ToHost, type ToWebview, type ViewState } from './previewProtocol';
import { ProfileStrips } from './profileStrip';
import { RowWindows } from './rowWindows';
import { contentHeight, lastFirstRow, rowAtScroll, scrollForRow, type ScrollGeometry } from './scrollGeometry';
import { takesAppliedText } from './viewInputs';

interface VsCodeApi {
  postMessage(message: ToHost): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const ROW_HEIGHT = 24;
const KEEP_WINDOWS = 10;
const MAX_SCROLL_PX = 8_000_000;

/** The page's state: where it was in the rows, and what a reload of the window opens again (previewOrigin.ts). */
interface SavedState extends SavedPreview {
  version: number;
  firstRow: number;
  cursor: Cursor;
}

/** A cell's padding and border beside its text, in pixels (preview.css). */
const CELL_CHROME_PX = 13;

class PreviewGrid {
  /** the result's columns in the order shown */
  private columns: ResultColumn[] = [];
  /** for each column shown, its place in the result (and in each row) */
  private order: number[] = [];
  /** the columns shown that hold numbers */
  private numeric: boolean[] = [];
  /** the columns were sized to the result's first rows */
  private sized = false;
  private canShape = true;
  private version = 0;
  private view: ViewState = { sort: [], filters: {}, where: '' };
  private readonly windows = new RowWindows(WINDOW_ROWS, KEEP_WINDOWS);
  private total: number | undefined;
  private firstRow = 0;
  private cursor: Cursor = { row: 0, column: 0 };
  private rowSelected = false;
  private shownVersion = -1;
  private expectedScrollTop = 0;
  private wheelRemainder = 0;
  private viewportRows = 1;
  /** the view whose rows were last painted in full: what Cancel goes back to */
  private shownView: ViewState | undefined;
  /** when the rows on screen started waiting, while they wait */
  private waitingSince: number | undefined;
  private busyTimer: ReturnType<typeof setInterval> | undefined;
  /** the current view failed: its rows will not come */
  private failed = false;
  /** no result to show (it could not be opened, or the statement failed): no rows, nothing to export */
  private empty = false;
  /** a "Go to" row beyond the rows read so far, gone to once the count arrives */
  private pendingRow: number | undefined;
  /** the files shown (none for a statement's rows), and the view a grid that could not open them again was in */
  private origin: PreviewOrigin & { view?: ViewState } = {};

  private readonly title = el('span', 'title');
  private readonly where = el('input', 'where');
  private readonly jump = el('input', 'jump');
  private readonly status = el('span', 'status');
  private readonly cancel = el('button', 'cancel', 'Cancel');
  private readonly exportButton = el('button', 'export', 'Export…');
  private readonly chartButton = el('button', 'chart', 'Chart…');
  private readonly error = el('div', 'error');
  private readonly scroller = el('div', 'scroller');
  private readonly header = el('div', 'header');
  private readonly headRow = el('div', 'row head');
  /** the header the keyboard reaches the headers at (the one in the tab order) */
  private headFocus = 0;
  private readonly filterRow = el('div', 'row filters');
  /** each column's profile under its header (profileStrip.ts) */
  private readonly strips = new ProfileStrips({ resized: () => this.layout(), again: (version) => this.vscode.postMessage({ type: 'profileAgain', version }) });
  private readonly body = el('div', 'body');
  private readonly spacer = el('div', 'spacer');
  private rowElements: HTMLDivElement[] = [];

  constructor(private readonly vscode: VsCodeApi) {
    this.buildFrame();
    window.addEventListener('message', (e: MessageEvent<ToWebview>) => this.receive(e.data));
    window.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.cancelTarget()) {
        e.preventDefault();
        this.cancelView();
      }
    });
    new ResizeObserver(() => this.layout()).observe(this.scroller);
    this.vscode.postMessage({ type: 'ready' });
  }

  private buildFrame(): void {
    const toolbar = el('div', 'toolbar');
    this.where.placeholder = 'SQL condition over the whole result, e.g. "value.score" > 90 (Enter applies)';
    this.where.setAttribute('aria-label', 'WHERE');
    this.where.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') this.requestView({ ...this.view, where: this.where.value });
    });
    this.jump.type = 'number';
    this.jump.min = '1';
    this.jump.placeholder = 'row';
    this.jump.setAttribute('aria-label', 'Go to row');
    this.jump.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' || !this.jump.value || this.empty) return;
      // past the last row goes to the last row; beyond the rows read so far, once the count says where that is
      const target = goToRow(Number(this.jump.value) - 1, this.total, this.windows.known());
      this.pendingRow = undefined;
      if ('row' in target) this.goTo(target.row);
      else this.pendingRow = target.afterCount;
      this.scroller.focus();
      this.showStatus();
    });
    this.exportButton.addEventListener('click', () => this.vscode.postMessage({ type: 'export' }));
    this.chartButton.addEventListener('click', () => this.vscode.postMessage({ type: 'chart' }));
    this.status.setAttribute('role', 'status');
    this.cancel.title = 'Stop this sort or filter and go back to the rows shown before (Escape)';
    this.cancel.hidden = true;
    this.cancel.addEventListener('click', () => this.cancelView());
    toolbar.append(this.title, el('label', 'label', 'WHERE'), this.where, el('label', 'label', 'Go to'), this.jump, this.status, this.cancel, this.chartButton, this.exportButton);

    this.error.setAttribute('role', 'alert');
    this.error.hidden = true;
    this.headRow.setAttribute('role', 'row');
    this.header.append(this.headRow, this.strips.row, this.filterRow);
    this.scroller.tabIndex = 0;
    this.scroller.setAttribute('role', 'grid');
    this.scroller.append(this.header, this.body, this.spacer);
    this.scroller.addEventListener('scroll', () => this.onScroll());
    this.scroller.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    this.scroller.addEventListener('keydown', (e) => this.onKey(e));
    this.body.addEventListener('mousedown', (e) => this.onClick(e));
    document.body.append(toolbar, this.error, this.scroller);
  }

  private receive(message: ToWebview): void {
    this.strips.receive(message);
    switch (message.type) {
      case 'init':
        this.origin = message.origin ?? {};
        this.showResult(message.title, message.columns, message.canShape, false);
        this.applyView(message.view, message.version, { saved: this.savedState(message.version), newResult: true });
        break;
      case 'empty':
        this.origin = { ...message.origin, ...(message.view ? { view: message.view } : {}) };
        this.showResult(message.title, [], false, true);
        this.applyView(EMPTY_VIEW, message.version, { newResult: true });
        break;
      case 'view':
        this.applyView(message.view, message.version);
        break;
      case 'rows':
        if (message.version !== this.version) return;
        this.windows.received(message.offset, message.rows);
        if (!this.sized) this.sizeColumns(message.rows);
        this.layout();
        this.goToPendingRow();
        break;
      case 'rowsFailed':
        if (message.version !== this.version) return;
        this.windows.failed(message.offset);
        this.render();
        break;
      case 'count':
        if (message.version !== this.version) return;
        this.total = message.total;
        this.layout();
        this.goToPendingRow();
        break;
      case 'error':
        this.showError(message.message);
        this.failed = message.message !== undefined;
        // a row asked for before the count is not gone to later, out of the blue: the error says why it was not
        if (this.failed) this.pendingRow = undefined;
        // the engine answered again: rows that failed before may come now
        if (!this.failed) this.windows.retry();
        this.render();
        break;
    }
  }

  /** The message's first line as text; DuckDB's pointers into the SQL after it, in the editor's font so a caret lines up. */
  private showError(message: string | undefined): void {
    const [first, ...details] = (message ?? '').split('\n');
    this.error.replaceChildren(first);
    if (details.length > 0) this.error.append(el('div', 'detail', details.join('\n')));
    this.error.hidden = message === undefined;
  }

  /** A new result (or none): its title and columns, and what the toolbar offers for it. */
  private showResult(title: string, columns: ResultColumn[], canShape: boolean, empty: boolean): void {
    this.title.textContent = title;
    this.order = displayOrder(columns);
    this.columns = inDisplayOrder(columns, this.order);
    this.numeric = this.columns.map(isNumeric);
    this.canShape = canShape;
    this.empty = empty;
    this.exportButton.disabled = empty;
    this.chartButton.disabled = empty;
    this.jump.disabled = empty;
    // no header or rows of the result shown before: only the message
    this.scroller.hidden = empty;
    this.buildColumns();
  }

  private savedState(version: number): SavedState | undefined {
    const saved = this.vscode.getState() as SavedState | undefined;
    return saved?.version === version ? saved : undefined;
  }

  /** Sizes the columns to their headers and, once rows have come, to the first of them (once per result). */
  private sizeColumns(rows: readonly unknown[][]): void {
    this.sized = rows.length > 0;
    const widths = columnWidths(this.columns, rows.map((row) => inDisplayOrder(row, this.order)), this.canShape);
    this.scroller.style.setProperty('--columns', `var(--gutter-width) ${widths.map((ch) => `calc(${ch}ch + ${CELL_CHROME_PX}px)`).join(' ')}`);
  }

  private buildColumns(): void {
    this.sizeColumns([]);
    this.headFocus = Math.min(this.headFocus, Math.max(0, this.columns.length - 1));
    this.headRow.replaceChildren(el('div', 'cell gutter', '#'));
    this.filterRow.replaceChildren(el('div', 'cell gutter'));
    this.strips.showColumns(this.columns.map((c) => c.name));
    this.columns.forEach((column, index) => {
      const head = el('div', this.numeric[index] ? 'cell number' : 'cell');
      head.append(el('span', 'name', column.name), el('span', 'type', typeLabel(column)));
      const sorts = this.canShape ? 'Click or Enter sorts; with Shift, adds to the sort.' : '';
      head.title = [`${column.name}: ${column.type}${column.key ? ' (key)' : ''}`, column.description ?? '', sorts].filter(Boolean).join('\n');
      head.setAttribute('role', 'columnheader');
      if (this.canShape) {
        head.tabIndex = index === this.headFocus ? 0 : -1;
        head.addEventListener('click', (e) => this.toggleSort(index, e.shiftKey));
        head.addEventListener('keydown', (e) => this.onHeadKey(e, index));
        head.addEventListener('focus', () => this.tabToHead(index));
      }
      this.headRow.append(head);
      const filter = el('input', 'filter');
      filter.setAttribute('aria-label', `Filter ${column.name}`);
      filter.placeholder = 'filter';
      filter.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') this.requestView({ ...this.view, filters: { ...this.view.filters, [column.name]: filter.value } });
      });
      const cell = el('div', 'cell');
      cell.append(filter);
      this.filterRow.append(cell);
    });
    this.filterRow.hidden = !this.canShape;
    this.where.disabled = !this.canShape;
  }

  /** A header's keys: Enter (or Space) sorts as a click does, the arrows, Home and End move. */
  private onHeadKey(e: KeyboardEvent, index: number): void {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.toggleSort(index, e.shiftKey);
      return;
    }
    const last = this.columns.length - 1;
    const moves: Record<string, number | undefined> = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: last };
    const to = moves[e.key];
    if (to !== undefined) {
      e.preventDefault();
      this.focusHead(Math.min(Math.max(0, to), last));
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      this.cursor = { ...this.cursor, column: index };
      this.rowSelected = false;
      this.scroller.focus({ preventScroll: true });
      this.setFirstRow(followCursor(this.firstRow, this.cursor.row, this.viewportRows));
    }
  }

  private focusHead(index: number): void {
    this.headRow.querySelectorAll<HTMLElement>('.cell:not(.gutter)')[index]?.focus();
  }

  /** The header last focused is the one Tab reaches the headers at. */
  private tabToHead(index: number): void {
    this.headRow.querySelectorAll<HTMLElement>('.cell:not(.gutter)').forEach((head, i) => (head.tabIndex = i === index ? 0 : -1));
    this.headFocus = index;
  }

  private toggleSort(index: number, add: boolean): void {
    const column = this.columns[index].name;
    const current = this.view.sort.find((s) => s.column === column);
    const others = add ? this.view.sort.filter((s) => s.column !== column) : [];
    const next = !current ? [{ column, descending: false }] : current.descending ? [] : [{ column, descending: true }];
    this.requestView({ ...this.view, sort: [...others, ...next] });
  }

  private requestView(view: ViewState): void {
    this.vscode.postMessage({ type: 'setView', view });
  }

  /** The view a Cancel returns to: the one shown before, while a different one is still on its way. */
  private cancelTarget(): ViewState | undefined {
    const busy = this.waitingSince !== undefined && !this.failed;
    return busy && this.shownView && !sameView(this.shownView, this.view) ? this.shownView : undefined;
  }

  /** Goes back to the rows shown before; the host's new view stops the engine's work on this one. */
  private cancelView(): void {
    const target = this.cancelTarget();
    if (target) this.requestView(target);
  }

  /** Follows whether the rows on screen are waiting, and says so once they have waited a while. */
  private trackWaiting(complete: boolean): void {
    if (complete || this.failed) {
      if (complete) this.shownView = this.view;
      this.waitingSince = undefined;
      clearInterval(this.busyTimer);
      this.busyTimer = undefined;
    } else if (this.waitingSince === undefined) {
      this.waitingSince = Date.now();
      this.busyTimer = setInterval(() => this.showStatus(), BUSY_AFTER_MS);
    }
    this.showStatus();
  }

  private showStatus(): void {
    this.status.textContent = this.statusText();
    this.cancel.hidden = this.waitedEnough() === undefined || !this.cancelTarget();
  }

  /** How long the rows on screen have waited, once that is long enough to say. */
  private waitedEnough(): number | undefined {
    if (this.waitingSince === undefined || this.failed) return undefined;
    const waited = Date.now() - this.waitingSince;
    return waited >= BUSY_AFTER_MS ? waited : undefined;
  }

  /**
   * Shows a new view (of a new result with `newResult`). Its text goes into the WHERE and filter
   * boxes that it changed: what the user typed in the others, not applied yet, stays.
   */
  private applyView(view: ViewState, version: number, how: { saved?: SavedState; newResult?: boolean } = {}): void {
    const { saved, newResult = false } = how;
    const before = this.view;
    this.view = view;
    this.version = version;
    this.strips.showView(view, version);
    this.windows.clear();
    this.total = undefined;
    this.failed = false;
    this.pendingRow = undefined;
    this.cursor = saved?.cursor ?? { row: 0, column: this.cursor.column };
    this.firstRow = saved?.firstRow ?? 0;
    const fill = (input: HTMLInputElement, applied: (v: ViewState) => string): void => {
      const after = applied(view);
      if (newResult || takesAppliedText({ value: input.value, focused: document.activeElement === input }, applied(before), after)) input.value = after;
    };
    fill(this.where, (v) => v.where);
    this.filterRow.querySelectorAll('input').forEach((input, i) => {
      const name = this.columns[i].name;
      fill(input, (v) => v.filters[name] ?? '');
    });
    this.headRow.querySelectorAll<HTMLElement>('.cell:not(.gutter)').forEach((head, i) => {
      const sort = view.sort.find((s) => s.column === this.columns[i].name);
      if (this.canShape) head.setAttribute('aria-sort', !sort ? 'none' : sort.descending ? 'descending' : 'ascending');
      else head.removeAttribute('aria-sort');
    });
    this.layout();
    this.setFirstRow(this.firstRow);
  }

  private geometry(): ScrollGeometry {
    return { totalRows: this.totalRows(), rowHeight: ROW_HEIGHT, viewportRows: this.viewportRows, maxScrollPx: MAX_SCROLL_PX };
  }

  private totalRows(): number {
    if (this.empty) return 0;
    return this.total ?? this.windows.estimate().rows;
  }

  /** Sizes the body to the viewport and the spacer to the rows. */
  private layout(): void {
    const headerHeight = this.header.offsetHeight;
    this.scroller.style.setProperty('--header-height', `${headerHeight}px`);
    const available = this.scroller.clientHeight - headerHeight;
    const rows = Math.max(1, Math.floor(available / ROW_HEIGHT));
    if (rows !== this.rowElements.length) {
      this.rowElements = Array.from({ length: rows }, () => el('div', 'row'));
      this.body.replaceChildren(...this.rowElements);
    }
    this.viewportRows = rows;
    // the body fills the viewport, so the last scroll position is exactly the last row's
    this.body.style.height = `${Math.max(available, ROW_HEIGHT)}px`;
    const g = this.geometry();
    this.scroller.style.setProperty('--gutter-width', `calc(${g.totalRows.toLocaleString().length}ch + 16px)`);
    this.spacer.style.height = `${Math.max(0, contentHeight(g) - rows * ROW_HEIGHT)}px`;
    this.firstRow = Math.min(this.firstRow, lastFirstRow(g));
    this.render();
  }

  /** Puts the cursor on a row and that row on screen. */
  private goTo(row: number): void {
    this.cursor = { ...this.cursor, row };
    this.setFirstRow(row);
  }

  /** Goes to the row a "Go to" asked for before the count, once it is known where that row is. */
  private goToPendingRow(): void {
    if (this.pendingRow === undefined) return;
    const target = goToRow(this.pendingRow, this.total, this.windows.known());
    if (!('row' in target)) return;
    this.pendingRow = undefined;
    this.goTo(target.row);
  }

  private setFirstRow(row: number): void {
    this.windows.retry();
    const g = this.geometry();
    this.firstRow = Math.min(Math.max(0, row), lastFirstRow(g));
    this.expectedScrollTop = scrollForRow(this.firstRow, g);
    this.scroller.scrollTop = this.expectedScrollTop;
    this.render();
  }

  private onScroll(): void {
    if (Math.abs(this.scroller.scrollTop - this.expectedScrollTop) < 1) return;
    this.expectedScrollTop = this.scroller.scrollTop;
    this.pendingRow = undefined;
    this.firstRow = rowAtScroll(this.scroller.scrollTop, this.geometry());
    this.windows.retry();
    this.render();
  }

  private onWheel(e: WheelEvent): void {
    if (Math.abs(e.deltaY) <= Math.abs(e.deltaX)) return;
    e.preventDefault();
    const px = e.deltaMode === WheelEvent.DOM_DELTA_PIXEL ? e.deltaY : e.deltaY * ROW_HEIGHT * (e.deltaMode === WheelEvent.DOM_DELTA_PAGE ? this.viewportRows : 1);
    this.wheelRemainder += px;
    const rows = Math.trunc(this.wheelRemainder / ROW_HEIGHT);
    if (rows === 0) return;
    this.wheelRemainder -= rows * ROW_HEIGHT;
    this.pendingRow = undefined;
    this.setFirstRow(this.firstRow + rows);
  }

  private onKey(e: KeyboardEvent): void {
    if (e.target instanceof HTMLInputElement || this.header.contains(e.target as Node)) return;
    const ctrl = e.ctrlKey || e.metaKey;
    if (e.key === 'ArrowUp' && !ctrl && this.cursor.row === 0 && this.canShape && this.columns.length > 0) {
      e.preventDefault();
      this.focusHead(this.cursor.column);
      return;
    }
    if (ctrl && e.key.toLowerCase() === 'c') {
      e.preventDefault();
      this.copy();
      return;
    }
    if (e.key === ' ' && e.shiftKey && !ctrl) {
      // the row under the cursor, as a click on its number selects it (Ctrl+C copies it whole)
      e.preventDefault();
      this.rowSelected = true;
      this.render();
      return;
    }
    const next = moveCursor(this.cursor, { key: e.key, ctrl }, { rows: this.totalRows(), columns: this.columns.length, pageRows: this.viewportRows });
    if (!next) return;
    e.preventDefault();
    this.pendingRow = undefined;
    this.cursor = next;
    this.rowSelected = false;
    this.setFirstRow(followCursor(this.firstRow, next.row, this.viewportRows));
    this.revealCursorColumn();
  }

  /** Scrolls sideways so that the cursor's cell is in view (a wide result is wider than the panel). */
  private revealCursorColumn(): void {
    const cell = this.body.querySelector<HTMLElement>('.cell.cursor');
    if (!cell) return;
    const box = cell.getBoundingClientRect();
    const view = this.scroller.getBoundingClientRect();
    if (box.left < view.left) this.scroller.scrollLeft -= view.left - box.left;
    else if (box.right > view.right) this.scroller.scrollLeft += Math.min(box.right - view.right, box.left - view.left);
  }

  private onClick(e: MouseEvent): void {
    const cell = (e.target as HTMLElement).closest<HTMLElement>('.cell');
    const row = cell?.parentElement;
    if (!cell || !row) return;
    const rowIndex = this.firstRow + this.rowElements.indexOf(row as HTMLDivElement);
    const columnIndex = Array.prototype.indexOf.call(row.children, cell) - 1;
    this.rowSelected = columnIndex < 0;
    this.pendingRow = undefined;
    this.cursor = { row: rowIndex, column: Math.max(0, columnIndex) };
    this.windows.retry();
    this.render();
  }

  private copy(): void {
    const values = this.windows.row(this.cursor.row);
    if (!values) return;
    const row = inDisplayOrder(values, this.order);
    const copied = this.rowSelected ? row : [row[this.cursor.column]];
    // a long value here is only its start: the extension reads it whole from the engine (the column by its place in the result)
    if (holdsCutValue(copied)) {
      this.vscode.postMessage({ type: 'copyWhole', version: this.version, row: this.cursor.row, ...(this.rowSelected ? {} : { column: this.order[this.cursor.column] }) });
      return;
    }
    const text = this.rowSelected ? rowTsv(row) : cellText(row[this.cursor.column]);
    this.vscode.postMessage({ type: 'copy', text });
  }

  private render(): void {
    const total = this.totalRows();
    let complete = true;
    this.rowElements.forEach((rowElement, i) => {
      const index = this.firstRow + i;
      const values = index < total ? this.windows.row(index) : undefined;
      rowElement.hidden = index >= total;
      if (index < total && !values) complete = false;
      this.fillRow(rowElement, index, values);
    });
    for (const start of this.windows.wanted(this.firstRow, this.viewportRows, this.total)) {
      this.windows.requested(start);
      this.vscode.postMessage({ type: 'fetch', version: this.version, offset: start, limit: WINDOW_ROWS });
    }
    this.trackWaiting(complete);
    const kept = { title: this.title.textContent ?? '', ...this.origin, ...(this.empty ? {} : { view: this.view }) };
    this.vscode.setState({ ...kept, version: this.version, firstRow: this.firstRow, cursor: this.cursor } satisfies SavedState);
    if (complete && this.shownVersion !== this.version) {
      this.shownVersion = this.version;
      this.vscode.postMessage({ type: 'shown', version: this.version, firstRow: this.firstRow, rows: Math.max(0, Math.min(this.viewportRows, total - this.firstRow)) });
    }
  }

  private fillRow(rowElement: HTMLDivElement, index: number, values: unknown[] | undefined): void {
    const cells = this.columns.length + 1;
    while (rowElement.childElementCount < cells) rowElement.append(el('div', 'cell'));
    while (rowElement.childElementCount > cells) rowElement.lastElementChild?.remove();
    rowElement.classList.toggle('loading', !values);
    rowElement.classList.toggle('selected', this.rowSelected && index === this.cursor.row);
    const [gutter, ...valueCells] = Array.from(rowElement.children) as HTMLElement[];
    gutter.className = 'cell gutter';
    gutter.textContent = (index + 1).toLocaleString();
    valueCells.forEach((cell, c) => {
      const value = values?.[this.order[c]];
      cell.classList.toggle('number', this.numeric[c]);
      cell.textContent = values ? shownText(value) : '';
      cell.title = values ? hoverText(value) : '';
      cell.classList.toggle('null', values !== undefined && (value === null || value === undefined));
      cell.classList.toggle('cursor', index === this.cursor.row && c === this.cursor.column);
    });
  }

  private statusText(): string {
    if (this.empty) return '';
    if (this.pendingRow !== undefined) return countingToText(this.pendingRow);
    const waited = this.waitedEnough();
    if (waited !== undefined) return busyText(this.view, this.shownView, waited);
    if (this.total !== undefined) return `${this.total.toLocaleString()} rows`;
    const estimate = this.windows.estimate();
    return estimate.exact ? `${estimate.rows.toLocaleString()} rows` : 'counting rows…';
  }
}

new PreviewGrid(acquireVsCodeApi());
