import * as assert from 'node:assert/strict';
import { nullLogger } from '../../../src/core/logger';
import type { QueryParams } from '../../../src/jobs/jobEntry';
import { JobStore } from '../../../src/jobs/jobStore';
import { JobsModel } from '../../../src/jobs/jobsModel';
import { FakeClock } from '../../support/fakeClock';
import { MemoryStorage } from './memoryStorage';

const users: QueryParams = { connection: 'Sample data', namespace: 'canvas', table: 'users', request: { format: 'csv' } };
const courses: QueryParams = { ...users, table: 'courses' };

describe('JobsModel', () => {
  it('lists jobs newest first and keeps them across a reload, without transient progress', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage();
    const model = new JobsModel(new JobStore(storage), clock, nullLogger);
    const first = model.add(users, true);
    await clock.advance(1_000);
    const second = model.add(courses, true);
    model.update(first.key, { jobId: 'j-1', state: 'running' });
    model.update(second.key, { state: 'downloading', progress: { bytes: 10, doneFiles: 0, totalFiles: 2 } });
    assert.deepEqual(model.list().map((e) => e.table), ['courses', 'users']);

    const reloaded = new JobsModel(new JobStore(storage), clock, nullLogger);
    assert.deepEqual(reloaded.list().map((e) => [e.table, e.state, e.jobId]), [['courses', 'downloading', undefined], ['users', 'running', 'j-1']]);
    assert.equal(reloaded.get(second.key)?.progress, undefined, 'download progress is not saved');
  });

  it('tells listeners about each change', () => {
    const model = new JobsModel(new JobStore(new MemoryStorage()), new FakeClock(), nullLogger);
    const seen: (string | undefined)[] = [];
    model.onDidChange((e) => seen.push(e?.state));
    const entry = model.add(users, false);
    model.update(entry.key, { state: 'running' });
    model.remove(entry.key);
    assert.deepEqual(seen, [undefined, 'running', undefined]);
  });

  it('folds an older entry into a new one when the service answers with the same job', () => {
    const model = new JobsModel(new JobStore(new MemoryStorage()), new FakeClock(), nullLogger);
    const older = model.add(users, true);
    const file = { objectId: 'o-1', path: '/r/part-00000.csv.gz', bytes: 3, sha256: 'x', gzip: true };
    model.update(older.key, { jobId: 'same', state: 'complete', files: [file] });
    const newer = model.add(users, true);
    model.update(newer.key, { jobId: 'same', state: 'complete' });
    assert.deepEqual(model.list().map((e) => e.key), [newer.key]);
    assert.deepEqual(model.get(newer.key)?.files, [file]);
  });

  it('forgets finished jobs after the kept days but never a running one', async () => {
    const clock = new FakeClock();
    const model = new JobsModel(new JobStore(new MemoryStorage()), clock, nullLogger);
    const done = model.add(users, false);
    model.update(done.key, { state: 'complete' });
    const running = model.add(courses, false);
    model.update(running.key, { state: 'running' });
    await clock.advance(8 * 24 * 3600_000);
    const fresh = model.add(users, false);
    model.update(fresh.key, { state: 'failed' });
    model.prune(7);
    assert.deepEqual(model.list().map((e) => e.key).sort(), [running.key, fresh.key].sort());
  });

  it('drops saved entries that do not look like jobs', () => {
    const storage = new MemoryStorage();
    void storage.update('dataQuery.jobs', [{ key: 'k' }, 'junk', null]);
    assert.deepEqual(new JobsModel(new JobStore(storage), new FakeClock(), nullLogger).list(), []);
  });
});
