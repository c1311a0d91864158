// dq when the local disk fails it: a file-size limit (ulimit -f), a full disk, a read-only
// folder. Each ends with exit 8, one `dq: ` line naming the folder, and nothing partial left.
// The disks are small tmpfs mounts (root only: root ignores file permissions, so a read-only
// mount stands in for a read-only folder); those tests skip, saying why, where mounting fails.

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EXIT } from '../../../src/cli/exitCodes';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { runDq, type CliRun } from '../../support/cliHarness';
import { tmpfsForSuite, type TmpfsOptions } from '../../support/tmpfsMount';

const MAIN = path.resolve(__dirname, '../../../src/cli/main.js');

/** dq as a process whose files may grow to `kib` KiB at most (bash's ulimit -f). */
function dqWithFileSizeLimit(kib: number, argv: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const child = spawn('bash', ['-c', `ulimit -f ${kib} && exec "$0" "$@"`, process.execPath, MAIN, ...argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

function assertOneIoLine(run: CliRun, folder: string, problem: RegExp): void {
  assert.equal(run.code, EXIT.io, run.stderr);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0], /^dq: io: /);
  assert.ok(lines[0].includes(folder), `names ${folder}: ${lines[0]}`);
  assert.match(lines[0], problem);
  assert.doesNotMatch(lines[0], /proxy|network/i);
}

describe('dq and local file-system failures', function () {
  this.timeout(30_000);
  let emu: RunningEmulator;
  let env: NodeJS.ProcessEnv;
  let tmp: string;
  const query = (out: string): string[] => ['query', 'canvas_logs', 'web_logs', '--format', 'csv', '--out', out];

  before(async () => {
    // one object of about 1 MB: stored, not compressed
    emu = await startEmulator({ jobDelayMs: 0, limits: false, rows: 4000, gzipLevel: 0 });
    env = { DQ_BASE_URL: emu.baseUrl, DQ_DATA_PREFIX: emu.dataPrefix, DQ_CLIENT_ID: emu.clientId, DQ_CLIENT_SECRET: emu.clientSecret };
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-io-'));
  });
  after(async () => {
    await emu.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('exits 8 under a file-size limit (ulimit -f), leaving nothing', async () => {
    const out = path.join(tmp, 'limited', 'results');
    const run = await dqWithFileSizeLimit(256, query(out), env);
    assertOneIoLine(run, out, /file size/);
    assert.match(run.stderr, /EFBIG/);
    assert.deepEqual(await fs.readdir(tmp), [], 'the folders it made are gone too');
  });

  /** A tmpfs mounted for one suite; it skips, saying why, when it cannot be mounted. */
  const withTmpfs = (name: string, options: TmpfsOptions): (() => string) => tmpfsForSuite(() => path.join(tmp, name), options);

  describe('on a full disk', () => {
    const mount = withTmpfs('full', { sizeKiB: 128 });
    it('exits 8 naming the folder, leaving nothing', async () => {
      const out = path.join(mount(), 'results');
      assertOneIoLine(await runDq(query(out), { env }), out, /disk is full \(ENOSPC\)/);
      assert.deepEqual(await fs.readdir(mount()), []);
    });
  });

  describe('in a read-only folder', () => {
    const mount = withTmpfs('read-only', { sizeKiB: 128, readOnly: true });
    it('exits 8 naming the folder', async () => {
      assertOneIoLine(await runDq(query(mount()), { env }), mount(), /read-only file system \(EROFS\)/);
      assert.deepEqual(await fs.readdir(mount()), []);
    });
  });
});
