// The packaged extension in code-server, shown in headless Chromium, with helpers that act
// as a person would: click the activity bar, expand tree rows, run palette commands, type
// into input boxes. Used by the UI tests and by `npm run demo -- --screenshot`.

import * as path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { openBrowser } from './browser';
import { installExtension, startCodeServer, type CodeServer } from './codeServer';
import { packageExtension } from './packageExtension';
import { createRunFolder, writeUserSettings, type RunFolder } from './runFolder';
import { ensureToolchain, type Toolchain } from './toolchain';

export const UI_TIMEOUT_MS = 60_000;

export interface ServedExtension {
  tools: Toolchain;
  run: RunFolder;
  server: CodeServer;
  vsix: string;
}

/** Packages and installs the extension into a fresh code-server started WITHOUT the smoke-test driver. */
export async function serveExtension(label: string, settings: Record<string, unknown>, log: (l: string) => void = () => undefined): Promise<ServedExtension> {
  const tools = ensureToolchain();
  const run = createRunFolder(label);
  log('Packaging the extension with vsce…');
  const vsix = packageExtension(path.join(run.root, 'data-query-explorer.vsix'));
  log('Installing it into code-server…');
  installExtension(tools, run, vsix);
  writeUserSettings(run, settings);
  const server = await startCodeServer(tools, run);
  return { tools, run, server, vsix };
}

export interface OpenWorkbench {
  context: BrowserContext;
  page: Page;
}

export async function openWorkbench(served: ServedExtension): Promise<OpenWorkbench> {
  const context = await openBrowser(served.tools, served.run);
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  await page.goto(served.server.workbenchUrl(served.run.workspace));
  await page.locator('.monaco-workbench').waitFor();
  return { context, page };
}

function exactly(text: string): RegExp {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
}

/** Clicks the "Data Query" item in the activity bar; resolves when its view is shown. */
export async function openDataQueryView(page: Page): Promise<void> {
  const item = page.locator('.activitybar .action-item [aria-label^="Data Query"]').first();
  const title = page.locator('.part.sidebar .title-label', { hasText: /Data Query/i }).first();
  await item.waitFor();
  // Clicking the container that is already shown hides the side bar, and after a reload the
  // workbench may restore the view just after a click: click until the view stays shown.
  for (let attempt = 1; ; attempt++) {
    if (!(await title.isVisible())) await item.click();
    try {
      await title.waitFor({ timeout: 10_000 });
      await page.waitForTimeout(500); // a restore that lands now would hide it again
      if (await title.isVisible()) return;
    } catch (err) {
      if (attempt >= 4) throw err;
    }
    if (attempt >= 4) await title.waitFor();
  }
}

/** A row of the sidebar tree whose label is exactly `label`. */
export function treeRow(page: Page, label: string): Locator {
  return page.locator('.part.sidebar .monaco-list-row', { has: page.locator('.label-name', { hasText: exactly(label) }) }).first();
}

/**
 * The row of `label` in the side bar's first tree, scrolled into view: a tree draws only the
 * rows in its viewport, and a namespace of the service's size (90 canvas tables) has more
 * than fit. Scrolls to the tree's top, then down until the row is drawn, with the mouse wheel;
 * with `toTop`, then brings the row to the top quarter of the tree, so that the rows it
 * expands into are drawn too. The pointer ends off the tree (no hover tooltip over the rows).
 */
export async function revealRow(page: Page, label: string, options: { toTop?: boolean } = {}): Promise<Locator> {
  const row = treeRow(page, label);
  const list = page.locator('.part.sidebar .monaco-list', { has: page.locator('.monaco-list-row') }).first();
  await list.waitFor();
  const box = await list.boundingBox();
  if (!box) throw new Error(`the tree is not shown, so "${label}" cannot be scrolled to`);
  const wheel = async (dy: number): Promise<void> => {
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, dy);
    await page.waitForTimeout(60); // the tree draws the rows it scrolled to
  };
  const rows = list.locator('.monaco-list-row .label-name');
  const shownLabels = async (): Promise<string> => (await rows.allTextContents()).join('\n');
  // a wheel step moves a bounded distance, so the ends are found by the rows shown no longer changing
  const scrollUntilStill = async (dy: number, limit: number): Promise<void> => {
    for (let step = 0; step < limit && (await row.count()) === 0; step++) {
      const before = await shownLabels();
      await wheel(dy);
      if ((await shownLabels()) === before) break;
    }
  };
  const deadline = Date.now() + 15_000; // the tables may still be on their way from the service
  while ((await row.count()) === 0 && Date.now() < deadline) {
    await scrollUntilStill(-400, 60);
    await scrollUntilStill(110, 200);
    if ((await row.count()) === 0) await page.waitForTimeout(300);
  }
  await row.waitFor({ timeout: 5_000 });
  if (options.toTop !== false) {
    // below the parents the tree pins at its top while scrolled (sticky scroll: connection, namespace)
    const top = box.y + 3 * 22;
    for (let step = 0; step < 40; step++) {
      const at = await row.boundingBox();
      if (!at || at.y - 22 < top || at.y - box.y <= box.height / 3) break;
      await wheel(22);
      const moved = await row.boundingBox();
      if (!moved || moved.y === at.y) break; // the end of the tree
    }
    for (let step = 0; step < 20; step++) {
      const at = await row.boundingBox();
      if (!at || at.y >= top) break;
      await wheel(-22);
    }
  }
  const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.mouse.move(viewport.width - 20, viewport.height - 60);
  return row;
}

export async function expandRow(page: Page, label: string): Promise<void> {
  const row = treeRow(page, label);
  await row.waitFor();
  if ((await row.getAttribute('aria-expanded')) === 'true') return;
  await clickRow(page, row);
  // a click that lands while the tree re-renders selects the row without expanding it:
  // then expand the selected row from the keyboard
  for (let attempt = 0; attempt < 3; attempt++) {
    const expanded = await row
      .and(page.locator('[aria-expanded="true"]'))
      .waitFor({ timeout: 5_000 })
      .then(() => true, () => false);
    if (expanded) return;
    await row.focus();
    await page.keyboard.press('ArrowRight');
  }
  await row.and(page.locator('[aria-expanded="true"]')).waitFor();
}

/**
 * Clicks a tree row after moving the pointer off the tree: a pointer left resting on a row
 * opens its hover tooltip, which can cover the next row and swallow the click.
 */
export async function clickRow(page: Page, row: Locator): Promise<void> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.mouse.move(viewport.width - 20, viewport.height - 60);
  await row.click();
}

/** Runs a command by its palette title, e.g. "Data Query: Add Connection". */
export async function runPaletteCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill(`>${title}`);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first().waitFor();
  await page.waitForTimeout(300); // the list settles after filtering
  await page.keyboard.press('Enter');
}

/** Waits for an input box whose title contains `title`, types `text` and confirms. */
export async function answerInputBox(page: Page, title: string, text: string): Promise<void> {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor();
  const input = page.locator('.quick-input-widget input').first();
  await input.fill(text);
  await page.keyboard.press('Enter');
}

export async function notificationWith(page: Page, text: string | RegExp): Promise<Locator> {
  const toast = page.locator('.notifications-toasts .notification-list-item-message', { hasText: text }).first();
  await toast.waitFor();
  return toast;
}
