// The result preview as a person uses it in the workbench: a query of the sample logs table,
// Preview from the completion notification and from the Jobs view, the grid's first rows and
// row count, a sort (by mouse and by keyboard), a jump far down and a scroll, a column filter
// (text typed in the other boxes, not applied yet, stays), and a statement run in the SQL
// console; one that fails shows its error in place of the rows before it. The downloaded file, read here, is the reference for
// what the grid shows. In the SQL console also: a statement that runs long offers Cancel in a
// notification and stops when it is chosen. And rows whose read failed (the engine process
// held still, then stopped) are read again when the user next moves. The grid's Export… button
// writes the file chosen in the save dialog; a write that fails names that file, and an export
// cancelled from its notification is not reported as an error.
// Screenshots of each step go to test-results/ (the grid's also serves docs/preview.md).

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { screenshot } from '../harness/browser';
import { pickStep, previewFromJobRow, queryTableToCompletion } from '../harness/jobSteps';
import { downloadedRecords } from '../harness/downloadedRecords';
import { workbenchSuite } from '../harness/uiSuite';
import { until, webviewWith } from '../harness/webviews';
import { notificationWith, runPaletteCommand } from '../harness/workbench';
import { parseCsv } from '../../support/csvRows';

const SAMPLE = 'Sample data';
const JOB = 'canvas_logs.web_logs';

interface WebLog {
  key: { id: string };
  value: { http_status: number };
}

interface GridRow {
  /** the row number in the gutter, 1-based */
  n: number;
  cells: string[];
}

/** The rows the grid has painted, top to bottom (rows still loading are left out). */
async function paintedRows(grid: FrameLocator): Promise<GridRow[]> {
  return grid.locator('.body .row:not([hidden]):not(.loading)').evaluateAll((rows) =>
    rows.map((row) => {
      const [gutter, ...cells] = Array.from(row.children).map((c) => c.textContent ?? '');
      return { n: Number(gutter.replace(/\D/g, '')), cells };
    }),
  );
}

async function columnIndex(grid: FrameLocator, name: string): Promise<number> {
  const names = await grid.locator('.row.head .cell:not(.gutter) .name').allInnerTexts();
  const index = names.indexOf(name);
  assert.ok(index >= 0, `the grid has a column ${name}: ${names.join(', ')}`);
  return index;
}

async function statusText(grid: FrameLocator): Promise<string> {
  return grid.locator('.toolbar .status').innerText();
}

/** The engine process of the extension served from `root` (its command line names the installed extension there). */
function enginePid(root: string): number {
  const pids = execFileSync('pgrep', ['-f', 'engineHost.js'], { encoding: 'utf8' }).trim().split('\n').map(Number);
  const ours = pids.filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(root);
    } catch {
      return false;
    }
  });
  assert.equal(ours.length, 1, `one engine process of this workbench: ${ours.join(', ')}`);
  return ours[0];
}

/** Scrolls a narrow grid's page back to its left edge, where the "Go to" box moved it from, for a screenshot. */
async function scrollToStart(grid: FrameLocator): Promise<void> {
  await grid.locator('body').evaluate((body) => body.ownerDocument.defaultView?.scrollTo(0, 0));
}

/** Rests the pointer on an empty part of the side bar: no hover in the grid, no click in it. */
async function restPointer(page: Page): Promise<void> {
  await page.mouse.move(200, 380);
}

/** Each record as `key.id|value.http_status`, sorted: a result's rows whatever their order. */
function idsAndStatuses(records: WebLog[]): string[] {
  return records.map((r) => `${r.key.id}|${r.value.http_status}`).sort();
}

/** How long the save dialog is given to answer an Enter before it is pressed again. */
const SAVE_DIALOG_STEP_MS = 5_000;

function rowCount(n: number): string {
  return `${n.toLocaleString('en-US')} rows`;
}

