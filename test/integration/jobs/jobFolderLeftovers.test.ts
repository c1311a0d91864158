// A job's folder after downloads that were killed or repeated. A process killed mid-download
// (a window that crashed, a dq that was killed) leaves its hidden staging files behind: the
// next download of that job clears them, and "Remove and Delete Files" takes them, the
// listed files and those of an earlier download with it. Anything else in the folder (a
// person's notes, files named like another job's) is never touched.
//
// The killed download is a real dq process, SIGKILLed while its objects arrive from the
// emulator (paced, on real time: the child has its own clock).

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { systemClock } from '../../../src/core/clock';
import { nullLogger } from '../../../src/core/logger';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { STAGING_IN_USE_MS } from '../../../src/jobs/jobFiles';
import type { JobEntry, QueryParams } from '../../../src/jobs/jobEntry';
import { JobRunner } from '../../../src/jobs/jobRunner';
import { JobStore } from '../../../src/jobs/jobStore';
import { JobsModel } from '../../../src/jobs/jobsModel';
import { ensureResultsRoot, jobFolder } from '../../../src/jobs/resultsLayout';
import { SincePointStore } from '../../../src/jobs/sincePoints';
import { MemoryStorage } from '../../unit/jobs/memoryStorage';

const DQ = path.resolve(__dirname, '../../../src/cli/main.js');
const webLogs: QueryParams = { connection: 'Sample data', namespace: 'canvas_logs', table: 'web_logs', request: { format: 'jsonl' } };
/** what a person keeps beside the results, and names the downloader would give another job's objects */
const NOT_THE_JOBS = ['notes.txt', '.keep', 'part-00000-0123456789.jsonl.gz', '.part-00000-0123456789.0a1b2c3d4e5f.part', '.part-00001-0123456789.jsonl.gz.0a1b2c3d4e5f.old'];

