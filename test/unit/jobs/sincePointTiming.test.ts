// When a table's "since" point moves: only once the job's data is where the user asked for
// it. A download that fails or is stopped leaves the point where it was, so the next query
// neither pre-selects "Changes since" a snapshot nobody has nor skips a lost incremental's
// changes; a later successful Download of that job records it, never moving it backwards.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isDqError } from '../../../src/client/errors';
import type { JobEntry, QueryParams } from '../../../src/jobs/jobEntry';
import { jobFolder } from '../../../src/jobs/resultsLayout';
import { COMMIT_INTERVAL_MS } from '../../../src/emulator/sampleData/changeHistory';
import { startRunner, waitFor, type RunnerFixture } from './runnerFixture';

const users: QueryParams = { connection: 'Sample data', namespace: 'canvas', table: 'users', request: { format: 'csv' } };
const sinceLast: QueryParams = { ...users, request: { format: 'csv', since: 'last' } };

describe('JobRunner: the since point follows the files', function () {
  this.timeout(30_000);
  let fx: RunnerFixture | undefined;

  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });

  /** Once the service has named the job, puts a plain file where its folder would go. */
  async function blockFolderOf(f: RunnerFixture, key: string): Promise<string> {
    await f.clock.run(waitFor(f.model, key, 'running'));
    const entry = f.model.get(key) as JobEntry;
    const folder = jobFolder(f.root, { ...entry, jobId: entry.jobId as string });
    await fs.mkdir(path.dirname(folder), { recursive: true });
    await fs.writeFile(folder, 'in the way');
    return folder;
  }

  it('a snapshot whose download fails on the local disk records no point; Download, once it works, does', async () => {
    fx = await startRunner();
    const { clock, model, runner, sincePoints } = fx;
    const { entry, done } = runner.query(users, true);
    done.catch(() => undefined);
    const blocker = await blockFolderOf(fx, entry.key);
    await assert.rejects(clock.run(done), (e: unknown) => isDqError(e) && e.kind === 'io');
    const failed = model.get(entry.key) as JobEntry;
    assert.equal(failed.failure?.kind, 'io', 'the entry says the download failed');
    assert.deepEqual(failed.files, []);
    assert.equal(sincePoints.get('Sample data', 'canvas', 'users'), undefined, 'no snapshot on disk, so no point');
    assert.throws(() => runner.query(sinceLast, true), (e: unknown) => isDqError(e) && e.kind === 'snapshotRequired', 'no incremental without a base');

    await fs.rm(blocker);
    const again = await clock.run(runner.download(entry.key));
    assert.ok(again.files.length > 0);
    assert.equal(sincePoints.get('Sample data', 'canvas', 'users'), again.job.at, 'the downloaded snapshot is the base now');
  });

  it('a download refused by the object host records no point', async () => {
    fx = await startRunner({ faults: { expireUrl: 1 } });
    const { clock, model, runner, sincePoints } = fx;
    const { entry, done } = runner.query(users, true);
    await assert.rejects(clock.run(done), (e: unknown) => isDqError(e) && e.kind === 'server');
    assert.ok(model.get(entry.key)?.failure, 'the entry says the download failed');
    assert.equal(sincePoints.get('Sample data', 'canvas', 'users'), undefined);
  });

  it('a stopped download records no point, and downloading that older job later never moves a newer point back', async () => {
    fx = await startRunner({ objectBytesPerSecond: 4_000 });
    const { clock, model, runner, sincePoints } = fx;
    const first = runner.query(users, true);
    first.done.catch(() => undefined);
    await clock.run(waitFor(model, first.entry.key, 'downloading'));
    runner.cancel(first.entry.key);
    await assert.rejects(first.done, (e: unknown) => isDqError(e) && e.kind === 'cancelled');
    assert.equal(sincePoints.get('Sample data', 'canvas', 'users'), undefined, 'a stopped download is no base');

    await clock.advance(COMMIT_INTERVAL_MS); // the service has newer data now
    const second = await clock.run(runner.query(users, true).done);
    const firstAt = model.get(first.entry.key)?.at as string;
    assert.ok(Date.parse(second.job.at as string) > Date.parse(firstAt), 'the second snapshot is newer');
    assert.equal(sincePoints.get('Sample data', 'canvas', 'users'), second.job.at);

    const older = await clock.run(runner.download(first.entry.key));
    assert.ok(older.files.length > 0, 'the older snapshot downloads');
    assert.equal(sincePoints.get('Sample data', 'canvas', 'users'), second.job.at, 'still the newer point');
  });

  it('an incremental whose download fails keeps the point, so the next incremental still covers its changes', async () => {
    fx = await startRunner();
    const { clock, model, runner, sincePoints } = fx;
    const snapshot = await clock.run(runner.query(users, true).done);
    assert.equal(sincePoints.get('Sample data', 'canvas', 'users'), snapshot.job.at);

    await clock.advance(COMMIT_INTERVAL_MS);
    const lost = runner.query(sinceLast, true);
    lost.done.catch(() => undefined);
    await blockFolderOf(fx, lost.entry.key);
    await assert.rejects(clock.run(lost.done), (e: unknown) => isDqError(e) && e.kind === 'io');
    assert.ok(model.get(lost.entry.key)?.until, 'the service did answer the incremental');
    assert.equal(sincePoints.get('Sample data', 'canvas', 'users'), snapshot.job.at, 'the point stays at the snapshot');

    const next = runner.query({ ...sinceLast, request: { format: 'jsonl', since: 'last' } }, false);
    assert.equal(next.entry.request.since, snapshot.job.at, 'the next incremental starts where the files on disk end');
    await clock.run(next.done);
  });

  it('with downloads off, the point is recorded when the job completes', async () => {
    fx = await startRunner();
    const { clock, runner, sincePoints } = fx;
    const result = await clock.run(runner.query(users, false).done);
    assert.deepEqual(result.files, []);
    assert.equal(sincePoints.get('Sample data', 'canvas', 'users'), result.job.at);
  });
});
