// Progress on stderr: a rewritten line on a terminal, plain lines elsewhere. The line is the
// stream's TerminalLine, so log lines written meanwhile appear above it, not glued onto it.

import type { JobRecord } from '../core/contract';
import type { DownloadProgress } from '../client/types';
import type { OutStream } from './cliIo';
import { formatBytes } from '../core/byteSize';
import { terminalLine, type TerminalLine } from './terminalLine';

export class ProgressReporter {
  private lastLine = '';
  private lastDraw = 0;
  private readonly terminal: TerminalLine;

  constructor(
    private readonly out: OutStream,
    private readonly enabled: boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.terminal = terminalLine(out);
  }

  jobUpdate(job: JobRecord): void {
    this.line(`job ${job.id}: ${job.status}`, true);
  }

  download(p: DownloadProgress): void {
    const total = p.total ? ` of ${formatBytes(p.total)}` : '';
    const text = `downloading ${p.doneObjects}/${p.totalObjects} objects, ${formatBytes(p.allBytes)} (current ${formatBytes(p.bytes)}${total})`;
    this.line(text, false);
  }

  message(text: string): void {
    this.line(text, true);
  }

  done(): void {
    if (this.enabled && this.lastLine) this.terminal.end();
    this.lastLine = '';
  }

  private line(text: string, important: boolean): void {
    if (!this.enabled || text === this.lastLine) return;
    const now = this.now();
    if (!important && now - this.lastDraw < (this.out.isTTY ? 100 : 2000)) return;
    this.lastDraw = now;
    this.terminal.draw(text);
    this.lastLine = text;
  }
}