describe('a job\'s folder after killed and repeated downloads', function () {
  this.timeout(60_000);
  let emu: RunningEmulator;
  let root: string;
  let client: DataQueryClient;
  let model: JobsModel;
  let runner: JobRunner;

  beforeEach(async () => {
    emu = await startEmulator({ jobDelayMs: 200, namespaces: ['canvas_logs'], rows: 20_000, rowsPerObject: 4_000, gzipLevel: 1, limits: false });
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-leftovers-'));
    client = new DataQueryClient({ baseUrl: emu.baseUrl, dataPrefix: emu.dataPrefix, credentials: async () => ({ clientId: emu.clientId, clientSecret: emu.clientSecret }) });
    const storage = new MemoryStorage();
    model = new JobsModel(new JobStore(storage), systemClock, nullLogger);
    runner = new JobRunner({
      model,
      sincePoints: new SincePointStore(storage),
      clientFor: async () => client,
      // as the extension's: made (with its .gitignore) for a download, only looked up otherwise
      resultsRoot: async (options) => (options?.create === false ? root : ensureResultsRoot(root, true)),
      downloadSettings: () => ({ decompress: false, concurrency: 2, sha256: false }),
      clock: systemClock,
      logger: nullLogger,
    });
  });

  afterEach(async () => {
    runner.dispose();
    await client.close();
    await emu.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  /** A finished job in the list, not downloaded yet, and its folder. */
  async function finishedJob(): Promise<{ entry: JobEntry; folder: string }> {
    const { entry, done } = runner.query(webLogs, false);
    const { job } = await done;
    return { entry, folder: jobFolder(root, { ...entry, jobId: job.id }) };
  }

  /** Runs `dq download` of the job into its folder and kills it once part of an object is on disk. */
  async function killedDownload(entry: JobEntry, folder: string): Promise<string[]> {
    emu.setObjectBytesPerSecond(100_000);
    const child = spawn(process.execPath, [DQ, 'download', entry.jobId as string, '--out', folder, '--format', 'jsonl'], {
      stdio: 'ignore',
      env: { PATH: process.env.PATH, DQ_BASE_URL: emu.baseUrl, DQ_DATA_PREFIX: emu.dataPrefix, DQ_CLIENT_ID: emu.clientId, DQ_CLIENT_SECRET: emu.clientSecret },
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      for (;;) {
        const staged = await stagingFiles(folder);
        if (staged.length > 0 && (await Promise.all(staged.map((f) => fs.stat(path.join(folder, f))))).some((s) => s.size > 0)) break;
        if (child.exitCode !== null) assert.fail('dq download ended before it could be killed');
        await new Promise((r) => setTimeout(r, 50));
      }
      child.kill('SIGKILL');
      await exited;
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      emu.setObjectBytesPerSecond(undefined);
    }
    const left = await stagingFiles(folder);
    assert.ok(left.length > 0, 'the killed download left staging files behind');
    // killed a while ago: no download is writing to them any more
    const then = new Date(Date.now() - 2 * STAGING_IN_USE_MS);
    for (const name of left) await fs.utimes(path.join(folder, name), then, then);
    return left;
  }

  async function stagingFiles(folder: string): Promise<string[]> {
    const names = await fs.readdir(folder).catch(() => [] as string[]);
    return names.filter((n) => n.startsWith('.part-') && !NOT_THE_JOBS.includes(n));
  }

  async function putOthersIn(folder: string): Promise<void> {
    await fs.mkdir(folder, { recursive: true });
    for (const name of NOT_THE_JOBS) await fs.writeFile(path.join(folder, name), `kept: ${name}\n`);
  }

  it('the next download of the job clears what a killed download left, and nothing else', async () => {
    const { entry, folder } = await finishedJob();
    await putOthersIn(folder);
    const left = await killedDownload(entry, folder);
    // a staging file another download is writing to right now, under another run id
    const inUse = left[0].replace(/\.[0-9a-f]+\.part$/, '.ffffffffffff.part');
    await fs.writeFile(path.join(folder, inUse), 'being written');

    const { files } = await runner.download(entry.key);
    const names = (await fs.readdir(folder)).sort();
    for (const name of left) assert.ok(!names.includes(name), `${name} is gone`);
    assert.deepEqual(names, [...files.map((f) => path.basename(f.path)), ...NOT_THE_JOBS, inUse].sort(), 'the job\'s files, the others\' and the one in use, nothing more');
    for (const name of NOT_THE_JOBS) assert.equal(await fs.readFile(path.join(folder, name), 'utf8'), `kept: ${name}\n`);
  });

  it('Remove and Delete Files takes the listed files, an earlier download\'s and a killed download\'s, and leaves the rest', async () => {
    const { entry, folder } = await finishedJob();
    const gz = await runner.download(entry.key);
    const plain = await runner.download(entry.key, true); // Download Results again, decompressed
    assert.ok(gz.files.every((f) => f.path.endsWith('.jsonl.gz')) && plain.files.every((f) => f.path.endsWith('.jsonl')));
    await putOthersIn(folder);
    await killedDownload(entry, folder);
    assert.deepEqual(
      model.get(entry.key)?.files.map((f) => f.path),
      plain.files.map((f) => f.path),
      'only the last download is listed',
    );

    await runner.remove(entry.key, true);
    assert.deepEqual((await fs.readdir(folder)).sort(), [...NOT_THE_JOBS].sort());
    for (const name of NOT_THE_JOBS) await fs.rm(path.join(folder, name));

    // a folder holding only the job's own files goes with them (the service answers the same
    // query with the same job, so this is the same folder, emptied)
    const again = await finishedJob();
    await runner.download(again.entry.key);
    await runner.download(again.entry.key, true);
    await killedDownload(again.entry, again.folder);
    await runner.remove(again.entry.key, true);
    await assert.rejects(fs.stat(again.folder), { code: 'ENOENT' });
  });

  it('Remove and Delete Files does not make again a results folder the user deleted', async () => {
    const { entry } = await finishedJob();
    await runner.download(entry.key);
    await fs.rm(root, { recursive: true });

    await runner.remove(entry.key, true);
    await assert.rejects(fs.stat(root), { code: 'ENOENT' }, 'the deleted results folder stays deleted');
    assert.equal(model.get(entry.key), undefined);
  });
});
