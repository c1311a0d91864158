// End-to-end: the packaged extension installed in real VS Code (code-server), driven in
// headless Chromium as a person would use it. Screenshots of each step go to test-results/.

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { tablesOf } from '../../support/emulatorTables';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { screenshot } from '../harness/browser';
import {
  answerInputBox,
  clickRow,
  expandRow,
  notificationWith,
  openDataQueryView,
  openWorkbench,
  revealRow,
  runPaletteCommand,
  serveExtension,
  treeRow,
  type OpenWorkbench,
  type ServedExtension,
} from '../harness/workbench';

async function visibleLabels(page: Page): Promise<string[]> {
  return page.locator('.part.sidebar .monaco-list-row .label-name').allInnerTexts();
}

describe('Data Query view in the VS Code workbench', function () {
  this.timeout(300_000);
  let served: ServedExtension | undefined;
  let open: OpenWorkbench | undefined;
  /** an emulator in this process, outside VS Code: what the service would answer */
  let reference: RunningEmulator;

  before(async function () {
    reference = await startEmulator({ port: 0 });
    served = await serveExtension('ui', { 'dataQuery.connections': [{ name: 'Sample data', sample: true }] });
    open = await openWorkbench(served);
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && open) {
      const shot = await screenshot(open.page, `ui-failure-${this.currentTest.title}`);
      if (shot) console.log(`    screenshot: ${shot}`);
    }
  });

  after(async () => {
    await open?.context.close().catch(() => undefined);
    await served?.server.stop();
    await reference?.close();
  });

  it('shows the sample connection with the emulator\'s namespaces and a namespace\'s tables', async () => {
    const page = (open as OpenWorkbench).page;
    await openDataQueryView(page);
    await treeRow(page, 'Sample data').waitFor();
    await screenshot(page, 'ui-1-view-opened');

    await expandRow(page, 'Sample data');
    for (const namespace of reference.namespaces) await treeRow(page, namespace).waitFor();
    await screenshot(page, 'ui-2-namespaces');

    const namespace = reference.namespaces[0];
    const expected = await tablesOf(reference, namespace);
    assert.ok(expected.length > 0, `the emulator lists tables in ${namespace}`);
    await expandRow(page, namespace);
    // more tables than the tree has room for (the service's 90 canvas tables): each is scrolled to
    for (const table of expected) await revealRow(page, table, { toTop: false });
    await revealRow(page, expected[0]);
    await screenshot(page, 'ui-3-tables');
    const shown = await visibleLabels(page);
    assert.ok(shown.includes(expected[0]), `the tree shows ${expected[0]}`);
  });

  it('adds a connection through the palette, tests it, and lists its namespaces and tables', async () => {
    const page = (open as OpenWorkbench).page;
    // collapse the sample connection so the new one is in view
    const sample = treeRow(page, 'Sample data');
    if ((await sample.getAttribute('aria-expanded')) === 'true') await clickRow(page, sample);

    await runPaletteCommand(page, 'Data Query: Add Connection');
    await answerInputBox(page, '(1/5)', 'Local emulator');
    await answerInputBox(page, '(2/5)', reference.baseUrl);
    await answerInputBox(page, '(3/5)', reference.clientId);
    await screenshot(page, 'ui-4-add-connection-inputs');
    await answerInputBox(page, '(4/5)', reference.clientSecret);
    await answerInputBox(page, '(5/5)', '');
    await notificationWith(page, 'Connection "Local emulator" added.');
    await screenshot(page, 'ui-5-connection-added');

    await expandRow(page, 'Local emulator');
    const namespace = reference.namespaces[0];
    const expected = await tablesOf(reference, namespace);
    // the new connection lists the default namespaces; the emulator serves them all
    await treeRow(page, namespace).waitFor();
    await expandRow(page, namespace);
    await revealRow(page, expected[expected.length - 1]);
    await screenshot(page, 'ui-6-new-connection-tables');
    const logins = reference.requestLog.entries().filter((e) => e.path.endsWith('/ids/auth/login'));
    assert.ok(logins.length >= 1, 'the extension asked the emulator for a token');
  });

  it('keeps the typed values and shows the reason when a connection test fails', async () => {
    const page = (open as OpenWorkbench).page;
    await runPaletteCommand(page, 'Data Query: Add Connection');
    await answerInputBox(page, '(1/5)', 'Wrong secret');
    await answerInputBox(page, '(2/5)', reference.baseUrl);
    await answerInputBox(page, '(3/5)', reference.clientId);
    await answerInputBox(page, '(4/5)', 'not-the-secret');
    await answerInputBox(page, '(5/5)', '');
    const toast = await notificationWith(page, 'Could not connect to "Wrong secret"');
    await screenshot(page, 'ui-7-connection-refused');
    assert.doesNotMatch(await toast.innerText(), /not-the-secret/, 'the secret is not shown');
    await page.locator('.notifications-toasts .monaco-button', { hasText: 'Edit and Retry' }).first().click();
    const input = page.locator('.quick-input-widget input').first();
    await page.locator('.quick-input-widget .quick-input-title', { hasText: '(1/5)' }).waitFor();
    assert.equal(await input.inputValue(), 'Wrong secret', 'the name typed before is kept');
    await page.keyboard.press('Escape');
    assert.equal(await treeRow(page, 'Wrong secret').count(), 0, 'a failed connection is not saved');
  });
});
