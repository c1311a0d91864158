// Sync as a person runs it in the workbench: Sync Table from a table's context menu, the
// progress notification with its Cancel button while the tree shows the table's stage, the
// summary notification, the table marked with its point and row count, and Open SQL Console
// from the summary opening a console on the synced database. The service is an emulator in
// this process; the sync target is a DuckDB file in a folder of the test, read back here.
// Screenshots of each step go to test-results/.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { screenshot } from '../harness/browser';
import { contextMenu } from '../harness/jobSteps';
import { addConnection, workbenchSuite } from '../harness/uiSuite';
import { expandRow, notificationWith, openDataQueryView, treeRow } from '../harness/workbench';

const duckdb = require('@duckdb/node-api') as typeof import('@duckdb/node-api');

const CONNECTION = 'Sync service';

/** Rows of a synced table, read from the database file as any DuckDB client would. */
async function syncedRows(file: string, namespace: string, table: string): Promise<number> {
  const db = await duckdb.DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const conn = await db.connect();
  try {
    const reader = await conn.runAndReadAll(`SELECT count(*) FROM "${namespace}"."${table}"`);
    return Number(reader.getRowsJson()[0][0]);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

/** The sync items of the accounts table's context menu, read and closed again. */
async function syncMenuItems(page: Page): Promise<string[]> {
  const row = treeRow(page, 'accounts');
  await row.waitFor();
  await row.click({ button: 'right' });
  const labels = page.locator('.context-view .monaco-menu .action-label');
  await labels.first().waitFor();
  const all = await labels.allInnerTexts();
  await page.keyboard.press('Escape');
  await page.locator('.context-view .monaco-menu').waitFor({ state: 'detached' });
  return all.map((l) => l.trim()).filter((l) => /Sync Table|Synced Database/.test(l));
}

describe('Sync in the VS Code workbench', function () {
  this.timeout(300_000);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'dq-sync-ui-'));
  const target = path.join(folder, 'synced.duckdb');
  const workbench = workbenchSuite('sync-ui', { 'dataQuery.sync.target': target });
  let service: RunningEmulator;

  before(async () => {
    service = await startEmulator({ port: 0, jobDelayMs: 5_000, limits: false });
  });
  after(async () => {
    await service?.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('syncs a table from its context menu: progress with Cancel, the summary, the table marked with its rows, and a SQL console on the database', async () => {
    const { page } = workbench();
    await openDataQueryView(page);
    await addConnection(page, CONNECTION, service);
    await expandRow(page, CONNECTION);
    await expandRow(page, 'canvas');
    assert.deepEqual(await syncMenuItems(page), ['Sync Table'], 'no console on a database that does not exist yet');
    await contextMenu(page, treeRow(page, 'accounts'), 'Sync Table');

    const progress = page.locator('.notifications-toasts .notification-list-item', { hasText: 'Sync canvas.accounts' }).first();
    await progress.waitFor();
    assert.equal(await progress.locator('.monaco-button', { hasText: 'Cancel' }).count(), 1, 'the running sync offers Cancel');
    await treeRow(page, 'accounts').locator('.label-description', { hasText: /^syncing/ }).waitFor();
    await screenshot(page, 'sync-ui-1-syncing');

    const summary = await notificationWith(page, /^Sync: canvas\.accounts to /);
    assert.match(await summary.innerText(), /canvas\.accounts to .*synced\.duckdb: .*data as of /);
    const rows = await syncedRows(target, 'canvas', 'accounts');
    assert.ok(rows > 0, 'the table is in the database file');
    await treeRow(page, 'accounts').locator('.label-description', { hasText: new RegExp(`synced .*, ${rows} rows`) }).waitFor();
    await screenshot(page, 'sync-ui-2-synced');
    assert.deepEqual(await syncMenuItems(page), ['Sync Table', 'Open SQL Console on Synced Database'], 'the console once the database is there');

    const toast = page.locator('.notifications-toasts .notification-list-item', { hasText: /Sync: canvas\.accounts to / }).first();
    await toast.locator('.monaco-button', { hasText: 'Open SQL Console' }).click();
    await page.locator('.editor-group-container .monaco-editor .view-lines', { hasText: 'canvas.accounts' }).first().waitFor();
    await screenshot(page, 'sync-ui-3-console');
  });
});
