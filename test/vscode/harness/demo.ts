// `npm run demo`: the packaged extension in code-server with a sample connection (the
// emulator runs inside VS Code), served until Ctrl-C. Open the printed URL in a browser.
// `npm run demo -- --screenshot FILE` instead opens the workbench headless, expands the
// sample connection and one namespace, queries a table, expands the completed job in the
// Jobs view, saves a screenshot (with the status bar's last result) to FILE and exits.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { jobRow, queryTableFromTree, settle, statusItem } from './jobSteps';
import { expandRow, openDataQueryView, openWorkbench, serveExtension } from './workbench';

const SAMPLE = { name: 'Sample data', sample: true };
const NAMESPACE = 'canvas';
const TABLE = 'accounts';
const JOB = `${NAMESPACE}.${TABLE}`;

async function takeScreenshot(file: string): Promise<void> {
  const served = await serveExtension('demo', { 'dataQuery.connections': [SAMPLE] }, (l) => console.log(l));
  const open = await openWorkbench(served);
  try {
    const page = open.page;
    await openDataQueryView(page);
    await expandRow(page, SAMPLE.name);
    await expandRow(page, NAMESPACE);
    await page.locator('.part.sidebar .monaco-list-row .codicon-table').first().waitFor();
    await queryTableFromTree(page, TABLE);
    await jobRow(page, JOB, /complete/);
    await statusItem(page, `Data Query: ${JOB}`).waitFor();
    await expandRow(page, JOB);
    await page.locator('.part.sidebar .monaco-list-row', { has: page.locator('.label-name', { hasText: /\.gz$/ }) }).first().waitFor();
    await settle(page); // no hover or focus outline in the tree
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const scratch = `${path.resolve(file)}.partial.png`;
    await page.screenshot({ path: scratch });
    fs.renameSync(scratch, path.resolve(file));
    console.log(`Saved ${file}`);
  } finally {
    await open.context.close().catch(() => undefined);
    await served.server.stop();
  }
}

async function serve(): Promise<void> {
  const served = await serveExtension('demo', { 'dataQuery.connections': [SAMPLE] }, (l) => console.log(l));
  console.log(`\nData Query Explorer is running in VS Code (code-server ${served.server.origin}).`);
  console.log(`Open this in a browser on this machine:\n\n  ${served.server.workbenchUrl(served.run.workspace)}\n`);
  console.log('Click "Data Query" in the activity bar and expand "Sample data". Press Ctrl-C to stop.');
  const code = await served.server.process.exited;
  console.error(`code-server stopped (exit ${code}); see ${served.server.logFile}`);
  process.exitCode = 1;
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--screenshot');
  if (i >= 0) {
    const file = process.argv[i + 1];
    if (!file) throw new Error('--screenshot needs a file name, e.g. npm run demo -- --screenshot media/screenshot.png');
    await takeScreenshot(file);
    return;
  }
  await serve();
}

main().then(
  () => process.exit(),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
