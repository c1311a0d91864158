// Schemas as a person reads them in the workbench: a table expanded into its columns (keys
// first, marked), a column's description in its hover, the schema page of a table with its
// filter and raw JSON, and Find Column across the namespaces revealing the column it finds.
// The sample connection's emulator runs inside VS Code; an emulator in this process serves the
// same sample data as the reference. Screenshots of each step go to test-results/.

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import type { SchemaEnvelope } from '../../../src/core/contract';
import { childrenOf, columnNotes, columnsOf, fieldName, type Column } from '../../../src/core/schema';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { screenshot } from '../harness/browser';
import { contextMenu, settle } from '../harness/jobSteps';
import { workbenchSuite } from '../harness/uiSuite';
import { hoverOf, until, webviewWith } from '../harness/webviews';
import { clickRow, expandRow, openDataQueryView, revealRow, runPaletteCommand, treeRow } from '../harness/workbench';

const SAMPLE = 'Sample data';

interface ShownRow {
  label: string;
  description: string;
  icon: string;
}

/** The Explorer view's rendered rows in the order shown (the list renders them out of DOM order). */
async function explorerRows(page: Page): Promise<ShownRow[]> {
  const pane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header', { hasText: /^Explorer/ }) }).first();
  const rows = await pane.locator('.monaco-list-row').evaluateAll((elements) =>
    elements.map((row) => ({
      index: Number(row.getAttribute('data-index')),
      label: row.querySelector('.label-name')?.textContent ?? '',
      description: row.querySelector('.label-description')?.textContent ?? '',
      icon: Array.from(row.querySelector('.custom-view-tree-node-item-icon')?.classList ?? []).find((c) => c.startsWith('codicon-')) ?? '',
    })),
  );
  return rows.sort((a, b) => a.index - b.index).map(({ label, description, icon }) => ({ label, description, icon }));
}

/** The rows shown right under `label`, as far as they are rendered. */
async function rowsUnder(page: Page, label: string): Promise<ShownRow[]> {
  const rows = await explorerRows(page);
  return rows.slice(rows.findIndex((r) => r.label === label) + 1);
}

async function schemaOf(emulator: RunningEmulator, namespace: string, table: string): Promise<SchemaEnvelope> {
  const client = new DataQueryClient({
    baseUrl: emulator.baseUrl,
    dataPrefix: emulator.dataPrefix,
    credentials: async () => ({ clientId: emulator.clientId, clientSecret: emulator.clientSecret }),
  });
  try {
    return await client.getSchema(namespace, table);
  } finally {
    await client.close();
  }
}

