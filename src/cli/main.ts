// Entry point of the dq command: wires the process (streams, environment, Ctrl-C) to runCli.

import { runCli } from './cli';
import { tuneMemory } from './memoryTuning';

function main(): void {
  tuneMemory();
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    interrupt: controller.signal,
  }).then(
    (code) => finish(code),
    (err: unknown) => {
      process.stderr.write(`dq: error: ${err instanceof Error ? err.message : String(err)}\n`);
      finish(1);
    },
  );
}

function finish(code: number): void {
  // Let stdout drain (it may be a pipe) before leaving; pooled sockets must not keep us alive.
  process.stdout.write('', () => process.exit(code));
}

main();
