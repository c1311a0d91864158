// What a person sees on a terminal when progress and log lines share stderr.

import * as assert from 'node:assert/strict';
import type { CliIo, OutStream } from '../../../src/cli/cliIo';
import { stderrLogger } from '../../../src/cli/globalOptions';
import { ProgressReporter } from '../../../src/cli/progressReporter';

/** The lines a terminal shows after `written`: `\r` returns to the line start, ESC[2K clears the line. */
function screen(written: string): string[] {
  const lines: string[] = [''];
  let column = 0;
  for (let i = 0; i < written.length; i++) {
    const last = lines.length - 1;
    if (written.startsWith('\x1b[2K', i)) {
      lines[last] = '';
      i += 3;
    } else if (written[i] === '\r') {
      column = 0;
    } else if (written[i] === '\n') {
      lines.push('');
      column = 0;
    } else {
      const line = lines[last];
      lines[last] = line.slice(0, column) + written[i] + line.slice(column + 1);
      column++;
    }
  }
  return lines;
}

function fakeTerminal(): { io: CliIo; written: () => string } {
  let text = '';
  const stderr: OutStream = { write: (s: string) => (text += s), isTTY: true, columns: 120 };
  const io: CliIo = { stdout: { write: () => true }, stderr, env: {}, cwd: '/', interrupt: new AbortController().signal };
  return { io, written: () => text };
}

describe('progress and log lines on a terminal', () => {
  it('writes a warning on a line of its own above the progress line, which is drawn again', () => {
    const { io, written } = fakeTerminal();
    const progress = new ProgressReporter(io.stderr, true);
    const logger = stderrLogger(io);
    progress.message('creating a jsonl snapshot job for canvas_logs.web_logs');
    logger.warn('rate limited: pausing createJob for 2 s');
    assert.deepEqual(screen(written()), ['dq: warning: rate limited: pausing createJob for 2 s', 'creating a jsonl snapshot job for canvas_logs.web_logs']);

    progress.message('job 1234: running');
    logger.warn('job 1234: status check failed (server), trying again later');
    progress.done();
    assert.deepEqual(screen(written()), [
      'dq: warning: rate limited: pausing createJob for 2 s',
      'dq: warning: job 1234: status check failed (server), trying again later',
      'job 1234: running',
      '',
    ]);
  });

  it('writes log lines as they come when no progress is shown', () => {
    const { io, written } = fakeTerminal();
    new ProgressReporter(io.stderr, false).message('not shown');
    stderrLogger(io).warn('one');
    stderrLogger(io).error('two');
    assert.equal(written(), 'dq: warning: one\ndq: error: two\n');
  });

  it('writes plain lines, in order, where stderr is not a terminal', () => {
    let text = '';
    const io: CliIo = { stdout: { write: () => true }, stderr: { write: (s: string) => (text += s) }, env: {}, cwd: '/', interrupt: new AbortController().signal };
    const progress = new ProgressReporter(io.stderr, true);
    progress.message('creating a job');
    stderrLogger(io).warn('careful');
    progress.done();
    assert.equal(text, 'creating a job\ndq: warning: careful\n');
  });
});
