// Entry point of the dq command: wires the process (streams, environment, Ctrl-C) to runCli.

import { visibleControls } from '../core/visibleControls';
import { runCli } from './cli';
import { EXIT } from './exitCodes';
import { tuneMemory } from './memoryTuning';
import { guardOutputStreams, OutputClosedError } from './outputStreams';

function main(): void {
  tuneMemory();
  const controller = new AbortController();
  let interrupts = 0;
  let terminated = false;
  // SIGTERM stops work as Ctrl-C does, but ends with 143 so a scheduler can tell the two apart.
  const interruptedCode = (): number => (terminated ? EXIT.terminated : EXIT.interrupted);
  const onSignal = (signal: NodeJS.Signals): void => {
    interrupts++;
    if (signal === 'SIGTERM') terminated = true;
    if (interrupts > 1) process.exit(interruptedCode());
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  // stdout cannot be written (its reader went away): stop as on Ctrl-C, and leave with 130 (8
  // when the device failed) whatever the command returns.
  let stdoutClosed: OutputClosedError | undefined;
  guardOutputStreams(process.stdout, process.stderr, (reason) => {
    stdoutClosed = reason;
    if (!reason.readerGone) process.stderr.write(`dq: io: cannot write the output (${reason.code}); stopped, nothing was left half-written.\n`);
    controller.abort(reason);
  });
  const exitCode = (code: number, writeError: Error | null | undefined): number => {
    // the last write's own failure may come before the stream's 'error' event
    const closed = stdoutClosed ?? (writeError ? new OutputClosedError(String((writeError as NodeJS.ErrnoException).code ?? 'EIO')) : undefined);
    if (closed) return closed.readerGone ? EXIT.interrupted : EXIT.io;
    return code === EXIT.interrupted ? interruptedCode() : code;
  };

  const finish = (code: number): void => {
    // Let stdout drain (it may be a pipe) before leaving; pooled sockets must not keep us alive.
    process.stdout.write('', (err) => process.exit(exitCode(code, err)));
  };

  runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    interrupt: controller.signal,
  }).then(
    (code) => finish(code),
    (err: unknown) => {
      process.stderr.write(`dq: error: ${visibleControls(err instanceof Error ? err.message : String(err))}\n`);
      finish(1);
    },
  );
}

main();
