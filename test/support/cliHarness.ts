// Runs dq in-process with captured output, as a person at a terminal would see it.

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
  const code = await runCli(argv, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: options.stderrIsTTY ?? false },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    interrupt: options.signal ?? new AbortController().signal,
  });
  return { code, stdout, stderr };
}
