// dq's memory while it downloads: a result of 64 MiB (gzip JSONL in four objects) fetched by
// `dq query` as a process, whose peak resident set size stays within the 100 MiB that
// issue 14 sets for any size of result.

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';

const MAIN = path.resolve(__dirname, '../../../src/cli/main.js');
const MAX_PEAK_RSS_MIB = 100;
/** canvas_logs.web_logs rows stored as gzip JSONL (level 0) take about this many bytes */
const BYTES_PER_ROW = 413;
const RESULT_MIB = 64;
/** preloaded into dq: at exit, its peak RSS in KiB goes to file descriptor 3 */
const PEAK_RSS_PROBE = 'data:text/javascript,import{writeSync}from"node:fs";process.on("exit",()=>writeSync(3,String(process.resourceUsage().maxRSS)))';

describe('dq memory while downloading', function () {
  this.timeout(120_000);
  let emulator: RunningEmulator;
  let dir: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-memory-'));
    const rows = Math.ceil((RESULT_MIB * 1024 * 1024) / BYTES_PER_ROW);
    emulator = await startEmulator({
      rows,
      rowsPerObject: Math.ceil(rows / 4),
      gzipLevel: 0,
      limits: false,
      jobDelayMs: 0,
      namespaces: ['canvas_logs'],
      cacheDir: path.join(dir, 'emulator'),
    });
  });

  after(async () => {
    await emulator.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it(`peaks under ${MAX_PEAK_RSS_MIB} MiB for a ${RESULT_MIB} MiB result`, async () => {
    const out = path.join(dir, 'out');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      DQ_BASE_URL: emulator.baseUrl,
      DQ_DATA_PREFIX: emulator.dataPrefix,
      DQ_CLIENT_ID: emulator.clientId,
      DQ_CLIENT_SECRET: emulator.clientSecret,
    };
    const child = spawn(process.execPath, ['--import', PEAK_RSS_PROBE, MAIN, 'query', 'canvas_logs', 'web_logs', '--out', out, '--json', '--no-progress'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let peak = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdio[3]?.on('data', (d: Buffer) => (peak += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.equal(code, 0, stderr);
    const files = (JSON.parse(stdout) as { files: { bytes: number }[] }).files;
    const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
    assert.ok(bytes >= RESULT_MIB * 0.9 * 1024 * 1024, `the result is ${bytes} bytes`);
    const peakMiB = Number(peak) / 1024;
    assert.ok(Number.isFinite(peakMiB) && peakMiB > 0, `dq reported its peak (${peak})`);
    assert.ok(peakMiB <= MAX_PEAK_RSS_MIB, `dq peaked at ${peakMiB.toFixed(1)} MiB downloading ${(bytes / 2 ** 20).toFixed(0)} MiB`);
  });
});
