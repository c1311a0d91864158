// The job runner against the emulator over loopback HTTP, with one fake clock for both, so
// job progress, rate windows and polling move only when the test says.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isDqError } from '../../../src/client/errors';
import type { EmulatorOptions } from '../../../src/emulator/emulator';
import type { JobEntry, JobState, QueryParams } from '../../../src/jobs/jobEntry';
import { JobsModel } from '../../../src/jobs/jobsModel';
import { SincePointStore } from '../../../src/jobs/sincePoints';
import { queueText } from '../../../src/jobs/statusTexts';
import { flushMicrotasks } from '../../support/fakeClock';
import { startRunner, type RunnerFixture } from './runnerFixture';

const users: QueryParams = { connection: 'Sample data', namespace: 'canvas', table: 'users', request: { format: 'csv' } };

describe('JobRunner (emulator)', function () {
  this.timeout(30_000);
  let setup: RunnerFixture | undefined;

  async function start(emulator: EmulatorOptions = {}): Promise<RunnerFixture> {
    setup = await startRunner(emulator);
    return setup;
  }

  afterEach(async () => {
    await setup?.close();
    setup = undefined;
  });

  function states(model: JobsModel, key: string): JobState[] {
    const seen: JobState[] = [];
    model.onDidChange(() => {
      const state = model.get(key)?.state;
      if (state && seen[seen.length - 1] !== state) seen.push(state);
    });
    return seen;
  }

  it('creates, follows and downloads a job into <connection>/<namespace>/<table>/<job id>/ and remembers its point', async () => {
    const { clock, model, runner, root, storage } = await start();
    const { entry, done } = runner.query(users, true);
    const seen = states(model, entry.key);
    const result = await clock.run(done);
    assert.equal(result.job.status, 'complete');
    assert.deepEqual(seen, ['waiting', 'running', 'complete', 'downloading', 'complete']);
    const folder = path.join(root, 'Sample data', 'canvas', 'users', result.job.id);
    assert.ok(result.files.length > 0);
    for (const f of result.files) {
      assert.equal(path.dirname(f.path), folder);
      assert.match(path.basename(f.path), /^part-\d{5}-[0-9a-f]{10}\.csv\.gz$/);
      assert.equal((await fs.stat(f.path)).size, f.bytes);
    }
    assert.deepEqual(model.get(entry.key)?.files, result.files);
    assert.equal(model.get(entry.key)?.at, result.job.at);
    assert.equal(new SincePointStore(storage).get('Sample data', 'canvas', 'users'), result.job.at);
  });

  it('continues from the last point with since "last", and refuses it before the first snapshot', async () => {
    const { clock, model, runner } = await start();
    assert.throws(
      () => runner.query({ ...users, request: { format: 'csv', since: 'last' } }, false),
      (e: unknown) => isDqError(e) && e.kind === 'snapshotRequired' && /snapshot first/.test(e.hint ?? ''),
    );
    assert.equal(model.list().length, 0, 'a refused query leaves no entry');
    const snapshot = await clock.run(runner.query(users, false).done);
    const incremental = await clock.run(runner.query({ ...users, request: { format: 'csv', since: 'last' } }, false).done);
    assert.equal(incremental.entry.request.since, snapshot.job.at);
    assert.equal(incremental.job.since, snapshot.job.at);
  });

  it('queues the sixth query of a minute instead of failing it, and starts it by itself', async () => {
    const { clock, model, runner } = await start();
    const tables = ['users', 'courses', 'accounts', 'enrollments', 'assignments', 'users'];
    const formats = ['csv', 'csv', 'csv', 'csv', 'csv', 'jsonl'] as const;
    const started = tables.map((table, i) => runner.query({ ...users, table, request: { format: formats[i] } }, false));
    await flushMicrotasks(20);
    const sixth = model.get(started[5].entry.key) as JobEntry;
    assert.equal(sixth.state, 'queued');
    assert.ok(sixth.queue, 'the wait is known');
    assert.equal(queueText(sixth.queue, clock.now()), 'queued: rate limit, starts in 60 s', 'all five started at this moment');
    const results = await clock.run(Promise.all(started.map((s) => s.done)));
    assert.ok(results.every((r) => r.job.status === 'complete'));
    assert.equal(model.get(started[5].entry.key)?.queue, undefined);
  });

  it('marks a failed job with the service\'s error type and uuid', async () => {
    const { clock, model, runner } = await start({ faults: { jobFail: 1 } });
    const { entry, done } = runner.query(users, true);
    await assert.rejects(clock.run(done), (e: unknown) => isDqError(e) && e.kind === 'jobFailed');
    const failed = model.get(entry.key) as JobEntry;
    assert.equal(failed.state, 'failed');
    assert.ok(failed.failure?.uuid, 'the uuid support asks for is kept');
    assert.deepEqual(failed.files, []);
  });

  it('follows again, after a reload, the jobs that were running when the window closed', async () => {
    const { clock, model, runner, reload, root } = await start();
    const { entry, done } = runner.query(users, true);
    done.catch(() => undefined);
    while (model.get(entry.key)?.state !== 'running') await clock.advance(500);
    runner.dispose(); // the window closes
    await flushMicrotasks(20);
    assert.equal(model.get(entry.key)?.state, 'running', 'closing the window does not mark the job');

    const next = reload();
    assert.equal(next.model.get(entry.key)?.state, 'running');
    next.runner.resume();
    assert.ok(next.runner.isRunning(entry.key));
    await clock.run(waitFor(next.model, entry.key, 'complete', (e) => e.files.length > 0));
    const files = next.model.get(entry.key)?.files ?? [];
    assert.ok(files.length > 0 && files.every((f) => f.path.startsWith(root)));
  });

  it('cancels a download without leaving a file under a final name, and can download it again', async () => {
    const { clock, model, runner, root } = await start({ namespaces: ['canvas_logs'], rows: 20_000, rowsPerObject: 2_000 });
    const { entry, done } = runner.query({ ...users, namespace: 'canvas_logs', table: 'web_logs' }, true);
    done.catch(() => undefined);
    await clock.run(waitFor(model, entry.key, 'downloading'));
    runner.cancel(entry.key);
    await assert.rejects(done, (e: unknown) => isDqError(e) && e.kind === 'cancelled');
    const cancelled = model.get(entry.key) as JobEntry;
    assert.equal(cancelled.state, 'complete');
    assert.equal(cancelled.failure?.kind, 'cancelled');
    assert.deepEqual(await filesUnder(root), [], 'no file under a final name');

    const again = await clock.run(runner.download(entry.key));
    assert.ok(again.files.length > 1);
    assert.deepEqual((await filesUnder(root)).sort(), again.files.map((f) => f.path).sort());
  });

  it('marks a job the service no longer knows as expired', async () => {
    const { clock, model, runner, reload } = await start({ jobTtlSec: 60 });
    const { entry, done } = runner.query(users, false);
    await clock.run(done);
    await clock.advance(120_000);
    const next = reload();
    await assert.rejects(clock.run(next.runner.download(entry.key)), (e: unknown) => isDqError(e) && e.kind === 'jobExpired');
    assert.equal(next.model.get(entry.key)?.state, 'expired');
    assert.equal(model.list().length, 1);
  });

  it('picks a running job up again when its connection\'s client is rebuilt under it', async () => {
    const { clock, model, runner, clients } = await start();
    const { entry, done } = runner.query(users, false);
    while (model.get(entry.key)?.state !== 'running') await clock.advance(500);
    await clients[0].close(); // a settings change rebuilt the connection
    const result = await clock.run(done);
    assert.equal(result.job.status, 'complete');
    assert.equal(clients.length, 2);
    assert.equal(model.get(entry.key)?.state, 'complete');
  });

  it('downloads again on a new client when the connection is rebuilt during the download', async () => {
    // objects paced to take a while, so the rebuild lands mid-download
    const { clock, model, runner, clients, emu } = await start({ objectBytesPerSecond: 4_000 });
    const { entry, done } = runner.query(users, true);
    while (model.get(entry.key)?.state !== 'downloading') await clock.advance(500);
    await clients[0].close(); // Set Credentials or a rate-limit setting rebuilt the connection
    const result = await clock.run(done);
    assert.equal(clients.length, 2, 'the download moved to a new client');
    const stored = model.get(entry.key);
    assert.equal(stored?.state, 'complete');
    assert.equal(stored?.failure, undefined, 'no failure recorded');
    assert.ok(result.files.length > 0);
    for (const f of result.files) assert.equal((await fs.stat(f.path)).size, f.bytes);
    assert.ok(emu.requestLog.entries().some((e) => e.host === 'object'), 'files came from the object host');
  });
});

/** Resolves when the entry reaches `state` (and `also` holds). */
function waitFor(model: JobsModel, key: string, state: JobState, also: (e: JobEntry) => boolean = () => true): Promise<void> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      const e = model.get(key);
      return e !== undefined && e.state === state && also(e);
    };
    if (check()) return resolve();
    const sub = model.onDidChange(() => {
      if (!check()) return;
      sub.dispose();
      resolve();
    });
  });
}

/** Every regular file below `dir` whose name does not start with a dot. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => path.join(e.parentPath, e.name));
}
