// `npm run test:vscode` (after build and compile): installs or finds the toolchain, runs the
// extension-host suite and the UI end-to-end tests, prints one summary line and exits
// non-zero when anything failed or did not run. `--only=extension` or `--only=ui` runs one.

import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import { RESULTS_DIR } from './browser';
import { runExtensionTests, type SuiteCounts } from './runExtensionTests';
import { ensureToolchain } from './toolchain';

function runUiTests(): Promise<SuiteCounts> {
  const dir = path.join(__dirname, '..', 'ui');
  const mocha = new Mocha({ ui: 'bdd', timeout: 300_000, reporter: 'spec', color: !process.env.CI });
  const grep = process.env.DQ_VSCODE_GREP;
  if (grep) mocha.grep(grep);
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.test.js')).sort()) mocha.addFile(path.join(dir, file));
  return new Promise((resolve) => {
    const runner = mocha.run(() => resolve({ passed: runner.stats?.passes ?? 0, failed: runner.stats?.failures ?? 0 }));
  });
}

async function main(): Promise<number> {
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  const started = Date.now();
  ensureToolchain();
  const totals: Record<string, SuiteCounts> = {};
  if (only !== 'ui') {
    console.log('\n== Extension-host tests (test/vscode/suite) ==');
    totals.extensionHost = await runExtensionTests();
  }
  if (only !== 'extension') {
    console.log('\n== UI end-to-end tests (test/vscode/ui) ==');
    totals.ui = await runUiTests();
  }
  const passed = Object.values(totals).reduce((n, c) => n + c.passed, 0);
  const failed = Object.values(totals).reduce((n, c) => n + c.failed, 0);
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  fs.writeFileSync(path.join(RESULTS_DIR, 'vscode-summary.json'), JSON.stringify({ passed, failed, suites: totals }, null, 2));
  const parts = Object.entries(totals).map(([name, c]) => `${name} ${c.passed}/${c.passed + c.failed}`);
  console.log(`\ntest:vscode: ${passed} passed, ${failed} failed (${parts.join(', ')}) in ${Math.round((Date.now() - started) / 1000)} s`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
