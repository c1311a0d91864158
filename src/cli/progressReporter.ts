// Progress on stderr: a rewritten line on a terminal, plain lines elsewhere.

import type { JobRecord } from '../core/contract';
import type { DownloadProgress } from '../client/types';
import type { OutStream } from './cliIo';
import { formatBytes } from '../core/byteSize';

export class ProgressReporter {
  private lastLine = '';
  private lastDraw = 0;

  constructor(
    private readonly out: OutStream,
    private readonly enabled: boolean,
    private readonly now: () => number = Date.now,
  ) {}

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
    if (this.enabled && this.out.isTTY && this.lastLine) this.out.write('\n');
    this.lastLine = '';
  }

  private line(text: string, important: boolean): void {
    if (!this.enabled || text === this.lastLine) return;
    const now = this.now();
    if (!important && now - this.lastDraw < (this.out.isTTY ? 100 : 2000)) return;
    this.lastDraw = now;
    if (this.out.isTTY) {
      const width = Math.max(20, (this.out.columns ?? 80) - 1);
      this.out.write(`\r\x1b[2K${text.slice(0, width)}`);
    } else {
      this.out.write(`${text}\n`);
    }
    this.lastLine = text;
  }
}

