// The profile strips under a preview's column headers, as a person uses them in the workbench:
// a query of the sample logs table previewed, a strip under every header once the engine has
// profiled the whole result, a column's popup opened by keyboard (Enter, Escape gives the focus
// back) and by click, its figures checked against the downloaded file (counted here) and against
// Profile Result run from the palette on the same view, and a filter that changes the strips.
// The grid with its strips and an open popup is saved as media/profile.png for the README.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import type { ColumnProfile, ResultProfile } from '../../../src/engine/engineProtocol';
import { screenshot } from '../harness/browser';
import { previewFromJobRow, queryTableToCompletion } from '../harness/jobSteps';
import { downloadedRecords } from '../harness/downloadedRecords';
import { workbenchSuite } from '../harness/uiSuite';
import { until, webviewWith } from '../harness/webviews';
import { runPaletteCommand } from '../harness/workbench';

const SAMPLE = 'Sample data';
const JOB = 'canvas_logs.web_logs';
const MEDIA = path.resolve(__dirname, '..', '..', '..', '..', 'media');

interface WebLog {
  key: { id: string };
  value: { course_id?: number | null; http_status: number; http_method: string };
}

/** A record without a course: the service leaves a NULL value out of the record. */
const noCourse = (r: WebLog): boolean => r.value.course_id === undefined || r.value.course_id === null;

const count = (n: number): string => n.toLocaleString('en-US');

/** The strips drawn (not waiting), by their accessible names. */
async function drawnStrips(grid: FrameLocator): Promise<string[]> {
  return grid.locator('.row.profiles .cell.profile:not(.waiting)').evaluateAll((cells) => cells.map((c) => c.getAttribute('aria-label') ?? ''));
}

async function columnNames(grid: FrameLocator): Promise<string[]> {
  return grid.locator('.row.head .cell:not(.gutter) .name').allInnerTexts();
}

/** The popup's figures, label to value. */
async function popupFigures(grid: FrameLocator): Promise<Record<string, string>> {
  const pairs = await grid.locator('.profile-popup .figures').evaluate((list) => {
    const terms = Array.from(list.querySelectorAll('dt')).map((t) => t.textContent ?? '');
    const values = Array.from(list.querySelectorAll('dd')).map((d) => d.textContent ?? '');
    return terms.map((t, i) => [t, values[i]] as const);
  });
  return Object.fromEntries(pairs);
}

/** The element that has the focus inside the grid's page, by its accessible name. */
async function focusedLabel(grid: FrameLocator): Promise<string> {
  return grid.locator('body').evaluate((body) => body.ownerDocument.activeElement?.getAttribute('aria-label') ?? '');
}

/** Runs a palette command and waits for the palette to close, so that the next one opens anew. */
async function paletteCommand(page: Page, title: string): Promise<void> {
  await runPaletteCommand(page, title);
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
}

async function restPointer(page: Page): Promise<void> {
  await page.mouse.move(200, 380);
}

