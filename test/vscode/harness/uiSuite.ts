// The frame of a UI suite: code-server with the packaged extension and one workbench page
// for all of the suite's tests, a screenshot of each failed test, and cleanup; plus adding a
// connection through the palette as a person would.

import type { Page } from 'playwright-core';
import { screenshot } from './browser';
import { answerInputBox, notificationWith, openWorkbench, runPaletteCommand, serveExtension, type OpenWorkbench, type ServedExtension } from './workbench';

export interface SuiteWorkbench {
  served: ServedExtension;
  page: Page;
}

/** Registers the suite's hooks; call the result inside a test for the running workbench. */
export function workbenchSuite(label: string, settings: Record<string, unknown>): () => SuiteWorkbench {
  let current: { served: ServedExtension; open?: OpenWorkbench } | undefined;
  before(async () => {
    current = { served: await serveExtension(label, settings) };
    current.open = await openWorkbench(current.served);
  });
  afterEach(async function () {
    const page = current?.open?.page;
    if (this.currentTest?.state !== 'failed' || !page) return;
    const shot = await screenshot(page, `${label}-failure-${this.currentTest.title}`);
    if (shot) console.log(`    screenshot: ${shot}`);
  });
  after(async () => {
    await current?.open?.context.close().catch(() => undefined);
    await current?.served.server.stop();
  });
  return () => {
    if (!current?.open) throw new Error('The workbench is not open: the suite\'s before hook failed.');
    return { served: current.served, page: current.open.page };
  };
}

export interface ServiceAddress {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

/** Data Query: Add Connection, answering its four prompts; resolves once it is saved. */
export async function addConnection(page: Page, name: string, service: ServiceAddress): Promise<void> {
  await runPaletteCommand(page, 'Data Query: Add Connection');
  // the fifth step (data prefix, namespaces, scope) is kept as it is with Enter
  for (const [step, answer] of [name, service.baseUrl, service.clientId, service.clientSecret, ''].entries()) {
    await answerInputBox(page, `(${step + 1}/5)`, answer);
  }
  await notificationWith(page, `Connection "${name}" added.`);
}
