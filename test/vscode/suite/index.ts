// The extension-tests entry that VS Code loads (--extensionTestsPath): runs every compiled
// *.test.js beside this file with mocha inside the extension host. When DQ_VSCODE_RESULTS
// names a file, the pass/fail counts are written there for the harness's summary.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';

/** Under the code-server launcher, marks the suite's console lines so it can relay them. */
function markConsole(): () => void {
  if (process.env.DQ_VSCODE_RELAY !== '1') return () => undefined;
  const mark = '[dq-test] ';
  const { log, error } = console;
  const marked =
    (write: (...a: unknown[]) => void) =>
    (...args: unknown[]): void =>
      write(format(...args).split('\n').map((l) => mark + l).join('\n'));
  // mocha's reporters print through Base.consoleLog, captured when mocha loaded
  const base = Mocha.reporters.Base as unknown as { consoleLog: (...a: unknown[]) => void };
  const reporterLog = base.consoleLog;
  console.log = marked(log);
  console.error = marked(error);
  base.consoleLog = marked(reporterLog);
  return () => {
    console.log = log;
    console.error = error;
    base.consoleLog = reporterLog;
  };
}

export function run(): Promise<void> {
  const unmark = markConsole();
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
  const grep = process.env.DQ_VSCODE_GREP;
  if (grep) mocha.grep(grep);
  const files = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  for (const file of files) mocha.addFile(path.join(__dirname, file));
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      unmark();
      const stats = runner.stats;
      const resultsFile = process.env.DQ_VSCODE_RESULTS;
      if (resultsFile && stats) {
        fs.writeFileSync(resultsFile, JSON.stringify({ passed: stats.passes, failed: stats.failures, pending: stats.pending }));
      }
      if (failures > 0) reject(new Error(`${failures} extension test(s) failed.`));
      else if (!stats || stats.passes === 0) reject(new Error('No extension tests ran.'));
      else resolve();
    });
  });
}
