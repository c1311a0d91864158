// Charts of a result as a person makes them in the workbench: a query of the sample logs
// previewed, Chart… on the grid's toolbar, a bar chart and its columns chosen with the keyboard
// alone and drawn (counted against the downloaded file, read here), the theme's colours on the
// canvas, then Save SVG… and Save PNG… through the save dialog (the SVG parses and holds the
// bars and their names, the PNG is a PNG of the chart's size), and drawn again in another
// theme's colours when the theme changes. Chart… on a SQL console's result
// charts the statement's rows. And `dataQuery.chartResult` driven by an argument object from a
// keybinding: it asks nothing and writes the SVG named. A chart of a filtered grid says which rows
// it shows, offers the grid's new view once the grid is filtered otherwise, and is drawn again
// after a reload of the window (or, its files gone, says what to do).
// Screenshots go to test-results/ (the chart's also serves the README, as media/chart.png).

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { screenshot } from '../harness/browser';
import { downloadedJob, downloadedRecords } from '../harness/downloadedRecords';
import { previewFromJobRow, queryTableToCompletion } from '../harness/jobSteps';
import { workbenchSuite } from '../harness/uiSuite';
import { until, webviewWith } from '../harness/webviews';
import { notificationWith, openDataQueryView, runPaletteCommand, treeRow } from '../harness/workbench';

const SAMPLE = 'Sample data';
const JOB = 'canvas_logs.web_logs';
/** A key no other command has, bound to the command with its argument object; as Playwright presses it. */
const ARGUMENT_KEY = { binding: 'ctrl+alt+shift+f8', press: 'Control+Alt+Shift+F8' };

interface WebLog {
  value: { http_method: string; http_status: number };
}

/** The chart drawn: its marks (points, bars) as the page counts them, once it has drawn any. */
async function marks(chart: FrameLocator): Promise<number> {
  return Number((await chart.locator('.chart').getAttribute('data-marks')) ?? '0');
}

