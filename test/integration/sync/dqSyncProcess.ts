// `dq sync` as a child process, as a person runs it at a terminal: the emulator's credentials
// (and a database server's password) in its environment, its home in the fixture's folder, and
// a rate budget of its own (the emulator here sets no limit: runs of one test, and tests running
// alongside, do not wait on each other's minute). What it printed is kept, and whatever
// happened, the password is in none of it (its debug lines included).

import * as assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { dqEnvOf, type SyncFixture } from './syncFixture';

const MAIN = path.resolve(__dirname, '../../../src/cli/main.js');

export interface FinishedDq {
  pid: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface DqSyncProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** once it has ended and closed its output, checked not to show the password */
  done: Promise<FinishedDq>;
}

/** Runs `dq sync <args>` with its temporary files in `tmpDir`, and a server's password in its variable (PGPASSWORD, MYSQL_PWD). */
export function dqSync(fixture: SyncFixture, args: string[], o: { tmpDir: string; password?: { variable: string; value: string } }): DqSyncProcess {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: fixture.dir,
    TMPDIR: o.tmpDir,
    DQ_DEBUG: '1',
    DQ_STATE_DIR: path.join(fixture.dir, `dq-state-${process.hrtime.bigint()}`),
    ...dqEnvOf(fixture.emulator),
    ...(o.password ? { [o.password.variable]: o.password.value } : {}),
  };
  const child = spawn(process.execPath, [MAIN, 'sync', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const closed = new Promise<FinishedDq>((resolve) => child.once('close', (code, signal) => resolve({ pid: child.pid, code, signal, stdout, stderr })));
  const password = o.password?.value;
  const done = closed.then((finished) => {
    if (password) for (const text of [finished.stdout, finished.stderr]) assert.ok(!text.includes(password), `dq printed the password:\n${text}`);
    return finished;
  });
  return { child, done };
}
