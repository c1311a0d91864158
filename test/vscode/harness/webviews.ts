// Webviews in the workbench as a person sees them: the workbench nests each webview's page in
// two iframes, and several can be open at once (a preview, a schema page, a SQL result), so a
// page is found by what it shows. Also the hover tooltip of a tree row.

import type { FrameLocator, Locator, Page } from 'playwright-core';
import { UI_TIMEOUT_MS } from './workbench';

/** How often the open webviews are looked through while waiting for one to show something. */
const LOOK_AGAIN_MS = 250;

/**
 * The page of the open webview that shows a `selector` element containing `text`; waits until
 * one does. Webviews open, load and redraw on their own time, so they are looked through
 * again until one matches or the wait runs out.
 */
export async function webviewWith(page: Page, selector: string, text: string | RegExp, timeoutMs = UI_TIMEOUT_MS): Promise<FrameLocator> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outer = page.locator('iframe.webview.ready');
    const count = await outer.count();
    for (let i = 0; i < count; i++) {
      const inner = outer.nth(i).contentFrame().locator('iframe#active-frame').contentFrame();
      const found = await inner
        .locator(selector, { hasText: text })
        .count()
        .catch(() => 0); // a webview that is being replaced
      if (found > 0) return inner;
    }
    if (Date.now() > deadline) throw new Error(`No open webview shows ${selector} with "${String(text)}".`);
    await page.waitForTimeout(LOOK_AGAIN_MS);
  }
}

/** Resolves once `read` answers something `accept` takes (the grid fetches and paints on its own time). */
export async function until<T>(page: Page, what: string, read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = UI_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`Waited in vain for ${what}; last seen: ${JSON.stringify(value).slice(0, 400)}`);
    await page.waitForTimeout(LOOK_AGAIN_MS);
  }
}

/**
 * The hover tooltip of a tree row, once the pointer rests on it and it shows `text`. The pointer
 * first leaves the row: a row that appeared under a resting pointer gets no hover until the
 * pointer moves onto it. A tooltip that does not show is tried again, as a person would.
 */
export async function hoverOf(page: Page, row: Locator, text: string | RegExp): Promise<Locator> {
  const hover = page.locator('.monaco-hover, .workbench-hover', { hasText: text }).first();
  for (let attempt = 1; ; attempt++) {
    await page.mouse.move(0, 0);
    await row.hover();
    try {
      await hover.waitFor({ timeout: HOVER_TRIES_MS });
      return hover;
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
}

const HOVER_TRIES_MS = 15_000;
