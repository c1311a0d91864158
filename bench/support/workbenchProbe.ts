// Times a packaged extension in real VS Code (code-server in headless Chromium, driven by the
// VS Code test harness): from opening the workbench to the workbench being ready, and to the
// first row of the extension's tree after a click on its activity-bar item, as a person
// opens it; then the extension host's peak memory. Also builds the baseline: an empty
// extension whose tree shows one row as soon as it is asked.

import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type * as CodeServerModule from '../../test/vscode/harness/codeServer';
import type * as BrowserModule from '../../test/vscode/harness/browser';
import type * as RunFolderModule from '../../test/vscode/harness/runFolder';
import type * as ToolchainModule from '../../test/vscode/harness/toolchain';
import type * as WorkbenchModule from '../../test/vscode/harness/workbench';
import { peakRssMiBOf } from './processMemory';
import { succeeded, timed } from './processes';

/** What a session opens: the extension's activity-bar title, and its tree's first row label. */
export interface Probed {
  vsix: string;
  activityTitle: string;
  firstRow: string;
  settings: Record<string, unknown>;
}

export interface WorkbenchTimes {
  /** from navigation to `.monaco-workbench` */
  readyMs: number;
  /** from navigation to the first row of the extension's tree */
  firstRowMs: number;
  /** from the click on the activity-bar item to that row */
  afterClickMs: number;
  extensionHostPeakMiB?: number;
}

interface Harness {
  codeServer: typeof CodeServerModule;
  browser: typeof BrowserModule;
  runFolder: typeof RunFolderModule;
  toolchain: typeof ToolchainModule;
  workbench: typeof WorkbenchModule;
}

/**
 * The harness as `npm run test:vscode` builds it (out/test/vscode/harness): its paths are
 * relative to that folder, so it is compiled there, on its own, and loaded from there.
 */
export async function loadHarness(root: string): Promise<Harness> {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  succeeded('compiling the VS Code test harness', await timed(process.execPath, [tsc, '-p', join(root, 'bench', 'tsconfig.harness.json')], { cwd: root }));
  const dir = join(root, 'out', 'test', 'vscode', 'harness');
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    codeServer: require(join(dir, 'codeServer.js')) as typeof CodeServerModule,
    browser: require(join(dir, 'browser.js')) as typeof BrowserModule,
    runFolder: require(join(dir, 'runFolder.js')) as typeof RunFolderModule,
    toolchain: require(join(dir, 'toolchain.js')) as typeof ToolchainModule,
    workbench: require(join(dir, 'workbench.js')) as typeof WorkbenchModule,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** One fresh code-server with only `probed` installed, opened once. */
export async function timeWorkbench(harness: Harness, probed: Probed): Promise<WorkbenchTimes> {
  const tools = harness.toolchain.ensureToolchain(() => undefined);
  const run = harness.runFolder.createRunFolder('bench');
  harness.codeServer.installExtension(tools, run, probed.vsix);
  harness.runFolder.writeUserSettings(run, probed.settings);
  const server = await harness.codeServer.startCodeServer(tools, run);
  try {
    const context = await harness.browser.openBrowser(tools, run);
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      page.setDefaultTimeout(harness.workbench.UI_TIMEOUT_MS);
      const started = performance.now();
      await page.goto(server.workbenchUrl(run.workspace));
      await page.locator('.monaco-workbench').waitFor();
      const readyMs = performance.now() - started;
      const item = page.locator(`.activitybar .action-item [aria-label^="${probed.activityTitle}"]`).first();
      await item.waitFor();
      const clicked = performance.now();
      await item.click();
      await harness.workbench.treeRow(page, probed.firstRow).waitFor();
      const painted = performance.now();
      return {
        readyMs,
        firstRowMs: painted - started,
        afterClickMs: painted - clicked,
        extensionHostPeakMiB: await peakRssMiBOf(await extensionHostOf(server.process.pid)),
      };
    } finally {
      await context.close().catch(() => undefined);
    }
  } finally {
    await server.stop();
  }
}

/** The extension host among the processes of code-server's process group (Linux /proc). */
async function extensionHostOf(group: number): Promise<number | undefined> {
  let pids: string[];
  try {
    pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp !== group) continue;
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes('--type=extensionHost')) return Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** Packages an extension that adds an activity-bar item whose tree shows one row at once. */
export async function emptyExtension(root: string, dir: string): Promise<Probed> {
  await mkdir(dir, { recursive: true });
  const manifest = {
    name: 'bench-empty',
    displayName: 'Bench Empty',
    description: 'An extension with one tree of one row: the baseline of the activation figure.',
    version: '0.0.1',
    publisher: 'bench',
    license: 'MIT',
    engines: { vscode: '^1.138.0' },
    main: './extension.js',
    activationEvents: ['onView:benchEmpty.tree'],
    contributes: {
      viewsContainers: { activitybar: [{ id: 'benchEmpty', title: 'Bench Empty', icon: 'icon.svg' }] },
      views: { benchEmpty: [{ id: 'benchEmpty.tree', name: 'Tree' }] },
    },
  };
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  await writeFile(join(dir, 'README.md'), '# Bench Empty\n\nThe baseline of the activation figure.\n');
  await writeFile(join(dir, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><rect width="24" height="24"/></svg>\n');
  await writeFile(
    join(dir, 'extension.js'),
    [
      "const vscode = require('vscode');",
      'exports.activate = (context) => {',
      "  context.subscriptions.push(vscode.window.registerTreeDataProvider('benchEmpty.tree', {",
      "    getChildren: (element) => (element ? [] : ['row']),",
      "    getTreeItem: () => new vscode.TreeItem('Empty row'),",
      '  }));',
      '};',
      '',
    ].join('\n'),
  );
  const vsix = join(dir, 'bench-empty.vsix');
  const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
  succeeded(
    'packaging the empty extension',
    await timed(process.execPath, [vsce, 'package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--out', vsix], { cwd: dir }),
  );
  return { vsix, activityTitle: 'Bench Empty', firstRow: 'Empty row', settings: {} };
}
