// Starts and stops code-server (VS Code OSS: web workbench + real Node extension host) for
// one run, in its own process group, and installs packaged extensions into it.

import { spawnSync } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import type { RunFolder } from './runFolder';
import { spawnGroup, tail, type GroupProcess } from './processGroup';
import type { Toolchain } from './toolchain';

export interface CodeServer {
  port: number;
  origin: string;
  process: GroupProcess;
  logFile: string;
  /** the workbench URL for a folder, with an optional smoke-test payload */
  workbenchUrl(folder: string, payload?: [string, string][]): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** lets a `payload` run extension tests; it also hides notifications and dialogs */
  smokeTestDriver?: boolean;
  /** extra environment for the server and its extension host */
  env?: NodeJS.ProcessEnv;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitHealthy(origin: string, proc: GroupProcess, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`code-server exited while starting:\n${tail(logFile)}`);
    try {
      const res = await fetch(`${origin}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer /healthz within ${timeoutMs / 1000} s:\n${tail(logFile)}`);
}

export async function startCodeServer(tools: Toolchain, run: RunFolder, options: StartOptions = {}): Promise<CodeServer> {
  const logFile = path.join(run.logs, `code-server-${Date.now()}.log`);
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const args = [
      tools.codeServer,
      '--bind-addr', `127.0.0.1:${port}`,
      '--auth', 'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--user-data-dir', run.userData,
      '--extensions-dir', run.extensions,
    ];
    if (options.smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
    args.push(run.workspace);
    const proc = spawnGroup(tools.node, args, { env: { ...run.env, ...options.env }, cwd: run.root, logFile });
    const origin = `http://127.0.0.1:${port}`;
    try {
      await waitHealthy(origin, proc, logFile, 30_000);
    } catch (err) {
      await proc.stop();
      if (attempt < 3) continue; // the port may have been taken between probe and bind
      throw err;
    }
    return {
      port,
      origin,
      process: proc,
      logFile,
      workbenchUrl(folder, payload) {
        const query = new URLSearchParams({ folder });
        if (payload) query.set('payload', JSON.stringify(payload));
        return `${origin}/?${query.toString()}`;
      },
      stop: () => proc.stop(),
    };
  }
}

/** Installs a .vsix into the run's extensions folder (code-server's own CLI). */
export function installExtension(tools: Toolchain, run: RunFolder, vsix: string): void {
  const result = spawnSync(
    tools.node,
    [tools.codeServer, '--user-data-dir', run.userData, '--extensions-dir', run.extensions, '--install-extension', vsix],
    { env: run.env, encoding: 'utf8', timeout: 120_000 },
  );
  if (result.status !== 0) {
    throw new Error(`Installing ${path.basename(vsix)} failed (exit ${result.status}):\n${result.stderr || result.stdout}`);
  }
}
