// A query job as a person runs it in the workbench: Query Table from a table's context menu,
// the status bar's spinner and count, the job completing in the Jobs view with its files,
// a file opened in an editor, an incremental query from the job's point, and that point
// still offered after the window reloads; then Query Table from the palette, whose table step
// shows the tables the tree listed without a listing of its own (5 a minute). The service is
// an emulator in this process whose jobs take a few seconds, as real ones do, and whose
// request log counts the listings. Last, the context menu of a query stopped while the create
// budget held it (never sent: nothing to download) beside a completed job's. Screenshots of
// each step go to test-results/.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Locator, Page } from 'playwright-core';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { tablesOf } from '../../support/emulatorTables';
import { screenshot } from '../harness/browser';
import { contextMenu, jobRow, pickStep, queryTableFromTree, settle, statusItem } from '../harness/jobSteps';
import { addConnection, workbenchSuite } from '../harness/uiSuite';
import { hoverOf } from '../harness/webviews';
import { clickRow, expandRow, openDataQueryView, runPaletteCommand, treeRow } from '../harness/workbench';

const CONNECTION = 'Local service';
const JOB = 'canvas.accounts';

/** The items of a tree row's context menu, as shown (in a screenshot, when named); the menu is closed again. */
async function menuItems(page: Page, row: Locator, shot?: string): Promise<string[]> {
  await settle(page);
  await row.click({ button: 'right' });
  const labels = page.locator('.context-view .monaco-menu .action-label');
  await labels.first().waitFor();
  const items = (await labels.allInnerTexts()).map((t) => t.trim()).filter((t) => t !== '');
  if (shot) await screenshot(page, shot);
  await page.keyboard.press('Escape');
  await page.locator('.context-view .monaco-menu').waitFor({ state: 'hidden' });
  return items;
}

