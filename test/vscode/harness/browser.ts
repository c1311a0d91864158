// Headless Chromium (Debian's, never a downloaded one) driven by playwright-core.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { RunFolder } from './runFolder';
import type { Toolchain } from './toolchain';

export async function openBrowser(tools: Toolchain, run: RunFolder): Promise<BrowserContext> {
  return chromium.launchPersistentContext(run.browserProfile, {
    executablePath: tools.chromium,
    headless: true,
    env: run.env as Record<string, string>,
    viewport: { width: 1280, height: 800 },
    // the grid's copy goes through VS Code's clipboard, which the tests read back
    permissions: ['clipboard-read', 'clipboard-write'],
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

export const RESULTS_DIR = path.resolve(__dirname, '..', '..', '..', '..', 'test-results');

/** Saves a screenshot under test-results/ and returns its path; never throws. */
export async function screenshot(page: Page, name: string): Promise<string | undefined> {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`);
  try {
    await page.screenshot({ path: file });
    return file;
  } catch {
    return undefined;
  }
}
