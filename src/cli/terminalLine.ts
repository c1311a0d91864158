// The one line at the bottom of a terminal that progress rewrites in place (`\r`, no newline),
// shared by everything that writes to that stream: a log or error line first clears it, is
// written whole with its newline, and the progress text is drawn again below it. Elsewhere
// (a pipe, a file) every line is written as it comes.
// Lines and progress text hold what the service said (names, ids, messages): every line dq
// prints passes through here, where its control characters are made visible, so that text can
// neither drive the terminal nor forge a line of its own.

import { visibleControls } from '../core/visibleControls';
import type { OutStream } from './cliIo';

const CLEAR = '\r\x1b[2K';

export class TerminalLine {
  /** the progress text on screen now, without a newline after it ('' when none) */
  private shown = '';

  constructor(private readonly out: OutStream) {}

  get isTTY(): boolean {
    return this.out.isTTY === true;
  }

  /** Replaces the progress text (on a terminal; elsewhere it is written as a line). */
  draw(text: string): void {
    if (!this.isTTY) {
      this.out.write(`${visibleControls(text)}\n`);
      return;
    }
    const width = Math.max(20, (this.out.columns ?? 80) - 1);
    const fitted = visibleControls(text).slice(0, width);
    this.out.write(`${CLEAR}${fitted}`);
    this.shown = fitted;
  }

  /** Writes whole lines (one write) above the progress text, which stays where it was. */
  print(line: string | readonly string[]): void {
    const lines = typeof line === 'string' ? [line] : line;
    if (lines.length === 0) return;
    const text = lines.map((line) => `${visibleControls(line)}\n`).join('');
    this.out.write(this.shown ? `${CLEAR}${text}${this.shown}` : text);
  }

  /** Leaves the progress text on screen and moves to a new line: nothing is drawn over it any more. */
  end(): void {
    if (!this.shown) return;
    this.out.write('\n');
    this.shown = '';
  }
}

const lines = new WeakMap<OutStream, TerminalLine>();

/** Prints lines on `out` (through its terminal line): the way dq writes text that may hold the service's words. */
export function printLines(out: OutStream, lines: readonly string[]): void {
  terminalLine(out).print(lines);
}

/** The terminal line of `out`: one per stream, whoever asks. */
export function terminalLine(out: OutStream): TerminalLine {
  let line = lines.get(out);
  if (!line) {
    line = new TerminalLine(out);
    lines.set(out, line);
  }
  return line;
}