describe('Query jobs in the VS Code workbench', function () {
  this.timeout(300_000);
  const workbench = workbenchSuite('jobs-ui', {});
  let service: RunningEmulator;

  before(async () => {
    service = await startEmulator({ port: 0, jobDelayMs: 8_000, limits: false });
  });

  after(async () => service?.close());

  it('runs Query Table from the tree, follows it in the status bar and the Jobs view, and opens its file', async () => {
    const { page, served } = workbench();
    await openDataQueryView(page);
    await addConnection(page, CONNECTION, service);
    await expandRow(page, CONNECTION);
    await expandRow(page, 'canvas');
    await treeRow(page, 'accounts').waitFor();

    await queryTableFromTree(page, 'accounts', (n) => screenshot(page, `jobs-ui-1-query-table-step-${n}`));
    const spinner = statusItem(page, 'Data Query: 1 job');
    await spinner.waitFor();
    assert.equal(await spinner.locator('.codicon-sync.codicon-modifier-spin').count(), 1, 'the status bar item spins');
    await screenshot(page, 'jobs-ui-2-status-bar-running');

    await spinner.click(); // shows the Jobs view
    await jobRow(page, JOB, /snapshot · (waiting|running)/);
    await screenshot(page, 'jobs-ui-3-job-running');
    const done = await jobRow(page, JOB, /snapshot · complete/);
    await statusItem(page, `Data Query: ${JOB}`).waitFor(); // the last result, with a check mark
    await screenshot(page, 'jobs-ui-4-job-complete');

    const folder = path.join(served.run.workspace, 'data-query-results', CONNECTION, 'canvas', 'accounts');
    const [jobId] = fs.readdirSync(folder);
    const [file] = fs.readdirSync(path.join(folder, jobId));
    await expandRow(page, JOB);
    const fileRow = treeRow(page, file);
    await fileRow.waitFor();
    await screenshot(page, 'jobs-ui-5-job-files');

    await clickRow(page, fileRow);
    const firstRow = gunzipSync(fs.readFileSync(path.join(folder, jobId, file))).toString('utf8').split('\n')[0];
    const editorLine = page.locator('.editor-group-container .monaco-editor .view-line').first();
    await page.locator('.tabs-container .tab', { hasText: file.replace(/\.gz$/, '') }).waitFor();
    await editorLine.waitFor();
    const shownLine = (await editorLine.innerText()).replace(/\u00a0/g, ' ');
    assert.ok(firstRow.startsWith(shownLine.slice(0, 60)) && shownLine.length > 20, `the editor shows the first row: ${shownLine.slice(0, 80)}`);
    await screenshot(page, 'jobs-ui-6-file-open');
    assert.match(await done.innerText(), /data at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/, 'the job tells how fresh its data is');
  });

  it('runs Query Changes Since on the job from its point, and offers the newer point after a reload', async () => {
    const { page } = workbench();
    const snapshot = await jobRow(page, JOB, /snapshot · complete/);
    const at = /data at (\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC)/.exec(await snapshot.innerText())?.[1];
    assert.ok(at, 'the snapshot shows its point');

    await settle(page);
    await contextMenu(page, snapshot, 'Query Changes Since This Job');
    const incremental = await jobRow(page, JOB, /incremental · complete/);
    await screenshot(page, 'jobs-ui-7-incremental-complete');
    assert.ok((await (await hoverOf(page, incremental, 'changes since')).innerText()).includes(`changes since ${at}`), `the incremental starts at the snapshot's point, ${at}`);
    await screenshot(page, 'jobs-ui-8-incremental-tooltip');
    const until = /data at (\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC)/.exec(await incremental.innerText())?.[1] as string;

    await page.reload();
    await page.locator('.monaco-workbench').waitFor();
    await openDataQueryView(page);
    await jobRow(page, JOB, /incremental · complete/);
    await expandRow(page, CONNECTION);
    await expandRow(page, 'canvas');
    await contextMenu(page, treeRow(page, 'accounts'), 'Query Table...');
    await pickStep(page, 'Query Table (1/2)');
    await page.keyboard.press('Enter');
    const { text } = await pickStep(page, 'Query Table (2/2)', 'Changes since');
    await screenshot(page, 'jobs-ui-9-after-reload-changes-offered');
    assert.ok(text.includes(`Changes since ${until}`), `after a reload the incremental from ${until} is pre-selected: ${text}`);
    await page.keyboard.press('Escape');
  });

  it('runs Query Table from the palette after the tree listed canvas: its table step shows those tables and spends no listing', async () => {
    const { page } = workbench();
    const tables = [...(await tablesOf(service, 'canvas'))].sort();
    await openDataQueryView(page);
    await expandRow(page, CONNECTION);
    await expandRow(page, 'canvas');
    await treeRow(page, 'accounts').waitFor(); // the tree has listed canvas
    const listings = (): number => service.requestLog.entries().filter((e) => e.operation === 'listTables').length;
    const before = listings();
    assert.ok(before >= 2, 'the tree listed canvas (and so did the reference listing here)');

    await runPaletteCommand(page, 'Data Query: Query Table...');
    await pickStep(page, 'Query Table (1/', CONNECTION);
    await page.keyboard.press('Enter');
    await pickStep(page, 'Query Table (2/', 'canvas');
    await page.keyboard.press('Enter');
    const { text } = await pickStep(page, 'Query Table (3/', 'accounts');
    assert.equal(text.trim(), 'accounts', 'the table of the last job is pre-selected');
    // the list holds every table of canvas: the last one is found by typing its name
    const last = tables[tables.length - 1];
    await page.locator('.quick-input-widget input').fill(last);
    await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: last }).first().waitFor();
    await screenshot(page, 'jobs-ui-10-palette-table-step');
    assert.equal(listings(), before, 'the table step listed nothing: it read the tables the tree kept');
    await page.keyboard.press('Escape');
  });

  it('offers Run Again and Remove but no Download for a query stopped before it was sent, and Download for a completed job', async () => {
    const { page } = workbench();
    await openDataQueryView(page);
    await expandRow(page, CONNECTION);
    await expandRow(page, 'canvas');
    await treeRow(page, 'accounts').waitFor();
    const queuedRow = page.locator('.part.sidebar .monaco-list-row', { has: page.locator('.label-description', { hasText: /· queued: rate limit/ }) }).first();
    // create job allows 5 a minute: queries of the other tables, one after another, until one waits for the budget
    const tables = [...(await tablesOf(service, 'canvas'))].filter((t) => t !== 'accounts').sort();
    const asked: string[] = [];
    for (const table of tables) {
      await queryTableFromTree(page, table);
      asked.push(table);
      await treeRow(page, `canvas.${table}`).waitFor();
      if ((await queuedRow.count()) > 0) break;
    }
    await queuedRow.waitFor();
    await screenshot(page, 'jobs-ui-11-query-queued');
    const held = (await queuedRow.locator('.label-name').innerText()).trim();
    await contextMenu(page, queuedRow, 'Stop Following Job');
    const stopped = await jobRow(page, held, /snapshot · cancelled/);
    assert.match(await (await hoverOf(page, stopped, 'Stopped')).innerText(), /Stopped before the query was sent/, 'the query never reached the service');

    const neverSent = await menuItems(page, stopped, 'jobs-ui-12-never-sent-menu');
    assert.ok(neverSent.includes('Run Again') && neverSent.includes('Remove Job'), `Run Again and Remove: ${neverSent.join(', ')}`);
    assert.ok(!neverSent.includes('Download Results'), `no Download for a query that has no job: ${neverSent.join(', ')}`);

    const complete = await jobRow(page, `canvas.${asked[0]}`, /snapshot · complete/);
    const completed = await menuItems(page, complete);
    assert.ok(completed.includes('Download Results'), `a completed job offers Download: ${completed.join(', ')}`);
  });
});
