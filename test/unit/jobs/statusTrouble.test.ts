// A gateway outage while a job runs: its status checks fail for ten minutes, and the job
// completes at the service all the same. The Jobs view says the checks are failing and that
// it keeps trying, never "failed", and the entry ends complete with its point recorded.

import * as assert from 'node:assert/strict';
import { nullLogger } from '../../../src/core/logger';
import { JobRunner } from '../../../src/jobs/jobRunner';
import { JobStore } from '../../../src/jobs/jobStore';
import { JobsModel } from '../../../src/jobs/jobsModel';
import { SincePointStore } from '../../../src/jobs/sincePoints';
import { stateText } from '../../../src/jobs/statusTexts';
import { makeFixture } from '../client/clientFixture';
import { MemoryStorage } from './memoryStorage';

describe('a job whose status checks fail for a while', () => {
  it('shows the failing checks as such and ends complete, with its point, once the service answers again', async () => {
    const { gateway, client, clock } = makeFixture();
    const t0 = clock.now();
    const outage = { from: t0 + 20_000, to: t0 + 620_000 };
    const at = '2026-11-20T08:00:00Z';
    gateway
      .onLogin(() => clock.now())
      .on('POST', '/dap/query/canvas/table/accounts/data', () => ({ status: 202, body: { id: 'j1', status: 'running' } }))
      .on('GET', '/dap/job/j1', () => {
        const now = clock.now();
        if (now >= outage.from && now < outage.to) return { status: 502, body: '<html>Bad Gateway</html>' };
        return now - t0 >= 700_000
          ? { status: 200, body: { id: 'j1', status: 'complete', objects: [{ id: 'o1' }], schema_version: 1, at } }
          : { status: 200, body: { id: 'j1', status: 'running' } };
      });
    const storage = new MemoryStorage();
    const model = new JobsModel(new JobStore(storage), clock, nullLogger);
    const sincePoints = new SincePointStore(storage);
    const runner = new JobRunner({
      model,
      sincePoints,
      clientFor: async () => client,
      resultsRoot: async () => '/nonexistent',
      downloadSettings: () => ({ decompress: false, concurrency: 1, sha256: false }),
      clock,
      logger: nullLogger,
    });
    const shown = new Set<string>();
    model.onDidChange(() => {
      for (const e of model.list()) shown.add(stateText(e, clock.now()));
    });
    const { entry, done } = runner.query({ connection: 'c', namespace: 'canvas', table: 'accounts', request: { format: 'jsonl' } }, false);

    const result = await clock.run(done, 10_000);
    assert.equal(result.entry.state, 'complete');
    assert.ok(shown.has('running, status checks failing, still trying'), [...shown].join(' | '));
    assert.ok(![...shown].some((t) => t.startsWith('failed')), [...shown].join(' | '));
    const final = model.get(entry.key);
    assert.equal(final?.statusTrouble, undefined, 'the trouble is gone once checks work');
    assert.equal(sincePoints.get('c', 'canvas', 'accounts'), at, 'the next incremental starts at its point');
  });

  it('a reload does not bring back failing checks: they are never saved', async () => {
    const storage = new MemoryStorage();
    const store = new JobStore(storage);
    const trouble = { kind: 'server' as const, message: 'Reading the job status failed with HTTP 502' };
    await store.save([
      { key: 'k', connection: 'c', namespace: 'canvas', table: 'accounts', request: { format: 'jsonl' }, state: 'running', createdAt: 1, updatedAt: 1, jobId: 'j1', download: false, files: [], statusTrouble: trouble },
    ]);
    const [loaded] = store.load();
    assert.equal(loaded.state, 'running');
    assert.equal(loaded.statusTrouble, undefined);
  });
});
