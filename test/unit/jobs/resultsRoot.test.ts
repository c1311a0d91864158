// The results root as the download folder setting names it: a folder that cannot be created
// or written to is reported as a local file problem naming the folder and the setting (also
// when a query's download runs into it), and a leading `~` is the home folder.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import type { DqError } from '../../../src/client/errors';
import { nullLogger } from '../../../src/core/logger';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import type { JobEntry } from '../../../src/jobs/jobEntry';
import { JobRunner } from '../../../src/jobs/jobRunner';
import { JobStore } from '../../../src/jobs/jobStore';
import { JobsModel } from '../../../src/jobs/jobsModel';
import { ensureResultsRoot, RESULTS_FOLDER_SETTING, resultsRootOf } from '../../../src/jobs/resultsLayout';
import { SincePointStore } from '../../../src/jobs/sincePoints';
import { failureText } from '../../../src/jobs/statusTexts';
import { dqRejection } from '../../support/dqRejection';
import { FakeClock } from '../../support/fakeClock';
import { tmpfsForSuite } from '../../support/tmpfsMount';
import { MemoryStorage } from './memoryStorage';

const rejection = (p: Promise<unknown>): Promise<DqError> => dqRejection(p, 'the results folder to be refused');

describe('results root', function () {
  this.timeout(30_000);
  let tmp: string;
  beforeEach(async () => (tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-root-'))));
  afterEach(() => fs.rm(tmp, { recursive: true, force: true }));

  it('a folder that cannot be created is a local file problem naming the folder and the setting', async () => {
    await fs.writeFile(path.join(tmp, 'notes'), 'a file where a folder would go');
    const wanted = path.join(tmp, 'notes', 'results');
    const err = await rejection(ensureResultsRoot(wanted, true));
    assert.equal(err.kind, 'io');
    assert.ok(err.message.includes(wanted), `the folder is named: ${err.message}`);
    assert.match(err.message, /ENOTDIR/);
    assert.ok(err.hint?.includes(RESULTS_FOLDER_SETTING), `the setting is named: ${err.hint}`);
  });

  it('a leading ~ in the setting is the home folder, not a folder named ~ in the workspace', async () => {
    const home = path.join(tmp, 'home');
    const workspace = path.join(tmp, 'workspace');
    await fs.mkdir(home);
    await fs.mkdir(workspace);
    const places = { workspaceFolder: workspace, globalStorage: path.join(tmp, 'storage'), home };
    for (const setting of ['~/dq results', '~']) {
      const { root, ignoreInGit } = resultsRootOf({ ...places, setting });
      await ensureResultsRoot(root, ignoreInGit);
    }
    assert.deepEqual(await fs.readdir(home), ['dq results'], 'made in the home folder');
    assert.deepEqual(await fs.readdir(workspace), [], 'nothing made in the workspace');
    // `~name` is no home folder of ours: it stays a relative path from the workspace folder
    assert.equal(resultsRootOf({ ...places, setting: '~other/x' }).root, path.join(workspace, '~other', 'x'));
  });

  describe('on a read-only file system', () => {
    const mount = tmpfsForSuite(() => path.join(os.tmpdir(), `dq-root-ro-${process.pid}`), { sizeKiB: 64, readOnly: true });

    it('an existing folder that takes no files is refused before anything is downloaded into it', async () => {
      const err = await rejection(ensureResultsRoot(mount(), false));
      assert.equal(err.kind, 'io');
      assert.ok(err.message.includes(mount()), `the folder is named: ${err.message}`);
      assert.match(err.message, /read-only/);
      assert.ok(err.hint?.includes(RESULTS_FOLDER_SETTING), `the setting is named: ${err.hint}`);
    });
  });

  describe('when a query downloads', () => {
    let emu: RunningEmulator | undefined;
    let client: DataQueryClient | undefined;
    let runner: JobRunner | undefined;

    afterEach(async () => {
      runner?.dispose();
      await client?.close();
      await emu?.close();
    });

    it('its notification names the folder and the setting, not a raw Node error, before a job is created', async () => {
      const clock = new FakeClock();
      emu = await startEmulator({ clock, jobDelayMs: 2_000, rows: 50, gzipLevel: 1, namespaces: ['canvas'] });
      const service = emu;
      const jobClient = new DataQueryClient({
        baseUrl: service.baseUrl,
        dataPrefix: service.dataPrefix,
        credentials: async () => ({ clientId: service.clientId, clientSecret: service.clientSecret }),
        clock,
        random: () => 0.5,
      });
      client = jobClient;
      await fs.writeFile(path.join(tmp, 'notes'), 'a file where a folder would go');
      const wanted = path.join(tmp, 'notes', 'results');
      const storage = new MemoryStorage();
      const model = new JobsModel(new JobStore(storage), clock, nullLogger);
      runner = new JobRunner({
        model,
        sincePoints: new SincePointStore(storage),
        clientFor: async () => jobClient,
        resultsRoot: () => ensureResultsRoot(wanted, true),
        downloadSettings: () => ({ decompress: false, concurrency: 2, sha256: false }),
        clock,
        logger: nullLogger,
      });
      const { entry, done } = runner.query({ connection: 'c', namespace: 'canvas', table: 'users', request: { format: 'csv' } }, true);
      await assert.rejects(clock.run(done));
      const failure = (model.get(entry.key) as JobEntry).failure;
      assert.equal(failure?.kind, 'io');
      const text = failureText(failure as NonNullable<typeof failure>);
      assert.ok(text.includes(wanted) && text.includes(RESULTS_FOLDER_SETTING), text);
      assert.equal(service.requestLog.entries().filter((e) => e.operation === 'createJob').length, 0, 'no job was created for a folder that cannot take its files');
      assert.equal(model.get(entry.key)?.state, 'failed');
    });
  });
});
