// One download of a prepared result by each contender, into a fresh folder that is removed
// afterwards: `dq query` as a user runs it, and the same objects fetched by parallel curl
// processes on pre-signed URLs from `dq urls`.

import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RESULT_FORMAT, RESULT_TABLE, type PreparedResult } from './preparedResult';
import { ownRateBudget, succeeded, timed, timedNode, type Finished } from './processes';

export const CURL_PROCESSES = 4;

export interface DownloadRun {
  seconds: number;
  peakRssMiB?: number;
}

export class DownloadRuns {
  private runs = 0;

  constructor(
    private readonly cli: string,
    private readonly scratch: string,
  ) {}

  /** `dq query` of the prepared job with `options` (e.g. --sha256); `nodeOptions` e.g. to profile it. */
  async dq(result: PreparedResult, nodeOptions: string[] = [], options: string[] = []): Promise<DownloadRun> {
    const dir = await this.folder();
    try {
      const args = ['query', ...RESULT_TABLE, '--format', RESULT_FORMAT, '--out', dir, '--json', '--no-progress', ...options];
      const run = succeeded('dq query', await timedNode(this.cli, args, { env: await ownRateBudget(result.dqEnv, this.scratch), nodeOptions }));
      const printed = JSON.parse(run.stdout) as { job: { id: string }; files: { bytes: number }[] };
      if (printed.job.id !== result.job.id) throw new Error('dq query created a new job instead of reusing the prepared one');
      expectBytes('dq query', printed.files.reduce((sum, f) => sum + f.bytes, 0), result.bytes);
      return { seconds: run.seconds, peakRssMiB: run.peakRssMiB };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** `dq urls`, then the objects shared out over CURL_PROCESSES curl processes; timed together. */
  async curl(result: PreparedResult): Promise<DownloadRun> {
    const dir = await this.folder();
    try {
      const started = performance.now();
      const answer = succeeded('dq urls', await timedNode(this.cli, ['urls', ...result.objectIds], { env: await ownRateBudget(result.dqEnv, this.scratch) }));
      const urls = (JSON.parse(answer.stdout) as { urls: Record<string, { url: string }> }).urls;
      const configs = Array.from({ length: CURL_PROCESSES }, () => '');
      result.objectIds.forEach((id, i) => {
        configs[i % CURL_PROCESSES] += `url = ${quoted(urls[id].url)}\noutput = ${quoted(join(dir, `part-${i}`))}\n`;
      });
      // The links go to curl on stdin, so their signatures never show in a process list.
      const curls = await Promise.all(
        configs.filter(Boolean).map((config) => timed('curl', ['--silent', '--show-error', '--fail', '--noproxy', '*', '--config', '-'], { input: config })),
      );
      const seconds = (performance.now() - started) / 1000;
      curls.forEach((c: Finished) => succeeded('curl', c));
      expectBytes('curl', await folderBytes(dir), result.bytes);
      return { seconds };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async folder(): Promise<string> {
    const dir = join(this.scratch, `download-${++this.runs}`);
    await mkdir(dir, { recursive: true });
    return dir;
  }
}

function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

async function folderBytes(dir: string): Promise<number> {
  const sizes = await Promise.all((await readdir(dir)).map(async (name) => (await stat(join(dir, name))).size));
  return sizes.reduce((a, b) => a + b, 0);
}

function expectBytes(who: string, got: number, expected: number): void {
  if (got !== expected) throw new Error(`${who} wrote ${got} bytes, the result has ${expected}`);
}
