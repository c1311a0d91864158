// Querying a table again while the first query of it still runs: the service answers with
// the same job and the list keeps one entry for it. That entry carries the first query's
// work on: one download, shown where the user can see it, stopped when they stop it.

import * as assert from 'node:assert/strict';
import { isDqError } from '../../../src/client/errors';
import type { JobEntry, QueryParams } from '../../../src/jobs/jobEntry';
import { flushMicrotasks } from '../../support/fakeClock';
import { filesUnder, startRunner, waitFor, waitUntil, type RunnerFixture } from './runnerFixture';

const webLogs: QueryParams = { connection: 'Sample data', namespace: 'canvas_logs', table: 'web_logs', request: { format: 'jsonl' } };
/** several objects, each paced so a download takes a while */
const paced = { namespaces: ['canvas_logs'], rows: 20_000, rowsPerObject: 2_000, objectBytesPerSecond: 20_000 };

describe('JobRunner: the same query again while the first still runs', function () {
  this.timeout(30_000);
  let fx: RunnerFixture | undefined;

  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });

  /** Starts the first query, lets its download begin, then the same query again until the service answers it. */
  async function queryTwice(f: RunnerFixture, secondDownloads = true) {
    const first = f.runner.query(webLogs, true);
    first.done.catch(() => undefined);
    await f.clock.run(waitFor(f.model, first.entry.key, 'downloading', (e) => (e.progress?.bytes ?? 0) > 0));
    const second = f.runner.query(webLogs, secondDownloads);
    second.done.catch(() => undefined);
    await f.clock.run(waitUntil(f.model, second.entry.key, (e) => e.jobId !== undefined));
    await flushMicrotasks(20);
    return { first, second };
  }

  it('shows one entry, which follows the first download to its end without fetching anything twice', async () => {
    fx = await startRunner(paced);
    const { clock, emu, model, runner, root } = fx;
    const { first, second } = await queryTwice(fx, false);
    assert.deepEqual(model.list().map((e) => e.key), [second.entry.key], 'one entry for the one job');
    const shown = model.get(second.entry.key) as JobEntry;
    assert.equal(shown.state, 'downloading', 'the entry shows the download going on');
    assert.ok((shown.progress?.bytes ?? 0) > 0, 'with its progress');
    assert.ok(runner.isRunning(second.entry.key));

    const [a, b] = await clock.run(Promise.all([first.done, second.done]), 20_000);
    assert.equal(a.entry.key, second.entry.key, 'the first query ends on the entry that is listed');
    assert.equal(b.entry.key, second.entry.key);
    const listed = model.get(second.entry.key) as JobEntry;
    assert.equal(listed.state, 'complete');
    assert.equal(listed.failure, undefined);
    assert.deepEqual(listed.files.map((f) => f.path).sort(), (await filesUnder(root)).sort(), 'the files on disk are the ones listed');
    assert.equal(model.get(first.entry.key)?.key, second.entry.key, 'what followed the first query (its notification) finds the listed entry');
    const objects = listed.objects?.length ?? 0;
    assert.ok(objects > 1);
    assert.equal(emu.requestLog.entries().filter((e) => e.host === 'object').length, objects, 'each object fetched once');
    assert.equal(runner.isRunning(second.entry.key), false);
  });

  it('stopping the entry that is listed stops the first query\'s download too, leaving no file and nothing running', async () => {
    fx = await startRunner(paced);
    const { clock, model, runner, root } = fx;
    const { first, second } = await queryTwice(fx);
    runner.cancel(second.entry.key);
    await assert.rejects(clock.run(first.done, 20_000), (e: unknown) => isDqError(e) && e.kind === 'cancelled');
    await assert.rejects(clock.run(second.done, 20_000), (e: unknown) => isDqError(e) && e.kind === 'cancelled');
    assert.equal(runner.isRunning(first.entry.key), false);
    assert.equal(runner.isRunning(second.entry.key), false);
    const stopped = model.get(second.entry.key) as JobEntry;
    assert.equal(stopped.state, 'complete');
    assert.equal(stopped.failure?.kind, 'cancelled');
    await clock.advance(600_000); // a run left going would finish its download by now
    assert.deepEqual(await filesUnder(root), [], 'no file landed after the stop');
    assert.deepEqual(model.list().map((e) => e.key), [second.entry.key]);
  });
});