describe('Schemas in the VS Code workbench', function () {
  this.timeout(300_000);
  const workbench = workbenchSuite('schemas-ui', { 'dataQuery.connections': [{ name: SAMPLE, sample: true }] });
  /** the service's answers, from an emulator in this process serving the same sample data */
  let reference: RunningEmulator;

  before(async () => {
    reference = await startEmulator({ port: 0, limits: false });
  });
  after(async () => reference?.close());

  it('expands a table into its columns, keys first and marked, and shows a column\'s description in its hover', async () => {
    const { page } = workbench();
    const envelope = await schemaOf(reference, 'canvas', 'enrollments');
    const columns = columnsOf(envelope);
    const keys = childrenOf(columns, 'key');
    const expected = [...keys, ...childrenOf(columns, 'value')].map(fieldName);

    await openDataQueryView(page);
    // room for columns: the Jobs view has nothing to show here
    const jobs = page.locator('.part.sidebar .pane-header', { hasText: /^Jobs/ }).first();
    if ((await jobs.getAttribute('aria-expanded')) === 'true') await jobs.click();
    await expandRow(page, SAMPLE);
    await expandRow(page, 'canvas');
    await revealRow(page, 'enrollments'); // one of 90 tables: maybe below what the tree shows
    await expandRow(page, 'enrollments');
    await treeRow(page, expected[0]).waitFor();
    const shown = await until(page, 'the columns of enrollments', () => rowsUnder(page, 'enrollments'), (rows) => rows.length >= keys.length + 2);
    const compared = Math.min(shown.length, expected.length);
    assert.deepEqual(shown.slice(0, compared).map((r) => r.label), expected.slice(0, compared), 'the columns in the schema\'s order, keys first');
    for (const [i, key] of keys.entries()) {
      assert.equal(shown[i].icon, 'codicon-key', `${key.name} has the key icon`);
      assert.match(shown[i].description, /· key · required$/, `${key.name} is marked key and required`);
    }
    const version = () => explorerRows(page).then((rows) => rows.find((r) => r.label === 'enrollments')?.description);
    await until(page, 'the schema version on the table', version, (shown) => shown === `v${envelope.version}`);
    await settle(page);
    await screenshot(page, 'schemas-ui-1-columns');

    const type = columns.find((c) => c.name === 'type') as Column;
    const values = (type.enumValues ?? []).map((v) => JSON.stringify(v));
    assert.ok(values.length >= 3, 'the sample enrollments have a type with several values');
    const hover = await hoverOf(page, treeRow(page, 'type'), values[0]);
    const text = await hover.innerText();
    assert.ok(text.includes(`Values: ${values.join(', ')}`), `the hover lists the values: ${text}`);
    assert.ok(!text.includes('\u00a0') && !text.includes('&nbsp;'), `words are apart with ordinary spaces, so the hover wraps between them: ${JSON.stringify(text)}`);
    assert.ok(text.includes('Data column, required.'), `the hover says what kind of column it is: ${text}`);
    await screenshot(page, 'schemas-ui-2-column-hover');
    // a table's hover is made when hovered (so its age is current): VS Code asks for it then
    const tableHover = await hoverOf(page, treeRow(page, 'enrollments'), `Schema version ${envelope.version}, read`);
    assert.match(await tableHover.innerText(), /canvas\.enrollments[\s\S]*Schema version \d+, read (just now|\d+ (s|min) ago)\./);

    await clickRow(page, treeRow(page, 'enrollments')); // collapses it
    await revealRow(page, 'users');
    await expandRow(page, 'users');
    await revealRow(page, 'preferences');
    await expandRow(page, 'preferences');
    const users = columnsOf(await schemaOf(reference, 'canvas', 'users'));
    const members = childrenOf(users, 'value', 'preferences').map(fieldName);
    await treeRow(page, members[0]).waitFor();
    const underPreferences = await until(page, 'the members of preferences', () => rowsUnder(page, 'preferences'), (rows) => rows.length >= members.length);
    assert.deepEqual(underPreferences.slice(0, members.length).map((r) => r.label), members, 'a nested object expands into its members');
    await settle(page);
    await screenshot(page, 'schemas-ui-3-nested-columns');
  });

  it('opens the schema page of a table, filters its columns and shows the raw JSON schema', async () => {
    const { page } = workbench();
    const envelope = await schemaOf(reference, 'canvas', 'users');
    const columns = columnsOf(envelope);
    await contextMenu(page, await revealRow(page, 'users'), 'Show Schema');
    await page.locator('.tabs-container .tab', { hasText: 'Schema: canvas.users' }).waitFor();
    const schemaPage = await webviewWith(page, 'h1', 'canvas.users');
    assert.equal(await schemaPage.locator('h1 .version').innerText(), `schema version ${envelope.version}`);
    const rows = schemaPage.locator('#columns tbody tr');
    assert.equal(await rows.count(), columns.length, 'one row per column, nested members included');
    assert.deepEqual(
      (await schemaPage.locator('#columns tbody tr td:first-child').allInnerTexts()).slice(0, 2),
      [...childrenOf(columns, 'key'), ...childrenOf(columns, 'value')].slice(0, 2).map((c) => c.name),
    );
    await screenshot(page, 'schemas-ui-4-schema-page');

    await schemaPage.locator('#filter').fill('prefer');
    const visible = schemaPage.locator('#columns tbody tr:not([hidden]) td:first-child');
    const searched = (c: Column): string => [c.name, c.type, c.description ?? '', ...columnNotes(c)].join(' ').toLowerCase();
    const wanted = columns.filter((c) => searched(c).includes('prefer')).map((c) => c.name);
    const names = await until(page, 'the filtered columns', () => visible.allInnerTexts(), (shown) => shown.length === wanted.length);
    assert.deepEqual(names, wanted, 'only the columns whose name, type or description contain the text');
    assert.ok(names.includes('preferences.theme'), 'members of a nested object are listed by their path');
    await screenshot(page, 'schemas-ui-5-schema-page-filtered');

    await schemaPage.locator('#raw summary').click();
    const raw = schemaPage.locator('#raw pre');
    await raw.waitFor();
    assert.deepEqual(JSON.parse(await raw.innerText()), envelope, 'the raw schema is the service\'s answer');
    await screenshot(page, 'schemas-ui-6-raw-schema');
    await runPaletteCommand(page, 'View: Close All Editors');
  });

  it('keeps the schema page\'s filter, raw JSON and scroll position when its tab is hidden and shown again, and when it is drawn again', async () => {
    const { page } = workbench();
    const columns = columnsOf(await schemaOf(reference, 'canvas', 'users'));
    const searched = (c: Column): string => [c.name, c.type, c.description ?? '', ...columnNotes(c)].join(' ').toLowerCase();
    const wanted = columns.filter((c) => searched(c).includes('prefer')).map((c) => c.name);
    await contextMenu(page, await revealRow(page, 'users'), 'Show Schema');
    let schemaPage = await webviewWith(page, 'h1', 'canvas.users');
    await schemaPage.locator('#filter').fill('prefer');
    await schemaPage.locator('#raw summary').click();
    await schemaPage.locator('#raw pre').waitFor();
    await schemaPage.locator('body').evaluate(() => window.scrollTo(0, 200));
    const scrolled = await until(page, 'the page scrolled down', () => schemaPage.locator('body').evaluate(() => window.scrollY), (y) => y > 100);
    await page.waitForTimeout(300); // the page notes its scroll position on the next frame

    /** Waits for the page loaded anew (not the one marked before) and checks it shows what was left. */
    const shownAsLeft = async (when: string): Promise<void> => {
      schemaPage = await webviewWith(page, 'body:not([data-before])', 'canvas.users');
      const state = () =>
        schemaPage.locator('body').evaluate(() => ({
          filter: (document.getElementById('filter') as HTMLInputElement).value,
          raw: (document.getElementById('raw') as HTMLDetailsElement).open,
          scrollY: window.scrollY,
          rows: Array.from(document.querySelectorAll('#columns tbody tr:not([hidden]) td:first-child')).map((td) => td.textContent),
        }));
      const seen = await until(page, `the page as it was left, ${when}`, state, (s) => s.filter === 'prefer' && s.raw && Math.abs(s.scrollY - scrolled) <= 2);
      assert.deepEqual(seen.rows, wanted, `only the filtered columns, ${when}`);
    };
    const markPage = () => schemaPage.locator('body').evaluate((b) => (b.dataset.before = 'yes'));

    await markPage();
    await contextMenu(page, await revealRow(page, 'courses'), 'Show Schema'); // another table's page hides this one
    await page.locator('.tabs-container .tab.active', { hasText: 'Schema: canvas.courses' }).waitFor();
    await page.locator('.tabs-container .tab', { hasText: 'Schema: canvas.users' }).click();
    await shownAsLeft('after its tab was hidden and shown again');
    await screenshot(page, 'schemas-ui-6a-schema-page-kept');

    await markPage();
    await contextMenu(page, await revealRow(page, 'users'), 'Show Schema'); // draws the page again
    await shownAsLeft('after it was drawn again');
    await runPaletteCommand(page, 'View: Close All Editors');
  });

  it('finds a column across the namespaces and reveals it in the tree, from another side bar view', async () => {
    const { page } = workbench();
    // start from a collapsed tree, so the reveal has to open the way to the column
    await settle(page);
    await page.locator('.part.sidebar .pane-header', { hasText: /^Explorer/ }).first().hover();
    await page.locator('.part.sidebar .action-label[aria-label="Collapse All"]').first().click();
    await until(page, 'a collapsed tree', () => treeRow(page, 'users').count(), (n) => n === 0);
    // and from another side bar view: the palette works from anywhere
    await runPaletteCommand(page, 'View: Show Explorer');
    await page.locator('.part.sidebar .title-label', { hasText: /^Explorer/i }).first().waitFor();

    await runPaletteCommand(page, 'Data Query: Find Column...');
    const input = page.locator('.quick-input-widget input').first();
    await page.locator('.quick-input-widget input[placeholder="Part of a column name or description"]').waitFor();
    await input.fill('font_size');
    const match = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'canvas.users.preferences.font_size' }).first();
    await match.waitFor();
    assert.match(await match.innerText(), /int32/, 'the match shows the column\'s type');
    await screenshot(page, 'schemas-ui-7-find-column');
    await page.keyboard.press('Enter');
    await page.locator('.notifications-toasts', { hasText: 'Reading the schemas' }).waitFor({ state: 'hidden' });

    const selected = page.locator('.part.sidebar .monaco-list-row.selected', { has: page.locator('.label-name', { hasText: /^font_size$/ }) });
    await selected.waitFor();
    // canvas itself may be scrolled out of view above its 90 tables: users drawn under it shows it open
    for (const parent of ['users', 'preferences']) assert.equal(await treeRow(page, parent).getAttribute('aria-expanded'), 'true', `${parent} is expanded`);
    const shown = await explorerRows(page);
    assert.equal(shown.find((r) => r.label === 'preferences')?.description, 'object', 'the object on the way keeps its own type');
    assert.equal(shown.find((r) => r.label === 'font_size')?.description, 'int32');
    await screenshot(page, 'schemas-ui-8-column-revealed');
  });
});