/** The colours painted on the chart's canvas, each as `r,g,b`, with how many pixels have it. */
async function canvasColours(chart: FrameLocator): Promise<Map<string, number>> {
  const counts = await chart.locator('.chart canvas').first().evaluate((canvas: HTMLCanvasElement) => {
    const context = canvas.getContext('2d');
    if (!context) return [] as [string, number][];
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    const seen = new Map<string, number>();
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] < 250) continue; // transparent: the page's background shows through
      const key = `${data[i]},${data[i + 1]},${data[i + 2]}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    return [...seen];
  });
  return new Map(counts);
}

/** A theme colour of the chart's page (a --vscode-… variable) as `r,g,b`. */
async function themeColour(chart: FrameLocator, variable: string): Promise<string> {
  return chart.locator('body').evaluate((body, name) => {
    const probe = body.ownerDocument.createElement('div');
    probe.style.color = `var(${name})`;
    body.append(probe);
    const [r, g, b] = getComputedStyle(probe).color.match(/\d+/g)!.map(Number);
    probe.remove();
    return `${r},${g},${b}`;
  }, variable);
}

/**
 * Presses a Save button of the chart and types `file` into the save dialog as a person would:
 * its first answer filled in, the path typed over it, Enter (again if the first one only went to the folder).
 */
async function saveFromChart(page: Page, chart: FrameLocator, button: string, title: string, file: string): Promise<void> {
  await chart.locator('.toolbar button', { hasText: button }).click();
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor();
  const input = page.locator('.quick-input-widget input').first();
  await until(page, 'the save dialog\'s first answer', () => input.inputValue(), (value) => value.endsWith(path.extname(file)));
  const typed = async (): Promise<string> => {
    if ((await input.inputValue()) !== file) await input.fill(file);
    return input.inputValue();
  };
  await until(page, 'the path typed into the save dialog', typed, (value) => value === file);
  const widget = page.locator('.quick-input-widget');
  for (let attempt = 1; attempt <= 3 && (await widget.isVisible()); attempt++) {
    if (await input.isVisible()) await input.press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
  }
  await widget.waitFor({ state: 'hidden' });
}

/** The SVG parsed by the browser: whether it parsed, its size, its filled shapes by colour and its texts. */
async function parseSvg(page: Page, text: string): Promise<{ parsed: boolean; width: number; fills: Record<string, number>; texts: string[] }> {
  return page.evaluate((svg) => {
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    const root = doc.documentElement;
    const fills: Record<string, number> = {};
    for (const shape of Array.from(doc.querySelectorAll('path, rect'))) {
      const fill = shape.getAttribute('fill') ?? '';
      if (fill && fill !== 'none' && fill !== 'transparent') fills[fill] = (fills[fill] ?? 0) + 1;
    }
    return {
      parsed: root.nodeName === 'svg' && doc.querySelector('parsererror') === null,
      width: Number(root.getAttribute('width')),
      fills,
      texts: Array.from(doc.querySelectorAll('text')).map((t) => t.textContent ?? ''),
    };
  }, text);
}

/** `#rrggbb` (or `rgb(…)`) as `r,g,b`. */
function rgbOf(colour: string): string {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(colour);
  if (hex) return hex.slice(1, 4).map((h) => parseInt(h, 16)).join(',');
  return (colour.match(/\d+/g) ?? []).slice(0, 3).join(',');
}

describe('Charts of a result in the VS Code workbench', function () {
  this.timeout(300_000);
  const workbench = workbenchSuite('chart-ui', { 'dataQuery.connections': [{ name: SAMPLE, sample: true }] });
  let records: WebLog[];

  it('Chart… on a preview: a bar chart chosen by keyboard is drawn in the theme\'s colours, saved as SVG and PNG, and drawn again in a new theme', async () => {
    const { page, served } = workbench();
    await queryTableToCompletion(page, SAMPLE, 'canvas_logs', 'web_logs');
    await notificationWith(page, `${JOB} (${SAMPLE}): 1 file downloaded.`);
    const grid = await previewFromJobRow(page, JOB);
    records = downloadedRecords<WebLog>(served, SAMPLE, 'canvas_logs', 'web_logs');

    await grid.locator('.toolbar button.chart').click();
    const chart = await webviewWith(page, 'label[for="chart-kind"]', 'Chart');
    assert.equal(await chart.locator('.toolbar .title').innerText(), JOB);
    await until(page, 'the first chart drawn', () => marks(chart), (n) => n > 0);
    assert.equal(await chart.locator('#chart-kind').inputValue(), 'histogram', 'a first chart: the histogram of the first time column');

    // the keyboard alone: Tab from the page's start to the kind, a letter picks it, Tab to x, its name typed
    await chart.locator('.status').click();
    await page.keyboard.press('Tab');
    assert.equal(await chart.locator(':focus').getAttribute('id'), 'chart-kind', 'Tab reaches the kind first');
    await page.keyboard.press('b');
    await until(page, 'the kind chosen', () => chart.locator('#chart-kind').inputValue(), (v) => v === 'bar');
    await page.keyboard.press('Tab');
    assert.equal(await chart.locator(':focus').getAttribute('id'), 'chart-x', 'then x');
    await page.keyboard.type('value.http_m');
    await until(page, 'x chosen', () => chart.locator('#chart-x').inputValue(), (v) => v === 'value.http_method');
    const methods = new Map<string, number>();
    for (const r of records) methods.set(r.value.http_method, (methods.get(r.value.http_method) ?? 0) + 1);
    await until(page, 'the bar chart drawn', () => marks(chart), (n) => n === methods.size);
    const note = await chart.locator('.note').innerText();
    assert.match(note, /^Rows per value of value\.http_method\./, 'the chart says what the engine counted');
    assert.equal(await chart.locator('.status').innerText(), `${records.length.toLocaleString('en-US')} rows, grouped by the engine.`);
    const label = (await chart.locator('.chart').getAttribute('aria-label')) ?? '';
    assert.match(label, /^Bar chart of value\.http_method\. Rows per value/, 'the chart has an accessible name');

    const colours = await canvasColours(chart);
    const blue = await themeColour(chart, '--vscode-charts-blue');
    assert.ok((colours.get(blue) ?? 0) > 200, `bars painted in the theme's first chart colour ${blue}: ${[...colours].sort((a, b) => b[1] - a[1]).slice(0, 5).join(' ')}`);
    await page.mouse.move(200, 380);
    await screenshot(page, 'chart-ui-1-bars');

    const svgFile = path.join(served.run.workspace, 'charts', 'methods.svg');
    const pngFile = path.join(served.run.workspace, 'charts', 'methods.png');
    fs.mkdirSync(path.dirname(svgFile), { recursive: true });
    await saveFromChart(page, chart, 'Save SVG…', 'Save chart as SVG', svgFile);
    await notificationWith(page, `Saved the chart to ${svgFile}.`);
    const svg = await parseSvg(page, fs.readFileSync(svgFile, 'utf8'));
    assert.ok(svg.parsed, 'the SVG parses');
    const [top] = [...methods].sort((a, b) => b[1] - a[1]);
    assert.ok(svg.texts.includes(top[0]), `the bars are named: ${svg.texts.join(' | ')}`);
    const barFills = Object.entries(svg.fills).filter(([fill]) => rgbOf(fill) === blue);
    assert.ok(barFills.length === 1 && barFills[0][1] >= methods.size, `a shape for each bar in the theme's colour: ${JSON.stringify(svg.fills)}`);

    await saveFromChart(page, chart, 'Save PNG…', 'Save chart as PNG', pngFile);
    await notificationWith(page, `Saved the chart to ${pngFile}.`);
    const png = fs.readFileSync(pngFile);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG image');
    assert.ok(png.length > 10_000, `of some size: ${png.length} bytes`);
    assert.equal(png.readUInt32BE(16), 2 * svg.width, 'twice as wide as the chart on screen');
    assert.deepEqual(fs.readdirSync(path.dirname(svgFile)).sort(), ['methods.png', 'methods.svg'], 'nothing else left beside them');

    // another theme: the chart is drawn again in its colours
    await page.locator('.part.sidebar .title-label').first().click();
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+T');
    const themes = page.locator('.quick-input-widget input').first();
    await themes.waitFor();
    await themes.fill('Dark Modern');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Dark Modern' }).first().waitFor();
    await page.waitForTimeout(300); // the list settles after filtering
    await themes.press('Enter');
    const darkBlue = await until(page, 'the dark theme\'s colours', () => themeColour(chart, '--vscode-charts-blue'), (colour) => colour !== blue);
    await until(page, 'the bars drawn again in the dark theme\'s blue', async () => (await canvasColours(chart)).get(darkBlue) ?? 0, (n) => n > 200);
    assert.equal((await canvasColours(chart)).get(blue) ?? 0, 0, 'nothing left in the light theme\'s blue');

    // a histogram needs numbers or times: x follows the kind to the first time column
    await chart.locator('#chart-kind').focus();
    await page.keyboard.press('h');
    await until(page, 'x following the kind', () => chart.locator('#chart-x').inputValue(), (v) => v === 'value.timestamp');
    await chart.locator('#chart-color').focus();
    await page.keyboard.type('value.http_m');
    const coloured = await until(page, 'the histogram coloured', () => chart.locator('.chart').getAttribute('aria-label'), (l) => /One series per value of value\.http_method/.test(l ?? ''));
    const ranges = /^Histogram chart of value\.timestamp\. Rows in (\d+) ranges of value\.timestamp, each 1 day wide\./.exec(coloured ?? '');
    assert.ok(ranges, `the sample's month in days: ${coloured}`);
    assert.ok((await marks(chart)) > Number(ranges[1]), 'bars of each method in each range');
    // the chart alone in the window, for the README
    await runPaletteCommand(page, 'Notifications: Clear All Notifications');
    await chart.locator('#chart-color').focus();
    await runPaletteCommand(page, 'View: Toggle Maximize Editor Group');
    await page.waitForTimeout(1_000); // the chart follows its new size
    await page.mouse.move(640, 790);
    await screenshot(page, 'chart-ui-2-histogram');
    await runPaletteCommand(page, 'View: Toggle Maximize Editor Group');
  });

  it('Chart… on a SQL console\'s result charts the statement\'s rows', async () => {
    const { page } = workbench();
    await page.locator('.part.sidebar .title-label').first().click();
    await runPaletteCommand(page, 'View: Close All Editor Groups');
    await runPaletteCommand(page, 'Data Query: Open SQL Console');
    const editor = page.locator('.editor-group-container .monaco-editor').first();
    await editor.locator('.view-line', { hasText: 'Data Query SQL console' }).first().waitFor();
    await page.keyboard.press('Control+End'); // below the console's first lines
    await page.keyboard.insertText(`SELECT "value.http_status" AS status, count(*) AS requests FROM ${JOB} GROUP BY ALL`);
    await page.keyboard.press('Escape'); // no completion list in the way
    await editor.locator('.codelens-decoration a', { hasText: 'Run' }).first().click();
    const result = await webviewWith(page, '.toolbar .title', /SELECT "value\.http_status"/);
    await until(page, 'the statement\'s rows', () => result.locator('.toolbar .status').innerText(), (text) => / rows$/.test(text));
    await result.locator('.toolbar button.chart').click();
    const chart = await webviewWith(page, 'label[for="chart-kind"]', 'Chart');
    assert.equal(await chart.locator('#chart-kind').inputValue(), 'histogram', 'the first number column: status');
    await chart.locator('#chart-kind').focus();
    await page.keyboard.press('b');
    await chart.locator('#chart-y').focus();
    await page.keyboard.type('requests');
    const statuses = new Map<number, number>();
    for (const r of records) statuses.set(r.value.http_status, (statuses.get(r.value.http_status) ?? 0) + 1);
    await until(page, 'bars of the requests per status', () => chart.locator('.note').innerText(), (note) => /^The sum of requests per value of status \(\d+ values\)\./.test(note));
    assert.equal(await marks(chart), statuses.size, 'a bar per status the statement gave');
    assert.equal(await chart.locator('.status').innerText(), `${statuses.size} rows.`, 'a row per bar: nothing grouped');
    await page.mouse.move(200, 380);
    await screenshot(page, 'chart-ui-3-console');
  });

  it('dataQuery.chartResult by argument object, from a keybinding, writes the SVG named and asks nothing', async () => {
    const { page, served } = workbench();
    const { jobId } = downloadedJob(served, SAMPLE, 'canvas_logs', 'web_logs');
    const out = path.join(served.run.workspace, 'charts', 'by-argument.svg');
    const args = { connection: SAMPLE, jobId, kind: 'line', x: 'value.timestamp', y: 'value.duration_ms', color: 'value.http_method', path: out };
    const keybindings = path.join(served.run.userData, 'User', 'keybindings.json');
    fs.writeFileSync(`${keybindings}.tmp`, JSON.stringify([{ key: ARGUMENT_KEY.binding, command: 'dataQuery.chartResult', args }], null, 2));
    fs.renameSync(`${keybindings}.tmp`, keybindings);
    // the workbench reads the user's keybindings as it loads
    await page.locator('.part.sidebar .title-label').first().click();
    await runPaletteCommand(page, 'View: Close All Editor Groups');
    await page.reload();
    await page.locator('.monaco-workbench').waitFor();
    await openDataQueryView(page);
    await treeRow(page, SAMPLE).waitFor();
    await page.locator('.part.sidebar .title-label').first().click();
    await page.keyboard.press(ARGUMENT_KEY.press);
    await until(page, 'the SVG written by the keybinding\'s command', async () => fs.existsSync(out), (written) => written);
    assert.equal(await page.locator('.quick-input-widget').isVisible(), false, 'no dialog asked anything');
    const svg = await parseSvg(page, fs.readFileSync(out, 'utf8'));
    assert.ok(svg.parsed, 'the SVG parses');
    assert.ok(svg.texts.includes('GET'), `the legend names the series: ${svg.texts.join(' | ')}`);
    const chart = await webviewWith(page, '.note', /points, one per row/);
    assert.equal(await chart.locator('#chart-kind').inputValue(), 'line', 'the chart is shown too');
    assert.equal(await chart.locator('#chart-color').inputValue(), 'value.http_method');
    await page.mouse.move(200, 380);
    await screenshot(page, 'chart-ui-4-by-argument');
  });

  it('a chart says which of the grid\'s rows it shows, draws the grid\'s new view on request, and is drawn again after a reload of the window', async () => {
    const { page, served } = workbench();
    await page.locator('.part.sidebar .title-label').first().click();
    // the SQL console of an earlier test, kept unsaved across its reload, asks whether to save it
    const unsaved = await page.locator('.tabs-container .tab.dirty').count();
    await runPaletteCommand(page, 'View: Close All Editor Groups');
    if (unsaved > 0) await page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Don\'t Save' }).click();
    const grid = await previewFromJobRow(page, JOB);
    const methods = new Map<string, WebLog[]>();
    for (const r of records) methods.set(r.value.http_method, [...(methods.get(r.value.http_method) ?? []), r]);
    const [[first, firstRows], [second, secondRows]] = [...methods].sort((a, b) => b[1].length - a[1].length);
    const statuses = (rows: WebLog[]): number => new Set(rows.map((r) => r.value.http_status)).size;
    const all = records.length.toLocaleString('en-US');
    const said = (method: string, rows: WebLog[]): string => `Filtered: ${rows.length.toLocaleString('en-US')} of ${all} rows (value.http_method: = ${method}).`;
    const filter = grid.locator('.filters input[aria-label="Filter value.http_method"]');
    const filterGrid = async (method: string, rows: WebLog[]): Promise<void> => {
      await filter.fill(`= ${method}`);
      await filter.press('Enter');
      await until(page, `the grid filtered to ${method}`, () => grid.locator('.toolbar .status').innerText(), (text) => text === `${rows.length.toLocaleString('en-US')} rows`);
    };
    await filterGrid(first, firstRows);
    await grid.locator('.toolbar button.chart').click();
    const chart = await webviewWith(page, 'label[for="chart-kind"]', 'Chart');
    const origin = chart.locator('.origin');
    const redraw = chart.locator('.origin button.redraw');
    await until(page, 'the chart saying which rows it shows', () => origin.innerText(), (text) => text === said(first, firstRows));
    assert.equal(await redraw.isVisible(), false, 'nothing to draw again while the grid shows the same rows');
    await chart.locator('#chart-kind').focus();
    await page.keyboard.press('b');
    await chart.locator('#chart-x').focus();
    await page.keyboard.type('value.http_s');
    await until(page, `bars of the statuses of ${first}`, () => marks(chart), (n) => n === statuses(firstRows));

    // the grid filtered otherwise: the chart says so and offers the grid's view, within reach of the keyboard
    await filterGrid(second, secondRows);
    await until(page, 'the chart saying the grid changed', () => origin.innerText(), (text) => text.startsWith(`${said(first, firstRows)} The grid's view has changed since.`));
    assert.equal(await marks(chart), statuses(firstRows), 'the chart still shows what it said');
    await screenshot(page, 'chart-ui-5-grid-changed');
    await chart.locator('.toolbar button.svg').focus();
    await page.keyboard.press('Tab');
    assert.equal(await chart.locator(':focus').innerText(), 'Redraw with the grid\'s current view', 'Tab reaches the offer after the Save buttons');
    await page.keyboard.press('Enter');
    await until(page, `the chart of ${second}`, () => origin.innerText(), (text) => text === said(second, secondRows));
    await until(page, `bars of the statuses of ${second}`, () => marks(chart), (n) => n === statuses(secondRows));
    assert.equal(await redraw.isVisible(), false, 'the chart shows the grid\'s rows again');

    // a reload of the window: the chart reads its files again, in its view, as it was chosen
    const reloaded = async (): Promise<void> => {
      const loaded = page.waitForEvent('load');
      await runPaletteCommand(page, 'Developer: Reload Window');
      await loaded;
      await page.locator('.monaco-workbench').waitFor();
    };
    await reloaded();
    const restored = await webviewWith(page, '.origin', said(second, secondRows));
    await until(page, 'the chart drawn again', () => marks(restored), (n) => n === statuses(secondRows));
    assert.equal(await restored.locator('#chart-kind').inputValue(), 'bar');
    assert.equal(await restored.locator('#chart-x').inputValue(), 'value.http_status');
    assert.match(await restored.locator('.note').innerText(), /^Rows per value of value\.http_status \(\d+ values\)\./);
    assert.equal(await restored.locator('.origin button.redraw').isVisible(), false, 'no grid to follow after the reload');
    await page.mouse.move(200, 380);
    await screenshot(page, 'chart-ui-6-after-reload');

    // its files gone: the chart says so and what to do; back again, the next reload draws it
    const { folder } = downloadedJob(served, SAMPLE, 'canvas_logs', 'web_logs');
    fs.renameSync(folder, `${folder}.away`);
    try {
      await reloaded();
      const gone = await webviewWith(page, '.error', 'no longer on disk');
      const message = await gone.locator('.error').innerText();
      assert.ok(message.includes(folder) && message.includes('Preview the result again'), `says which file is missing and what to do: ${message}`);
      assert.equal(await marks(gone), 0, 'nothing drawn');
      await screenshot(page, 'chart-ui-7-files-gone');
    } finally {
      fs.renameSync(`${folder}.away`, folder);
    }
    await reloaded();
    const back = await webviewWith(page, '.origin', said(second, secondRows));
    await until(page, 'the chart drawn once its files are back', () => marks(back), (n) => n === statuses(secondRows));
  });
});
