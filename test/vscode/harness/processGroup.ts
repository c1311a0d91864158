// Child processes started in their own process group and stopped by group id, so that
// code-server's server, extension host and watchers all go with it. Every group still
// running when this process exits (normally, on Ctrl-C, or on an error) is killed.

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';

export interface GroupProcess {
  readonly pid: number;
  readonly child: ChildProcess;
  /** resolves with the exit code (or null when killed by a signal) */
  readonly exited: Promise<number | null>;
  /** SIGTERM to the group, then SIGKILL after `graceMs` */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<number>();
let hooked = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const pid of running) killGroup(pid, 'SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      for (const pid of running) killGroup(pid, 'SIGKILL');
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
}

export interface SpawnGroupOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** stdout and stderr go to this file (appended) */
  logFile: string;
}

export function spawnGroup(command: string, args: string[], options: SpawnGroupOptions): GroupProcess {
  hookExit();
  const out = fs.openSync(options.logFile, 'a');
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true, // a new process group whose id is the child's pid
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  if (child.pid === undefined) throw new Error(`Could not start ${command}.`);
  const pid = child.pid;
  running.add(pid);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(-1));
  });
  const stop = async (graceMs = 5000): Promise<void> => {
    if (!running.has(pid)) return;
    killGroup(pid, 'SIGTERM');
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
    if ((await Promise.race([exited, timer])) === 'timeout') killGroup(pid, 'SIGKILL');
    // the leader may be gone while other members linger: make sure the group is empty
    killGroup(pid, 'SIGKILL');
    running.delete(pid);
  };
  void exited.then(() => {
    // members of the group can outlive the leader; they are killed by stop() or at exit
  });
  return { pid, child, exited, stop };
}

/** The last lines of a log file, for error messages. */
export function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
