// dq as a process whose reader goes away: `dq ... | jq` with a jq that exits at once, `dq ...
// 2>&1 >out.txt | head -1`. A closed stdout stops dq quietly with exit 130 (as Ctrl-C would,
// nothing half-written); a closed stderr only loses progress, and the work goes on.

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { runDq, type CliRun } from '../../support/cliHarness';

const MAIN = path.resolve(__dirname, '../../../src/cli/main.js');

/** dq as a process with `closed` (its stdout or stderr) a pipe whose reader has already gone. */
function dqWithClosed(closed: 'stdout' | 'stderr', argv: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [MAIN, ...argv], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, ...env } });
  // our end of the pipe closes before dq writes a byte: every write of dq's fails with EPIPE
  child[closed].destroy();
  let stdout = '';
  let stderr = '';
  if (closed !== 'stdout') child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  if (closed !== 'stderr') child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

describe('dq with a closed output pipe', function () {
  this.timeout(60_000);
  let emu: RunningEmulator;
  let env: NodeJS.ProcessEnv;
  let tmp: string;

  before(async () => {
    emu = await startEmulator({ jobDelayMs: 300, limits: false });
    env = { DQ_BASE_URL: emu.baseUrl, DQ_DATA_PREFIX: emu.dataPrefix, DQ_CLIENT_ID: emu.clientId, DQ_CLIENT_SECRET: emu.clientSecret };
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-pipes-'));
  });
  after(async () => {
    await emu.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('dq --help into a closed pipe exits 130 without a word', async () => {
    const run = await dqWithClosed('stdout', ['--help']);
    assert.equal(run.code, 130);
    assert.equal(run.stderr, '');
  });

  it('dq query --json into a reader that exited exits 130 quietly, leaving only whole files', async () => {
    const out = path.join(tmp, 'query');
    const run = await dqWithClosed('stdout', ['query', 'canvas_logs', 'web_logs', '--json', '--out', out], env);
    assert.equal(run.code, 130, run.stderr);
    assert.equal(run.stderr, '', 'no stack trace, no message');
    // what is there is whole: the same files a run with a reader writes, byte for byte (the
    // service answers the identical request with the same job)
    const again = await runDq(['query', 'canvas_logs', 'web_logs', '--out', path.join(tmp, 'again')], { env });
    assert.equal(again.code, 0, again.stderr);
    const names = (await fs.readdir(out)).sort();
    assert.deepEqual(names, (await fs.readdir(path.join(tmp, 'again'))).sort());
    for (const name of names) assert.deepEqual(await fs.readFile(path.join(out, name)), await fs.readFile(path.join(tmp, 'again', name)));
  });

  it('dq query --progress with stderr closed goes on and delivers the files', async () => {
    const out = path.join(tmp, 'progress');
    const run = await dqWithClosed('stderr', ['query', 'canvas', 'users', '--progress', '--out', out], env);
    assert.equal(run.code, 0);
    const files = run.stdout.trim().split('\n');
    assert.ok(files.length >= 1 && files.every((f) => path.dirname(f) === out), run.stdout);
    assert.deepEqual((await fs.readdir(out)).sort(), files.map((f) => path.basename(f)).sort());
  });

  it('dq sync --progress with stderr closed completes the sync', async () => {
    const target = path.join(tmp, 's.duckdb');
    const run = await dqWithClosed('stderr', ['sync', 'canvas', 'users', 'courses', '--progress', '--to', target], env);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^canvas\.users +synced/m);
    const status = await runDq(['sync-status', '--to', target, '--json']);
    assert.equal(status.code, 0, status.stderr);
    assert.deepEqual((JSON.parse(status.stdout) as { tables: Array<{ table: string }> }).tables.map((t) => t.table).sort(), ['courses', 'users']);
    assert.deepEqual((await fs.readdir(tmp)).filter((n) => n.startsWith('s.duckdb')), ['s.duckdb'], 'no write-ahead log left behind');
  });
});
