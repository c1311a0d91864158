// A preview grid after "Developer: Reload Window", as a person sees it: a query of the sample
// logs previewed from the Jobs view, sorted and filtered, comes back after the reload with its
// rows in that view and its columns typed by the job's schema as before; with the job's files
// moved away it says which file is missing and what to do, and with them back the next reload
// shows the grid again in its view. The downloaded file, read here, is the reference for the rows.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { FrameLocator, Page } from 'playwright-core';
import { screenshot } from '../harness/browser';
import { downloadedJob, downloadedRecords } from '../harness/downloadedRecords';
import { previewFromJobRow, queryTableToCompletion } from '../harness/jobSteps';
import { workbenchSuite } from '../harness/uiSuite';
import { until, webviewWith } from '../harness/webviews';
import { notificationWith, runPaletteCommand } from '../harness/workbench';

const SAMPLE = 'Sample data';
const JOB = 'canvas_logs.web_logs';

interface WebLog {
  key: { id: string };
  value: { http_status: number };
}

/** The grid's column names and their types as the header shows them, e.g. `value.http_status: int32`. */
async function headers(grid: FrameLocator): Promise<string[]> {
  const names = await grid.locator('.row.head .cell:not(.gutter) .name').allInnerTexts();
  const types = await grid.locator('.row.head .cell:not(.gutter) .type').allInnerTexts();
  return names.map((name, i) => `${name}: ${types[i]}`);
}

/** The rows the grid has painted, top to bottom, each as its cells' text (rows still loading are left out). */
async function paintedRows(grid: FrameLocator): Promise<string[][]> {
  return grid.locator('.body .row:not([hidden]):not(.loading)').evaluateAll((rows) => rows.map((row) => Array.from(row.children).slice(1).map((c) => c.textContent ?? '')));
}

async function reloadWindow(page: Page): Promise<void> {
  const loaded = page.waitForEvent('load');
  await runPaletteCommand(page, 'Developer: Reload Window');
  await loaded;
  await page.locator('.monaco-workbench').waitFor();
}

describe('Preview grids after a reload of the window', function () {
  this.timeout(300_000);
  const workbench = workbenchSuite('preview-restore-ui', { 'dataQuery.connections': [{ name: SAMPLE, sample: true }] });

  it('a job\'s preview, sorted and filtered, comes back after a reload with its view and rows; its files gone, it says which and what to do', async () => {
    const { page, served } = workbench();
    await queryTableToCompletion(page, SAMPLE, 'canvas_logs', 'web_logs');
    await notificationWith(page, `${JOB} (${SAMPLE}): 1 file downloaded.`);
    const grid = await previewFromJobRow(page, JOB);
    const records = downloadedRecords<WebLog>(served, SAMPLE, 'canvas_logs', 'web_logs');
    const typed = await headers(grid);
    const names = typed.map((h) => h.slice(0, h.indexOf(': ')));
    const id = names.indexOf('key.id');
    const status = names.indexOf('value.http_status');
    assert.ok(id >= 0 && status >= 0, `the grid has key.id and value.http_status: ${names.join(', ')}`);
    assert.ok(typed[id].endsWith(' · key'), `the job's schema marks its key: ${typed[id]}`);

    // sorted by key.id, filtered to the 404s
    const notFound = records.filter((r) => r.value.http_status === 404).map((r) => r.key.id).sort();
    assert.ok(notFound.length > 0, 'the sample logs have 404s');
    const expected = `${notFound.length.toLocaleString('en-US')} rows`;
    await grid.locator('.row.head .cell:not(.gutter)').nth(id).click();
    await until(page, 'the header marked sorted', () => grid.locator('.row.head .cell:not(.gutter)').nth(id).getAttribute('aria-sort'), (sort) => sort === 'ascending');
    const filter = grid.locator('.filters input[aria-label="Filter value.http_status"]');
    await filter.fill('= 404');
    await filter.press('Enter');
    await until(page, 'the filtered row count', () => grid.locator('.toolbar .status').innerText(), (text) => text === expected);

    /** The grid shown after a reload: the job's title, its filter and sort, the 404s in key order, its columns typed as before. */
    const restoredGrid = async (): Promise<FrameLocator> => {
      const restored = await webviewWith(page, '.toolbar .title', JOB);
      await until(page, 'the filtered row count after the reload', () => restored.locator('.toolbar .status').innerText(), (text) => text === expected);
      assert.equal(await restored.locator('.filters input[aria-label="Filter value.http_status"]').inputValue(), '= 404', 'the filter is in its box');
      assert.equal(await restored.locator('.row.head .cell:not(.gutter)').nth(id).getAttribute('aria-sort'), 'ascending', 'still sorted by key.id');
      const rows = await until(page, 'the filtered rows after the reload', () => paintedRows(restored), (shown) => shown[0]?.[id] === notFound[0]);
      assert.deepEqual(rows.map((cells) => cells[id]), notFound.slice(0, rows.length), 'the 404s in key order');
      for (const cells of rows) assert.equal(cells[status], '404');
      assert.deepEqual(await headers(restored), typed, 'the columns typed as before');
      return restored;
    };

    await reloadWindow(page);
    await restoredGrid();
    await page.mouse.move(200, 380);
    await screenshot(page, 'preview-restore-ui-1-after-reload');

    // its files gone: the grid says which and what to do; back again, the next reload shows the grid in its view
    const { folder } = downloadedJob(served, SAMPLE, 'canvas_logs', 'web_logs');
    fs.renameSync(folder, `${folder}.away`);
    try {
      await reloadWindow(page);
      const gone = await webviewWith(page, '.error', 'no longer on disk');
      const message = await gone.locator('.error').innerText();
      assert.ok(message.includes(folder) && message.includes('Preview the result again'), `says which file is missing and what to do: ${message}`);
      assert.equal(await gone.locator('.toolbar .title').innerText(), JOB, 'the grid keeps its title');
      await screenshot(page, 'preview-restore-ui-2-files-gone');
    } finally {
      fs.renameSync(`${folder}.away`, folder);
    }
    await reloadWindow(page);
    await restoredGrid();
  });
});
