// Query-job steps in the workbench, as a person takes them: Query Table from a table's
// context menu accepting each pre-selected answer, the status bar item, the Jobs view's rows,
// and a job's result previewed from its row. Used by the UI tests and by
// `npm run demo -- --screenshot`.

import type { FrameLocator, Locator, Page } from 'playwright-core';
import { webviewWith } from './webviews';
import { expandRow, openDataQueryView, treeRow } from './workbench';

/** Right-clicks a tree row and picks `item` from its context menu. */
export async function contextMenu(page: Page, row: Locator, item: string): Promise<void> {
  await row.waitFor();
  await row.click({ button: 'right' });
  const action = page.locator('.context-view .monaco-menu .action-label', { hasText: item }).first();
  await action.hover();
  await page.waitForTimeout(300); // a menu ignores clicks in the first moments after it opens
  await action.click();
}

/** Waits for a multi-step quick pick's step `n/m` whose pre-selected item contains `focused`, and returns that item's text. */
export async function pickStep(page: Page, title: string, focused: string | RegExp = /./): Promise<{ text: string; last: boolean }> {
  const heading = page.locator('.quick-input-widget .quick-input-title', { hasText: title });
  await heading.waitFor();
  const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row.focused', { hasText: focused }).first();
  await row.waitFor();
  const [, n, m] = /\((\d+)\/(\d+)\)/.exec(await heading.innerText()) ?? [];
  return { text: await row.innerText(), last: n === m };
}

/** Runs Query Table on a table row and accepts every pre-selected answer. */
export async function queryTableFromTree(page: Page, table: string, onStep: (n: number) => Promise<unknown> = async () => undefined): Promise<void> {
  await contextMenu(page, treeRow(page, table), 'Query Table...');
  for (let n = 1; ; n++) {
    const { last } = await pickStep(page, `Query Table (${n}/`);
    await onStep(n);
    await page.keyboard.press('Enter');
    if (last) return;
  }
}

/**
 * Opens the Data Query view, expands `connection` and its `namespace`, runs Query Table on
 * `table` accepting every pre-selected answer, and waits for the job to complete; resolves
 * with its row in the Jobs view.
 */
export async function queryTableToCompletion(page: Page, connection: string, namespace: string, table: string): Promise<Locator> {
  await openDataQueryView(page);
  await expandRow(page, connection);
  await expandRow(page, namespace);
  await treeRow(page, table).waitFor();
  await queryTableFromTree(page, table);
  return jobRow(page, `${namespace}.${table}`, /complete/);
}

/** Preview Result on the completed job's row (`namespace.table`); resolves with the grid once it shows the job. */
export async function previewFromJobRow(page: Page, job: string): Promise<FrameLocator> {
  await contextMenu(page, await jobRow(page, job, /complete/), 'Preview Result');
  return webviewWith(page, '.toolbar .title', job);
}

/** The "Data Query" status bar item, by its accessible label, e.g. `Data Query: 1 job`. */
export function statusItem(page: Page, label: string | RegExp = /^Data Query/): Locator {
  return page.locator('.part.statusbar').getByLabel(label).first();
}

/** The newest Jobs view row of a table (rows are newest first), once its description matches `state`. */
export async function jobRow(page: Page, table: string, state: RegExp): Promise<Locator> {
  const newest = treeRow(page, table);
  await newest.filter({ has: page.locator('.label-description', { hasText: state }) }).waitFor({ timeout: 120_000 });
  return newest;
}

/** Moves the pointer off everything and focuses the editor area, so no hover or focus outline shows. */
export async function settle(page: Page): Promise<void> {
  await page.mouse.click(900, 600);
  await page.waitForTimeout(500);
}