describe('Profile strips under the preview\'s headers in the VS Code workbench', function () {
  this.timeout(300_000);
  const workbench = workbenchSuite('profile-ui', { 'dataQuery.connections': [{ name: SAMPLE, sample: true }] });
  let records: WebLog[];
  let grid: FrameLocator;

  it('draws a strip under every header once the whole result is profiled', async () => {
    const { page, served } = workbench();
    await queryTableToCompletion(page, SAMPLE, 'canvas_logs', 'web_logs');
    grid = await previewFromJobRow(page, JOB);
    records = downloadedRecords<WebLog>(served, SAMPLE, 'canvas_logs', 'web_logs');
    const names = await columnNames(grid);
    const strips = await until(page, 'a strip drawn under every header', () => drawnStrips(grid), (drawn) => drawn.length === names.length);
    assert.deepEqual(
      strips.map((label) => /^Profile of (\S+):/.exec(label)?.[1]),
      names,
      'one strip per column, in the order of the headers',
    );
    const courseNulls = records.filter(noCourse).length;
    const course = strips[names.indexOf('value.course_id')];
    assert.ok(course.includes(`${count(records.length)} rows: ${count(courseNulls)} NULL`), `the NULLs of value.course_id, counted in the file: ${course}`);
    const methods = strips[names.indexOf('value.http_method')];
    const gets = records.filter((r) => r.value.http_method === 'GET').length;
    assert.ok(methods.includes(`Most common: "GET" (${count(gets)})`), `the most common method: ${methods}`);
    const bars = await grid.locator('.row.profiles .cell.profile').nth(names.indexOf('value.course_id')).locator('.spark .bar').count();
    assert.ok(bars > 1, `a histogram of the course ids: ${bars} bars`);
    const hover = await grid.locator('.row.profiles .cell.profile').nth(names.indexOf('value.course_id')).getAttribute('title');
    assert.match(hover ?? '', /^value\.course_id\n.* NULL .*\nMin 100, max 159/, 'hovering shows the summary');
  });

  it('opens a column\'s profile by keyboard and by click, with the figures of Profile Result on the same view', async () => {
    const { page } = workbench();
    const names = await columnNames(grid);
    let strips = grid.locator('.row.profiles .cell.profile');
    // from the first header, Tab reaches the strips; the arrows move along them
    await grid.locator('.row.head .cell:not(.gutter)').first().focus();
    await page.keyboard.press('Tab');
    assert.match(await focusedLabel(grid), /^Profile of key\.id:/, 'Tab from the headers reaches the first strip');
    for (let i = 0; i < names.indexOf('value.course_id'); i++) await page.keyboard.press('ArrowRight');
    assert.match(await focusedLabel(grid), /^Profile of value\.course_id:/);
    await page.keyboard.press('Enter');
    let popup = grid.locator('.profile-popup');
    await popup.and(grid.locator('[aria-label="Profile of value.course_id"]')).waitFor();
    const figures = await popupFigures(grid);
    const courseNulls = records.filter(noCourse).length;
    assert.equal(figures.Rows, count(records.length));
    assert.match(figures.NULLs, new RegExp(`^${count(courseNulls)} \\(`));
    assert.equal(figures.Distinct, count(new Set(records.map((r) => r.value.course_id).filter((c) => c !== undefined && c !== null)).size));
    assert.deepEqual([figures.Min, figures.Max], ['100', '159']);
    assert.ok(figures.Mean && figures['Lower quartile ≈'] && figures['Median ≈'] && figures['Upper quartile ≈'], 'mean and quartiles of numbers');
    assert.ok((await grid.locator('.profile-popup .histogram .bar').count()) > 1, 'the histogram');
    await page.keyboard.press('Escape');
    await popup.waitFor({ state: 'hidden' });
    assert.match(await focusedLabel(grid), /^Profile of value\.course_id:/, 'Escape gives the focus back to the strip');

    // the engine's own profile of the preview's view, from the palette, as JSON in an editor
    await paletteCommand(page, 'Data Query: Profile Result');
    const editor = page.locator('.editor-group-container .monaco-editor').first();
    await editor.locator('.view-line', { hasText: '"rows"' }).first().waitFor();
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Control+C');
    const json = await until(page, 'the profile on the clipboard', () => page.evaluate(() => navigator.clipboard.readText()), (text) => text.trim().endsWith('}'));
    const engine = JSON.parse(json) as ResultProfile;
    const column = (name: string): ColumnProfile => engine.columns.find((c) => c.name === name)!;
    assert.equal(figures.NULLs.split(' ')[0], count(column('value.course_id').nulls), 'the popup\'s NULLs are Profile Result\'s');
    assert.equal(figures.Distinct, count(column('value.course_id').distinct));
    await paletteCommand(page, 'View: Revert and Close Editor');

    // a click on another strip: its most common values (the page may have been made anew while the editor hid it: its strips come back)
    grid = await webviewWith(page, '.toolbar .title', JOB);
    strips = grid.locator('.row.profiles .cell.profile');
    popup = grid.locator('.profile-popup');
    await until(page, 'the strips drawn again', () => drawnStrips(grid), (drawn) => drawn.length === names.length);
    const methods = strips.nth(names.indexOf('value.http_method'));
    await methods.click();
    await popup.and(grid.locator('[aria-label="Profile of value.http_method"]')).waitFor();
    const top = await grid.locator('.profile-popup .top tr').evaluateAll((rows) => rows.map((r) => Array.from(r.children).slice(0, 2).map((c) => c.textContent)));
    assert.deepEqual(top[0], ['"GET"', count(column('value.http_method').top![0].count)]);
    assert.equal(top.length, column('value.http_method').top!.length);
    await grid.locator('.profile-popup .close').click();
    await popup.waitFor({ state: 'hidden' });

    // the README's picture: the strips, and the popup of a column with NULLs and a histogram
    await restPointer(page);
    await paletteCommand(page, 'Notifications: Clear All Notifications');
    await paletteCommand(page, 'View: Toggle Primary Side Bar Visibility');
    await strips.nth(names.indexOf('value.course_id')).click();
    await popup.waitFor();
    await page.mouse.move(1000, 12); // the empty title bar: no hover in the grid
    await page.waitForTimeout(300);
    fs.mkdirSync(MEDIA, { recursive: true });
    await page.screenshot({ path: path.join(MEDIA, 'profile.png') });
    await page.keyboard.press('Escape');
    await popup.waitFor({ state: 'hidden' });
    await paletteCommand(page, 'View: Toggle Primary Side Bar Visibility');
  });

  it('profiles the filtered rows when a filter applies: the strips change', async () => {
    const { page } = workbench();
    grid = await webviewWith(page, '.toolbar .title', JOB);
    const names = await columnNames(grid);
    const notFound = records.filter((r) => r.value.http_status === 404);
    assert.ok(notFound.length > 0 && notFound.length < records.length);
    const filter = grid.locator('.filters input[aria-label="Filter value.http_status"]');
    await filter.fill('= 404');
    await filter.press('Enter');
    const course = names.indexOf('value.course_id');
    const courseNulls = notFound.filter(noCourse).length;
    const strips = await until(
      page,
      'the strips of the filtered rows',
      () => drawnStrips(grid),
      (drawn) => drawn.length === names.length && drawn[course].includes(`${count(notFound.length)} rows:`),
    );
    assert.ok(strips[course].includes(`${count(notFound.length)} rows: ${count(courseNulls)} NULL`), strips[course]);
    const status = strips[names.indexOf('value.http_status')];
    assert.ok(status.includes('1 distinct') && status.includes('Min 404, max 404'), `one status left: ${status}`);
    await restPointer(page);
    await screenshot(page, 'profile-ui-filtered');
  });
});
