// A fresh folder per run holding everything VS Code, code-server and Chromium write: user
// data, extensions, XDG folders, temp files, browser profile and logs. Nothing goes to the
// home directory. The newest few runs are kept for looking into failures.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CACHE_DIR } from './toolchain';

const KEEP_RUNS = 6;

export interface RunFolder {
  root: string;
  userData: string;
  extensions: string;
  workspace: string;
  browserProfile: string;
  logs: string;
  /** environment for every process of the run */
  env: NodeJS.ProcessEnv;
}

function pruneOldRuns(runsDir: string): void {
  const runs = fs
    .readdirSync(runsDir)
    .map((name) => ({ name, time: fs.statSync(path.join(runsDir, name)).mtimeMs }))
    .sort((a, b) => b.time - a.time);
  for (const old of runs.slice(KEEP_RUNS)) fs.rmSync(path.join(runsDir, old.name), { recursive: true, force: true });
}

export function createRunFolder(label: string, root?: string): RunFolder {
  const runsDir = path.join(CACHE_DIR, 'runs');
  fs.mkdirSync(runsDir, { recursive: true });
  if (!root) {
    pruneOldRuns(runsDir);
    // short names: Chromium's and code-server's Unix sockets live below and paths are capped near 108 bytes
    root = path.join(runsDir, `${label}-${Date.now().toString(36)}${process.pid.toString(36)}`);
  }
  const dir = (name: string): string => {
    const p = path.join(root as string, name);
    fs.mkdirSync(p, { recursive: true });
    return p;
  };
  const run = {
    root,
    userData: dir('user-data'),
    extensions: dir('extensions'),
    workspace: dir('workspace'),
    browserProfile: dir('browser-profile'),
    logs: dir('logs'),
    env: {} as NodeJS.ProcessEnv,
  };
  run.env = {
    ...process.env,
    HOME: dir('home'),
    XDG_CONFIG_HOME: dir('xdg-config'),
    XDG_DATA_HOME: dir('xdg-data'),
    XDG_CACHE_HOME: dir('xdg-cache'),
    XDG_RUNTIME_DIR: dir('xdg-runtime'),
    // sockets live in TMPDIR, and a socket path has at most 107 bytes: Chromium adds about 50
    // (`/org.chromium.Chromium.XXXXXX/SingletonSocket`), code-server about 57. Unless the run
    // folder is short, use a fresh folder in the system temp dir (sockets and scratch only)
    TMPDIR: root.length <= 40 ? dir('tmp') : fs.mkdtempSync(path.join(os.tmpdir(), 'dq-vscode-')),
    // no marketplace look-ups
    EXTENSIONS_GALLERY: '{}',
  };
  return run;
}

/** Quiet, deterministic user settings plus whatever a test adds. */
export function writeUserSettings(run: RunFolder, extra: Record<string, unknown> = {}): void {
  const settings = {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'chat.disableAIFeatures': true,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'extensions.ignoreRecommendations': true,
    'git.enabled': false,
    'security.workspace.trust.enabled': false,
    'update.mode': 'none',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    ...extra,
  };
  const dir = path.join(run.userData, 'User');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'settings.json');
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(settings, null, 2));
  fs.renameSync(`${file}.tmp`, file);
}
