// What a dq command may touch of the outside world, passed in so tests can run the CLI
// in-process and read what it printed.

export interface OutStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface CliIo {
  stdout: OutStream;
  stderr: OutStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** aborted on Ctrl-C (SIGINT) or SIGTERM; long work stops cleanly and dq exits 130 (143) */
  interrupt: AbortSignal;
}
