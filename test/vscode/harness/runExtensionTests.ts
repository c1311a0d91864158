// Runs the extension-host suite (test/vscode/suite) through @vscode/test-electron.
// By default the "VS Code executable" is launcher.ts, which drives code-server in headless
// Chromium (works offline with npm + Debian only). With DQ_VSCODE_DESKTOP=1, on a machine
// that can download desktop VS Code, test-electron downloads and runs it instead; the suite
// is the same.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { createRunFolder } from './runFolder';
import { REPO_ROOT } from './toolchain';

export interface SuiteCounts {
  passed: number;
  failed: number;
}

export async function runExtensionTests(): Promise<SuiteCounts> {
  const run = createRunFolder('ext');
  const resultsFile = path.join(run.root, 'extension-results.json');
  const desktop = process.env.DQ_VSCODE_DESKTOP === '1';
  const launcher = path.join(__dirname, 'launcher.js');
  const launchArgs = [
    `--user-data-dir=${run.userData}`,
    `--extensions-dir=${run.extensions}`,
    '--disable-extensions',
    run.workspace,
  ];
  let exitOk = true;
  try {
    await runTests({
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: path.join(REPO_ROOT, 'out', 'test', 'vscode', 'suite', 'index'),
      extensionTestsEnv: { DQ_VSCODE_RESULTS: resultsFile, DQ_RUN_DIR: run.root, DQ_VSCODE_RELAY: desktop ? '0' : '1' },
      ...(desktop
        ? { launchArgs }
        : { vscodeExecutablePath: process.execPath, launchArgs: [launcher, ...launchArgs] }),
    });
  } catch (err) {
    exitOk = false;
    console.error(`Extension-host tests failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  let counts: SuiteCounts = { passed: 0, failed: 0 };
  try {
    counts = JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as SuiteCounts;
  } catch {
    console.error('Extension-host tests wrote no results: the suite did not run to the end.');
  }
  if (!exitOk && counts.failed === 0) counts.failed = 1; // a crash counts as a failure
  return counts;
}