describe('Result preview in the VS Code workbench', function () {
  this.timeout(300_000);
  const workbench = workbenchSuite('preview-ui', { 'dataQuery.connections': [{ name: SAMPLE, sample: true }] });
  let records: WebLog[];

  async function closeAllEditors(page: Page): Promise<void> {
    await runPaletteCommand(page, 'View: Close All Editors');
    // a SQL console with statements typed into it asks whether to save them: it need not
    const dontSave = page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Don\'t Save' });
    const open = async (): Promise<number> => {
      if (await dontSave.isVisible()) await dontSave.click();
      return (await page.locator('iframe.webview').count()) + (await page.locator('.editor-group-container .tab').count());
    };
    await until(page, 'every editor and webview closed', open, (n) => n === 0);
  }

  /**
   * Opens a new SQL console, types `statement` into it and runs it with the Run lens above it
   * (the console's first lines are comments, so the only lens is the statement's).
   */
  async function runInNewConsole(page: Page, statement: string): Promise<void> {
    await closeAllEditors(page);
    await runPaletteCommand(page, 'Data Query: Open SQL Console');
    const editor = page.locator('.editor-group-container .monaco-editor').first();
    await editor.locator('.view-line', { hasText: 'Data Query SQL console' }).first().waitFor();
    await page.keyboard.press('Control+End'); // below the console's first lines
    await page.keyboard.insertText(statement);
    await page.keyboard.press('Escape'); // no completion list in the way
    await editor.locator('.codelens-decoration a', { hasText: 'Run' }).first().click();
  }

  async function previewFromJobsView(page: Page): Promise<FrameLocator> {
    await closeAllEditors(page);
    return previewFromJobRow(page, JOB);
  }

  /**
   * Presses the grid's Export… button, takes CSV and types `file` into the save dialog as a
   * person would. The dialog's first Enter may only go to the folder typed: then Enter again. A
   * folder that does not exist is asked about first, and OK goes on with it.
   */
  async function exportFromGrid(page: Page, grid: FrameLocator, file: string): Promise<void> {
    await grid.locator('.toolbar button.export').click();
    await pickStep(page, 'Export format', 'CSV');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Export result' }).waitFor();
    // the dialog fills in its own first answer, and selects its file name, a moment after it shows:
    // typing before that mixes the two, so the path is typed once that answer is in, and again if mixed
    const input = page.locator('.quick-input-widget input').first();
    await until(page, 'the save dialog\'s first answer', () => input.inputValue(), (value) => value.endsWith(`${JOB}.csv`));
    const typed = async (): Promise<string> => {
      if ((await input.inputValue()) !== file) await input.fill(file);
      return input.inputValue();
    };
    await until(page, 'the path typed into the save dialog', typed, (value) => value === file);
    const widget = page.locator('.quick-input-widget');
    const asked = page.locator('.quick-input-widget .quick-input-title', { hasText: 'does not exist' });
    const answer = async (): Promise<string> => ((await asked.isVisible()) ? 'asked' : (await widget.isVisible()) ? 'open' : 'closed');
    for (let attempt = 1; ; attempt++) {
      // on the dialog's input itself: a webview that took the focus back would take the key
      if (await input.isVisible()) await input.press('Enter');
      else await page.keyboard.press('Enter');
      const state = await until(page, 'the save dialog answered', answer, (s) => s !== 'open', attempt < 3 ? SAVE_DIALOG_STEP_MS : undefined).catch((err: unknown) => {
        if (attempt >= 3) throw err;
        return 'open';
      });
      if (state === 'closed') return;
      if (state === 'asked') {
        await page.keyboard.press('Enter');
        await widget.waitFor({ state: 'hidden' });
        return;
      }
    }
  }

  /** Clears the notifications from the palette; resolves once the palette and every toast are gone. */
  async function clearNotifications(page: Page): Promise<void> {
    await runPaletteCommand(page, 'Notifications: Clear All Notifications');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    await until(page, 'no notification shown', () => page.locator('.notifications-toasts .notification-list-item').count(), (n) => n === 0);
  }

  /** The error notifications shown now, by their text. */
  async function errorToasts(page: Page): Promise<string[]> {
    return page.locator('.notifications-toasts .notification-list-item', { has: page.locator('.codicon-error') }).allInnerTexts();
  }

  it('runs a query and previews it from the completion notification: the first rows and the row count', async () => {
    const { page, served } = workbench();
    await queryTableToCompletion(page, SAMPLE, 'canvas_logs', 'web_logs');
    const done = `${JOB} (${SAMPLE}): 1 file downloaded.`;
    await notificationWith(page, done);
    const item = page.locator('.notifications-toasts .notification-list-item', { hasText: done }).first();
    const buttons = await item.locator('.monaco-button').allInnerTexts();
    assert.deepEqual(buttons, ['Open', 'Preview', 'Reveal'], 'Preview joins Open and Reveal');
    await item.locator('.monaco-button', { hasText: 'Preview' }).click();

    const grid = await webviewWith(page, '.toolbar .title', JOB);
    records = downloadedRecords<WebLog>(served, SAMPLE, 'canvas_logs', 'web_logs');
    assert.ok(records.length > 1_000, 'a result of several windows');
    await until(page, 'the row count', () => statusText(grid), (text) => text === rowCount(records.length));
    const id = await columnIndex(grid, 'key.id');
    const rows = await until(page, 'the first rows painted', () => paintedRows(grid), (shown) => shown.length >= 10);
    assert.deepEqual(rows.map((r) => r.n), rows.map((_r, i) => i + 1), 'the grid starts at row 1');
    assert.deepEqual(rows.map((r) => r.cells[id]), records.slice(0, rows.length).map((r) => r.key.id), 'the rows of the file, in its order');
    assert.equal(await grid.locator('.row.head .cell:not(.gutter) .type').nth(id).innerText(), 'string · key', 'key columns are marked');
    const names = await grid.locator('.row.head .cell:not(.gutter) .name').allInnerTexts();
    assert.equal(names[0], 'key.id', 'key columns first');
    assert.deepEqual(names.slice(-2), ['meta.action', 'meta.ts'], 'meta columns last');
    const cutIds = await grid.locator('.body .row:not([hidden]):not(.loading)').evaluateAll(
      (shown, column) => shown.filter((row) => row.children[column + 1].scrollWidth > row.children[column + 1].clientWidth).length,
      id,
    );
    assert.equal(cutIds, 0, 'the column is as wide as its ids: none is cut');
    const status = await columnIndex(grid, 'value.http_status');
    const align = await grid.locator('.body .row').nth(0).locator('.cell').nth(status + 1).evaluate((cell) => getComputedStyle(cell).textAlign);
    assert.equal(align, 'right', 'numbers are right-aligned');
    await restPointer(page);
    await screenshot(page, 'preview-ui-1-grid');
  });

  it('sorts a column from the Jobs view\'s preview, jumps far down, scrolls and filters', async () => {
    const { page } = workbench();
    const grid = await previewFromJobsView(page);
    const id = await columnIndex(grid, 'key.id');
    const status = await columnIndex(grid, 'value.http_status');
    const sorted = records.map((r) => r.key.id).sort();

    const header = grid.locator('.row.head .cell:not(.gutter)').nth(id);
    await header.click();
    await until(page, 'the header marked sorted', () => header.getAttribute('aria-sort'), (sort) => sort === 'ascending');
    const first = await until(page, 'the sorted rows', () => paintedRows(grid), (shown) => shown[0]?.cells[id] === sorted[0]);
    assert.deepEqual(first.map((r) => r.cells[id]), sorted.slice(0, first.length), 'sorted over the whole result');
    await restPointer(page);
    await screenshot(page, 'preview-ui-2-sorted');

    const far = records.length - 10;
    await grid.locator('.toolbar .jump').fill(String(far));
    await grid.locator('.toolbar .jump').press('Enter');
    const end = await until(page, `row ${far} on screen`, () => paintedRows(grid), (shown) => shown.some((r) => r.n === far));
    assert.equal(end[end.length - 1].n, records.length, 'the last row is on screen');
    for (const row of end) assert.equal(row.cells[id], sorted[row.n - 1], `row ${row.n} in sort order`);
    await screenshot(page, 'preview-ui-3-far-rows');

    const box = await grid.locator('.body').boundingBox();
    assert.ok(box, 'the grid body is on screen');
    // over the first columns: the body is wider than the window
    await page.mouse.move(box.x + 150, box.y + box.height / 2);
    await page.mouse.wheel(0, -24 * 100);
    const top = end[0].n - 100;
    const scrolled = await until(page, `row ${top} at the top`, () => paintedRows(grid), (shown) => shown[0]?.n === top);
    for (const row of scrolled) assert.equal(row.cells[id], sorted[row.n - 1], `row ${row.n} in sort order after scrolling`);
    await screenshot(page, 'preview-ui-4-scrolled');

    const notFound = records.filter((r) => r.value.http_status === 404).map((r) => r.key.id).sort();
    assert.ok(notFound.length > 0, 'the sample logs have 404s');
    const filter = grid.locator(`.filters input[aria-label="Filter value.http_status"]`);
    await filter.fill('= 404');
    await filter.press('Enter');
    await until(page, 'the filtered row count', () => statusText(grid), (text) => text === rowCount(notFound.length));
    const filtered = await until(page, 'the filtered rows', () => paintedRows(grid), (shown) => shown[0]?.n === 1 && shown[0].cells[id] === notFound[0]);
    for (const row of filtered) assert.equal(row.cells[status], '404', `row ${row.n} is a 404`);
    assert.deepEqual(filtered.map((r) => r.cells[id]), notFound.slice(0, filtered.length), 'still sorted');
    await restPointer(page);
    await screenshot(page, 'preview-ui-5-filtered');
  });

  it('keeps a WHERE and a filter typed but not applied when the user sorts or applies another filter', async () => {
    const { page } = workbench();
    const grid = await previewFromJobsView(page);
    const id = await columnIndex(grid, 'key.id');
    const status = await columnIndex(grid, 'value.http_status');
    await until(page, 'the row count', () => statusText(grid), (text) => text === rowCount(records.length));
    const where = grid.locator('.toolbar .where');
    const idFilter = grid.locator('.filters input[aria-label="Filter key.id"]');
    const statusFilter = grid.locator('.filters input[aria-label="Filter value.http_status"]');
    const typedWhere = '"value.http_status" >= 400 AND "key.id" LIKE \'%1%\'';
    // typed, Enter not pressed yet
    await where.fill(typedWhere);
    await idFilter.fill('1');

    const sorted = records.map((r) => r.key.id).sort();
    const header = grid.locator('.row.head .cell:not(.gutter)').nth(id);
    await header.click();
    await until(page, 'the sorted rows', () => paintedRows(grid), (shown) => shown[0]?.cells[id] === sorted[0]);
    assert.equal(await where.inputValue(), typedWhere, 'the WHERE typed stays when a column is sorted');
    assert.equal(await idFilter.inputValue(), '1', 'and so does the filter typed');

    const notFound = records.filter((r) => r.value.http_status === 404).length;
    await statusFilter.fill('= 404');
    await statusFilter.press('Enter');
    await until(page, 'the filtered row count', () => statusText(grid), (text) => text === rowCount(notFound));
    const filtered = await until(page, 'the filtered rows', () => paintedRows(grid), (shown) => shown.length > 0 && shown.every((r) => r.cells[status] === '404'));
    assert.ok(filtered.length > 0);
    assert.equal(await where.inputValue(), typedWhere, 'the WHERE typed stays when another filter is applied');
    assert.equal(await idFilter.inputValue(), '1', 'and so does the other filter typed');
    assert.equal(await statusFilter.inputValue(), '= 404', 'the filter applied shows what it applied');
  });

  it('says what it is doing while a filter runs long, and Cancel or Escape goes back to the rows shown before', async () => {
    const { page } = workbench();
    const grid = await previewFromJobsView(page);
    const id = await columnIndex(grid, 'key.id');
    await until(page, 'the row count', () => statusText(grid), (text) => text === rowCount(records.length));
    const fileOrder = records.map((r) => r.key.id);
    // true for every row, but only after the engine has counted billions of numbers: minutes of work
    const slow = '(SELECT count(*) FROM range(300000000000) t(x) WHERE x % 7 = 3) > 0';
    const where = grid.locator('.toolbar .where');
    const cancel = grid.locator('.toolbar button.cancel');
    assert.equal(await cancel.isVisible(), false, 'no Cancel while nothing runs');

    for (const how of ['the Cancel button', 'Escape'] as const) {
      await where.fill(slow);
      await where.press('Enter');
      await until(page, 'the status naming the filter and its time', () => statusText(grid), (text) => /^Filtering… \d+ s$/.test(text));
      assert.equal(await cancel.isVisible(), true, 'Cancel is offered while the filter runs');
      if (how === 'the Cancel button') {
        await restPointer(page);
        await screenshot(page, 'preview-ui-6-filtering');
        await cancel.click();
      } else {
        await where.press('Escape');
      }
      await until(page, `the row count again after ${how}`, () => statusText(grid), (text) => text === rowCount(records.length));
      assert.equal(await where.inputValue(), '', `${how} puts back the WHERE of the rows shown before`);
      assert.equal(await cancel.isVisible(), false, `no Cancel once ${how} went back`);
      const rows = await until(page, `the first rows after ${how}`, () => paintedRows(grid), (shown) => shown.length >= 10);
      assert.deepEqual(rows.map((r) => r.cells[id]), fileOrder.slice(0, rows.length), 'the rows of the file, in its order');
      assert.equal(await grid.locator('.error').isVisible(), false, 'a cancel is not an error');
    }
  });

  it('Export… in the grid writes every row of the result to the file chosen in the save dialog', async () => {
    const { page, served } = workbench();
    const grid = await previewFromJobsView(page);
    await until(page, 'the row count', () => statusText(grid), (text) => text === rowCount(records.length));
    const out = path.join(served.run.workspace, 'exports', 'web_logs.csv');
    fs.mkdirSync(path.dirname(out), { recursive: true });

    await exportFromGrid(page, grid, out);
    const done = await notificationWith(page, `rows to ${out}.`);
    assert.equal(Number((/Exported (.+) rows/.exec(await done.innerText())?.[1] ?? '').replace(/\D/g, '')), records.length, 'the notification counts every row');
    const [header, ...rows] = parseCsv(fs.readFileSync(out, 'utf8'));
    assert.equal(rows.length, records.length, 'a header and one line per row');
    const id = header.indexOf('key.id');
    const status = header.indexOf('value.http_status');
    assert.ok(id >= 0 && status >= 0, `the records flattened into columns: ${header.join(', ')}`);
    assert.deepEqual(rows.map((r) => `${r[id]}|${r[status]}`).sort(), idsAndStatuses(records), 'every row of the result, each once');
    assert.equal(fs.existsSync(`${out}.partial`), false, 'nothing left beside it');
    await restPointer(page);
    await screenshot(page, 'preview-ui-14-exported');
  });

  it('Export… to a folder that does not exist shows an error naming the chosen file, not the one written first, and leaves no file', async () => {
    const { page, served } = workbench();
    await clearNotifications(page);
    const grid = await previewFromJobsView(page);
    await until(page, 'the row count', () => statusText(grid), (text) => text === rowCount(records.length));
    const out = path.join(served.run.workspace, 'no such folder', 'web_logs.csv');

    await exportFromGrid(page, grid, out);
    const error = await notificationWith(page, /^Export: /);
    const text = await error.innerText();
    assert.ok(text.includes(`Cannot write ${out}`), `the error names the chosen file: ${text}`);
    assert.ok(!text.includes('.partial'), `and not the file written first: ${text}`);
    assert.equal((await errorToasts(page)).length, 1, 'shown once, as an error');
    assert.equal(fs.existsSync(path.dirname(out)), false, 'no folder made for it');
    await restPointer(page);
    await screenshot(page, 'preview-ui-15-export-failed');
    await clearNotifications(page);
  });

  it('Export… cancelled from its notification is not shown as an error, and leaves no file', async () => {
    const { page, served } = workbench();
    await clearNotifications(page);
    const grid = await previewFromJobsView(page);
    await until(page, 'the row count', () => statusText(grid), (text) => text === rowCount(records.length));
    // true for every row, but only after the engine has counted billions of numbers: the export of this view runs until cancelled
    const where = grid.locator('.toolbar .where');
    await where.fill('(SELECT count(*) FROM range(300000000000) t(x) WHERE x % 7 = 3) > 0');
    await where.press('Enter');
    await until(page, 'the filter running', () => statusText(grid), (text) => text.startsWith('Filtering'));
    const out = path.join(served.run.workspace, 'exports', 'cancelled.csv');
    fs.mkdirSync(path.dirname(out), { recursive: true });

    await exportFromGrid(page, grid, out);
    const exporting = page.locator('.notifications-toasts .notification-list-item', { hasText: `Exporting ${JOB} to cancelled.csv` }).first();
    await exporting.waitFor();
    await restPointer(page);
    await screenshot(page, 'preview-ui-16-exporting');
    await exporting.locator('.monaco-button', { hasText: 'Cancel' }).click();
    await exporting.waitFor({ state: 'detached' });
    await where.press('Escape');
    await until(page, 'the row count again', () => statusText(grid), (text) => text === rowCount(records.length));

    // an error for the cancelled export would have been sent before this export's notification
    const after = path.join(served.run.workspace, 'exports', 'after-cancel.csv');
    await exportFromGrid(page, grid, after);
    await notificationWith(page, `rows to ${after}.`);
    assert.deepEqual(await errorToasts(page), [], 'a cancelled export is not an error');
    assert.equal(fs.existsSync(out), false, 'the cancelled export left no file');
    assert.equal(fs.existsSync(`${out}.partial`), false, 'nor a part of one');
    await clearNotifications(page);
  });

  it('moves through the grid with the keyboard and copies a cell or a whole row', async () => {
    const { page } = workbench();
    const grid = await previewFromJobsView(page);
    const id = await columnIndex(grid, 'key.id');
    await until(page, 'the row count', () => statusText(grid), (text) => text === rowCount(records.length));
    await until(page, 'the first rows painted', () => paintedRows(grid), (shown) => shown.length >= 10);
    const cursor = grid.locator('.body .cell.cursor');
    /** the cursor's row number and column name */
    const at = async (): Promise<string> => {
      const row = await cursor.evaluate((cell) => cell.parentElement?.firstElementChild?.textContent ?? '');
      const column = await cursor.evaluate((cell) => Array.prototype.indexOf.call(cell.parentElement?.children ?? [], cell) - 1);
      const names = await grid.locator('.row.head .cell:not(.gutter) .name').allInnerTexts();
      return `${row.replace(/\D/g, '')}:${names[column]}`;
    };
    const clipboard = (): Promise<string> => page.evaluate(() => navigator.clipboard.readText());

    await grid.locator('.body .row').nth(0).locator('.cell').nth(id + 1).click();
    assert.equal(await at(), '1:key.id', 'a click puts the cursor on the cell');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await at(), '3:key.id', 'the arrows move it a row at a time');
    await page.keyboard.press('Control+C');
    await until(page, 'the cell on the clipboard', clipboard, (text) => text === records[2].key.id);

    await page.keyboard.press('Control+End');
    const last = await until(page, 'the last row on screen', () => paintedRows(grid), (shown) => shown[shown.length - 1]?.n === records.length);
    assert.equal((await at()).split(':')[0], String(records.length), 'Ctrl+End goes to the last row');
    await page.keyboard.press('PageUp');
    assert.equal((await at()).split(':')[0], String(records.length - (last.length - 1)), 'PageUp goes up a screen less one row');
    await page.keyboard.press('Control+Home');
    await until(page, 'row 1 at the top again', () => paintedRows(grid), (shown) => shown[0]?.n === 1);
    assert.equal(await at(), '1:key.id', 'Ctrl+Home goes back to the first row, in the same column');

    await grid.locator('.body .row').nth(1).locator('.cell.gutter').click();
    await page.keyboard.press('Control+C');
    const names = await grid.locator('.row.head .cell:not(.gutter) .name').allInnerTexts();
    const row = (await until(page, 'the row on the clipboard', clipboard, (text) => text.includes('\t'))).split('\t');
    assert.equal(row.length, names.length, 'a clicked row number copies the whole row, a value per column');
    assert.equal(row[id], records[1].key.id, 'of the row clicked');
    assert.equal(row[await columnIndex(grid, 'value.http_status')], String(records[1].value.http_status));

    // from the keyboard alone: End goes to the last column and scrolls it into view; Shift+Space selects the row
    await grid.locator('.body .row').nth(3).locator('.cell').nth(id + 1).click();
    await page.keyboard.press('End');
    assert.equal(await at(), `4:${names[names.length - 1]}`, 'End goes to the last column');
    const inView = await cursor.evaluate((cell) => {
      const box = cell.getBoundingClientRect();
      const view = cell.closest('.scroller')!.getBoundingClientRect();
      return box.left >= view.left - 1 && box.right <= view.right + 1;
    });
    assert.ok(inView, 'the last column is scrolled into view');
    await page.keyboard.press('Shift+Space');
    await page.keyboard.press('Control+C');
    const selected = (await until(page, 'the selected row on the clipboard', clipboard, (text) => text.split('\t')[id] === records[3].key.id)).split('\t');
    assert.equal(selected.length, names.length, 'Shift+Space selects the whole row');

    // Go to past the last row lands on the last row, where Ctrl+C has a cell to copy
    await grid.locator('.toolbar .jump').fill(String(records.length + 1000));
    await grid.locator('.toolbar .jump').press('Enter');
    await until(page, 'the last row on screen', () => paintedRows(grid), (shown) => shown[shown.length - 1]?.n === records.length);
    assert.equal((await at()).split(':')[0], String(records.length), 'the cursor is on the last row');
  });

  it('sorts from the keyboard: Up from the first row reaches the column header, Enter sorts and turns the order, Shift+Enter adds a column', async () => {
    const { page } = workbench();
    const grid = await previewFromJobsView(page);
    const id = await columnIndex(grid, 'key.id');
    const names = await grid.locator('.row.head .cell:not(.gutter) .name').allInnerTexts();
    await until(page, 'the first rows painted', () => paintedRows(grid), (shown) => shown.length >= 10);
    const sorted = records.map((r) => r.key.id).sort();
    const headers = grid.locator('.row.head .cell:not(.gutter)');
    const focused = async (): Promise<string> => (await grid.locator('.row.head .cell:focus .name').allInnerTexts()).join();

    await grid.locator('.body .row').nth(0).locator('.cell').nth(id + 1).click();
    await page.keyboard.press('ArrowUp');
    assert.equal(await focused(), 'key.id', 'Up from the first row focuses the header of the cursor\'s column');
    const outline = await headers.nth(id).evaluate((head) => getComputedStyle(head).outlineStyle);
    assert.equal(outline, 'solid', 'the focused header is outlined');
    await restPointer(page);
    await screenshot(page, 'preview-ui-9-header-focused');

    await page.keyboard.press('Enter');
    await until(page, 'key.id sorted ascending', () => headers.nth(id).getAttribute('aria-sort'), (sort) => sort === 'ascending');
    await until(page, 'the rows in ascending order', () => paintedRows(grid), (shown) => shown[0]?.n === 1 && shown[0].cells[id] === sorted[0]);
    assert.equal(await focused(), 'key.id', 'the header keeps the focus while the rows change');
    await page.keyboard.press('Enter');
    await until(page, 'key.id sorted descending', () => headers.nth(id).getAttribute('aria-sort'), (sort) => sort === 'descending');
    const descending = await until(page, 'the rows in descending order', () => paintedRows(grid), (shown) => shown[0]?.cells[id] === sorted[sorted.length - 1]);
    assert.deepEqual(descending.map((r) => r.cells[id]), [...sorted].reverse().slice(0, descending.length));

    const next = id + 1 < names.length ? id + 1 : id - 1;
    await page.keyboard.press(next > id ? 'ArrowRight' : 'ArrowLeft');
    assert.equal(await focused(), names[next], 'the arrows move between headers');
    await page.keyboard.press('Shift+Enter');
    await until(page, `${names[next]} added to the sort`, () => headers.nth(next).getAttribute('aria-sort'), (sort) => sort === 'ascending');
    assert.equal(await headers.nth(id).getAttribute('aria-sort'), 'descending', 'Shift+Enter keeps the sort before it');

    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(), '', 'Down goes back to the rows');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), names[next], 'Tab from the rows reaches the header last used');
  });

  it('runs a statement in the SQL console over the job and shows its result', async () => {
    const { page } = workbench();
    await closeAllEditors(page);
    await runPaletteCommand(page, 'Data Query: Open SQL Console');
    const editor = page.locator('.editor-group-container .monaco-editor').first();
    await editor.locator('.view-line', { hasText: 'Data Query SQL console' }).first().waitFor();
    await page.keyboard.insertText('SELECT "value.http_status" AS status, count(*) AS requests FROM canvas_logs.web_logs GROUP BY 1 ORDER BY 1;');
    await page.keyboard.press('Escape'); // no completion list in the way
    await screenshot(page, 'preview-ui-7-sql-console');
    await page.keyboard.press('Control+Enter');

    const grid = await webviewWith(page, '.row.head .name', 'requests');
    const counts = new Map<number, number>();
    for (const r of records) counts.set(r.value.http_status, (counts.get(r.value.http_status) ?? 0) + 1);
    const expected = [...counts].sort((a, b) => a[0] - b[0]).map(([s, n]) => [String(s), String(n)]);
    const shown = await until(page, 'the statement\'s rows', () => paintedRows(grid), (rows) => rows.length === expected.length);
    assert.deepEqual(
      shown.map((r) => r.cells),
      expected,
      'one row per status with its count',
    );
    await restPointer(page);
    await screenshot(page, 'preview-ui-8-sql-result');
  });

  it('SQL console: a statement running over a second offers Cancel in a notification, and Cancel stops it; the grid says so', async () => {
    const { page } = workbench();
    // minutes of work for the engine: a filter over every pair of two long ranges
    await runInNewConsole(page, 'SELECT count(*) AS pairs FROM range(400000) a(x), range(400000) b(y) WHERE (x * 7 + y) % 13 = 5;');
    const running = page.locator('.notifications-toasts .notification-list-item', { hasText: 'Running SELECT count(*) AS pairs' }).first();
    await running.waitFor();
    const cancel = running.locator('.monaco-button', { hasText: 'Cancel' });
    assert.equal(await cancel.count(), 1, 'the notification offers Cancel');
    await screenshot(page, 'preview-ui-10-sql-running');
    await cancel.click();

    const grid = await webviewWith(page, '.error', /cancelled/i);
    assert.equal((await grid.locator('.error').innerText()).trim(), 'The query was cancelled.', 'the console\'s grid says the statement was cancelled');
    assert.equal(await grid.locator('.row.head .name', { hasText: 'pairs' }).count(), 0, 'and shows no result of it');
    await running.waitFor({ state: 'detached' });
    await restPointer(page);
    await screenshot(page, 'preview-ui-11-sql-cancelled');
  });

  it('SQL console: a statement that fails shows its error in place of the rows before it, titled with it, with nothing to export', async () => {
    const { page } = workbench();
    // the second statement names a table that does not exist
    const failing = 'SELECT n FROM no_such_table';
    await closeAllEditors(page);
    await runPaletteCommand(page, 'Data Query: Open SQL Console');
    const editor = page.locator('.editor-group-container .monaco-editor').first();
    await editor.locator('.view-line', { hasText: 'Data Query SQL console' }).first().waitFor();
    await page.keyboard.press('Control+End'); // below the console's first lines
    await page.keyboard.insertText(`SELECT range AS n FROM range(5000);\n${failing};`);
    await page.keyboard.press('Escape'); // no completion list in the way
    // each statement run from its line, as a person does: the cursor on it, then Ctrl+Enter
    const runLine = async (text: string): Promise<void> => {
      // near the line's start: in a narrow editor its middle may lie under the overview ruler
      await editor.locator('.view-line', { hasText: text }).first().click({ position: { x: 4, y: 4 } });
      await page.keyboard.press('Control+Enter');
    };
    await runLine('range(5000)');
    const grid = await webviewWith(page, '.row.head .name', /^n$/);
    await until(page, 'the first statement\'s rows', () => paintedRows(grid), (rows) => rows.length >= 10 && rows[0].cells[0] === '0');
    await until(page, 'its row count', () => statusText(grid), (text) => text === rowCount(5000));

    await runLine(failing);

    await webviewWith(page, '.toolbar .title', failing);
    const error = await until(page, 'the statement\'s error', () => grid.locator('.error').innerText(), (text) => /no_such_table/.test(text));
    assert.match(error, /no_such_table/, 'the grid says what failed');
    assert.equal(await grid.locator('.row.head .name').count(), 0, 'no column of the rows before');
    assert.equal(await grid.locator('.body .row:not([hidden])').count(), 0, 'and no row of them');
    assert.equal(await grid.locator('.scroller').isVisible(), false, 'no grid at all, only the message');
    assert.equal(await statusText(grid), '', 'nor their count');
    assert.equal(await grid.locator('.toolbar button.export').isDisabled(), true, 'Export has nothing to export');
    assert.equal(await page.locator('.tab', { hasText: failing }).count(), 1, 'the tab is titled with the statement that failed');
    await restPointer(page);
    await screenshot(page, 'preview-ui-11b-sql-failed');
  });

  it('Preview: rows whose read failed (the engine stopped) are asked for again when the user moves, and show once they can be read', async () => {
    const { page, served } = workbench();
    const grid = await previewFromJobsView(page);
    await until(page, 'the first rows painted', () => paintedRows(grid), (shown) => shown.length >= 10 && shown[0].n === 1);
    const loading = (): Promise<number> => grid.locator('.body .row.loading:not([hidden])').count();
    const far = records.length - 5;
    const jumpFar = async (): Promise<void> => {
      await grid.locator('.toolbar .jump').fill(String(far));
      await grid.locator('.toolbar .jump').press('Enter');
    };

    // the engine is held still while the far rows are asked for, then stopped for good: the read fails
    const engine = enginePid(served.run.root);
    process.kill(engine, 'SIGSTOP');
    try {
      await jumpFar();
      await until(page, 'the far rows asked for', () => statusText(grid), (text) => text.startsWith('Reading rows'));
    } finally {
      process.kill(engine, 'SIGKILL');
    }
    const error = grid.locator('.error');
    await until(page, 'the failed read shown', () => error.isVisible(), (shown) => shown);
    assert.match(await error.innerText(), /stopped unexpectedly/, 'the grid says what failed');
    await until(page, 'the rows far down left without values', loading, (n) => n > 0);
    await restPointer(page);
    await scrollToStart(grid);
    await screenshot(page, 'preview-ui-12-rows-failed');

    // the same place again: the failed windows are asked for again, of an engine started afresh
    await jumpFar();
    const read = await until(
      page,
      'the rows read again',
      async () => ({ loading: await loading(), rows: await paintedRows(grid) }),
      (shown) => shown.loading === 0 && shown.rows.some((r) => r.n === far),
    );
    const id = await columnIndex(grid, 'key.id');
    for (const row of read.rows) assert.equal(row.cells[id], String(records[row.n - 1].key.id), `row ${row.n} holds its record`);
    await until(page, 'the error gone once rows came', () => error.isVisible(), (shown) => !shown);
    assert.notEqual(enginePid(served.run.root), engine, 'a new engine answered');
    await restPointer(page);
    await scrollToStart(grid);
    await screenshot(page, 'preview-ui-13-rows-read-again');
  });
});
