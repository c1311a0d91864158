// What dq does when the reader of its output goes away (`dq ... | head -1`, a consumer that
// failed): a write to a closed pipe fails with EPIPE, which Node reports as an 'error' event
// that would end the process with a stack trace in the middle of a download or a sync.
// - stdout (the result): nobody can read it any more, so the work stops as on Ctrl-C (the same
//   clean-up, nothing half-written) and dq exits 130 without a word.
// - stderr (progress, warnings, the error line): only a person watching misses it; it is
//   ignored and the work goes on.

const READER_GONE = new Set(['EPIPE', 'ECONNRESET', 'ERR_STREAM_DESTROYED']);

/** The abort reason when stdout can no longer be written: dq stops quietly. */
export class OutputClosedError extends Error {
  constructor(readonly code: string) {
    super(`standard output was closed (${code})`);
    this.name = 'OutputClosedError';
  }

  /** true when the reader went away (a closed pipe), rather than a device failing */
  get readerGone(): boolean {
    return READER_GONE.has(this.code);
  }
}

export function isOutputClosed(reason: unknown): reason is OutputClosedError {
  return reason instanceof OutputClosedError;
}

interface ErrorSource {
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/**
 * Keeps stream failures from ending the process: the first failure of `stdout` calls
 * `onStdoutClosed` (once); failures of `stderr` are ignored.
 */
export function guardOutputStreams(stdout: ErrorSource, stderr: ErrorSource, onStdoutClosed: (reason: OutputClosedError) => void): void {
  let closed = false;
  stdout.on('error', (err) => {
    if (closed) return;
    closed = true;
    onStdoutClosed(new OutputClosedError(String((err as NodeJS.ErrnoException).code ?? 'EIO')));
  });
  stderr.on('error', () => undefined);
}
