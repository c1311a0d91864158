// Runs dq in-process with captured output, as a person at a terminal would see it. Each run
// keeps its rate budget to itself (a DQ_STATE_DIR of its own, removed afterwards), as a dq alone
// on its machine would, unless the test gives DQ_STATE_DIR: tests of the budget that processes
// share give one.

import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../src/cli/cli';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runDq(
  argv: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; signal?: AbortSignal; stderrIsTTY?: boolean } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const env = options.env ?? {};
  const ownState = env.DQ_STATE_DIR === undefined ? mkdtempSync(path.join(os.tmpdir(), 'dq-state-')) : undefined;
  try {
    const code = await runCli(argv, {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s), isTTY: options.stderrIsTTY ?? false },
      env: ownState ? { ...env, DQ_STATE_DIR: ownState } : env,
      cwd: options.cwd ?? process.cwd(),
      interrupt: options.signal ?? new AbortController().signal,
    });
    return { code, stdout, stderr };
  } finally {
    if (ownState) rmSync(ownState, { recursive: true, force: true });
  }
}
