// Stands in for the VS Code executable that @vscode/test-electron's runTests() spawns. It
// takes the same arguments (--extensionDevelopmentPath=, --extensionTestsPath=,
// --user-data-dir=, --extensions-dir=, a folder), starts code-server with the smoke-test
// driver, opens the workbench with a test payload in headless Chromium, relays the
// extension host's output and exits with the tests' exit code.
//
// Usage through runTests: vscodeExecutablePath = process.execPath (node) and
// launchArgs = [<this file>, ...]; see runExtensionTests.ts.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import { openBrowser, screenshot } from './browser';
import { startCodeServer } from './codeServer';
import { createRunFolder } from './runFolder';
import { ensureToolchain } from './toolchain';

/** prefix of the suite's own output lines among the workbench's log lines */
const RELAY_MARK = '[dq-test] ';
const TIMEOUT_MS = Number(process.env.DQ_VSCODE_TIMEOUT_MS ?? 5 * 60_000);

interface LaunchArgs {
  extensionDevelopmentPath?: string;
  extensionTestsPath?: string;
  userDataDir?: string;
  extensionsDir?: string;
  folder?: string;
}

function parseArgs(argv: string[]): LaunchArgs {
  const out: LaunchArgs = {};
  const value = (arg: string, name: string): string | undefined => (arg.startsWith(`--${name}=`) ? arg.slice(name.length + 3) : undefined);
  for (const arg of argv) {
    out.extensionDevelopmentPath = value(arg, 'extensionDevelopmentPath') ?? out.extensionDevelopmentPath;
    out.extensionTestsPath = value(arg, 'extensionTestsPath') ?? out.extensionTestsPath;
    out.userDataDir = value(arg, 'user-data-dir') ?? out.userDataDir;
    out.extensionsDir = value(arg, 'extensions-dir') ?? out.extensionsDir;
    if (!arg.startsWith('-')) out.folder = path.resolve(arg);
  }
  return out;
}

/** The remote form of a local path, as the workbench in the browser must name it. */
function remoteUri(port: number, p: string): string {
  return `vscode-remote://127.0.0.1:${port}${path.resolve(p)}`;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (!args.extensionDevelopmentPath || !args.extensionTestsPath) {
    console.error('launcher: --extensionDevelopmentPath= and --extensionTestsPath= are required.');
    return 2;
  }
  const tools = ensureToolchain();
  const run = createRunFolder('ext', process.env.DQ_RUN_DIR);
  if (args.userDataDir) run.userData = args.userDataDir;
  if (args.extensionsDir) run.extensions = args.extensionsDir;
  const folder = args.folder ?? run.workspace;
  fs.mkdirSync(folder, { recursive: true });
  run.workspace = folder;

  const server = await startCodeServer(tools, run, { smokeTestDriver: true });
  const context = await openBrowser(tools, run);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    let finish: (code: number) => void = () => undefined;
    const finished = new Promise<number>((resolve) => (finish = resolve));
    // Everything the workbench logs goes to a file; lines the suite marks (its mocha
    // output, see suite/index.ts) also go to the console.
    const workbenchLog = path.join(run.logs, 'workbench.log');
    const logStream = fs.createWriteStream(workbenchLog, { flags: 'a' });
    await page.exposeFunction('codeAutomationLog', (level: string, message: unknown) => {
      const text = Array.isArray(message) ? format(...(message as unknown[])) : String(message);
      logStream.write(`[${level}] ${text}\n`);
      for (const line of text.split('\n')) {
        if (line.startsWith(RELAY_MARK)) process.stdout.write(`${line.slice(RELAY_MARK.length)}\n`);
      }
    });
    let done = false;
    await page.exposeFunction('codeAutomationExit', (code: number) => {
      done = true;
      finish(Number(code));
    });
    page.on('crash', () => {
      console.error('launcher: the workbench page crashed.');
      finish(1);
    });
    void server.process.exited.then((code) => {
      if (done) return; // code-server stops by itself once the tests have finished
      console.error(`launcher: code-server exited early (code ${code}); see ${server.logFile}`);
      finish(1);
    });
    const payload: [string, string][] = [
      ['extensionDevelopmentPath', remoteUri(server.port, args.extensionDevelopmentPath)],
      ['extensionTestsPath', remoteUri(server.port, args.extensionTestsPath)],
      ['skipWelcome', 'true'],
    ];
    await page.goto(server.workbenchUrl(folder, payload));
    const timer = setTimeout(() => {
      console.error(`launcher: no result after ${TIMEOUT_MS / 1000} s; stopping.`);
      finish(1);
    }, TIMEOUT_MS);
    const code = await finished;
    clearTimeout(timer);
    if (code !== 0) {
      const shot = await screenshot(page, 'extension-host-failure');
      if (shot) console.error(`launcher: screenshot of the workbench: ${shot}`);
      console.error(`launcher: code-server log: ${server.logFile}; workbench log: ${workbenchLog}`);
    }
    logStream.end();
    return code;
  } finally {
    await context.close().catch(() => undefined);
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`launcher: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
