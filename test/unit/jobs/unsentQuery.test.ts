// Stop Following a query the rate limiter still holds: it never reached the service, so the
// entry says nothing runs there, and the Jobs view offers Run Again but no Download (the
// menus in package.json match on the tree item's context value). One stopped while its
// request was on its way may have a job there. A job stopped after the service took it still
// offers Download.

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { isDqError } from '../../../src/client/errors';
import type { JobEntry, QueryParams } from '../../../src/jobs/jobEntry';
import { jobContextValue } from '../../../src/jobs/jobContextValue';
import type { JobRunner } from '../../../src/jobs/jobRunner';
import type { JobsModel } from '../../../src/jobs/jobsModel';
import { flushMicrotasks } from '../../support/fakeClock';
import { startRunner, waitFor, type RunnerFixture } from './runnerFixture';

interface MenuItem {
  command: string;
  when: string;
}

const manifest = JSON.parse(readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8')) as {
  contributes: { menus: { 'view/item/context': MenuItem[] } };
};

/** Whether the Jobs view shows `command` in a job's context menu (or inline) for this context value. */
function offered(command: string, contextValue: string): boolean {
  return manifest.contributes.menus['view/item/context']
    .filter((m) => m.command === command && m.when.includes('view == dataQuery.jobs'))
    .some((m) => viewItemMatches(m.when, contextValue));
}

/** Evaluates the `viewItem == x` or `viewItem =~ /re/` part of a when clause. */
function viewItemMatches(when: string, contextValue: string): boolean {
  const regex = /viewItem =~ \/(.+)\/$/.exec(when);
  if (regex) return new RegExp(regex[1]).test(contextValue);
  const exact = /viewItem == (\S+)/.exec(when);
  assert.ok(exact, `a viewItem test in "${when}"`);
  return exact[1] === contextValue;
}

const users: QueryParams = { connection: 'Sample data', namespace: 'canvas', table: 'users', request: { format: 'csv' } };

/** Six queries at once: the limiter lets five create jobs this minute and holds the sixth. */
async function sixQueries(runner: JobRunner, model: JobsModel): Promise<{ started: ReturnType<JobRunner['query']>[]; sixth: ReturnType<JobRunner['query']> }> {
  const tables = ['users', 'courses', 'accounts', 'enrollments', 'assignments', 'users'];
  const started = tables.map((table, i) => runner.query({ ...users, table, request: { format: i === 5 ? 'jsonl' : 'csv' } }, false));
  for (const s of started) s.done.catch(() => undefined);
  await flushMicrotasks(20);
  const sixth = started[5];
  assert.equal(model.get(sixth.entry.key)?.state, 'queued', 'the limiter holds the sixth');
  return { started, sixth };
}

describe('JobRunner: stopping a query that never reached the service', function () {
  this.timeout(30_000);
  let fx: RunnerFixture | undefined;

  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });

  it('says nothing runs on the service and offers Run Again, not Download', async () => {
    fx = await startRunner();
    const { clock, emu, model, runner } = fx;
    const { started, sixth } = await sixQueries(runner, model);

    runner.cancel(sixth.entry.key);
    await assert.rejects(sixth.done, (e: unknown) => isDqError(e) && e.kind === 'cancelled');
    const stopped = model.get(sixth.entry.key) as JobEntry;
    assert.equal(stopped.state, 'cancelled');
    assert.match(stopped.failure?.message ?? '', /before the query was sent/);
    assert.match(stopped.failure?.message ?? '', /nothing runs there/);
    assert.doesNotMatch(`${stopped.failure?.message} ${stopped.failure?.hint}`, /may still finish|Download/);
    const context = jobContextValue(stopped);
    assert.equal(offered('dataQuery.downloadJob', context), false, 'no Download for a job the service never had');
    assert.equal(offered('dataQuery.rerunJob', context), true, 'Run Again is offered');
    assert.equal(offered('dataQuery.removeJob', context), true);

    await clock.run(Promise.all(started.slice(0, 5).map((s) => s.done)));
    await clock.advance(120_000);
    const creates = emu.requestLog.entries().filter((e) => e.operation === 'createJob');
    assert.equal(creates.length, 5, 'the sixth query never reached the service');
  });

  it('a query stopped while its request is on its way says the service may have a job for it', async () => {
    fx = await startRunner();
    const { clock, model, runner } = fx;
    const { sixth } = await sixQueries(runner, model);
    // stopped the moment the Jobs view stops saying "queued": the window moved on and the
    // request is leaving for the service, with no answer yet
    const stoppedOnTheWay = new Promise<void>((resolve) => {
      const sub = model.onDidChange(() => {
        const e = model.get(sixth.entry.key);
        if (!e || e.state === 'queued' || e.jobId !== undefined) return;
        sub.dispose();
        runner.cancel(sixth.entry.key);
        resolve();
      });
    });
    await clock.run(stoppedOnTheWay);
    await assert.rejects(sixth.done, (e: unknown) => isDqError(e) && e.kind === 'cancelled');
    const stopped = model.get(sixth.entry.key) as JobEntry;
    assert.equal(stopped.state, 'cancelled');
    assert.match(stopped.failure?.message ?? '', /being sent; the service may have started a job/);
    assert.doesNotMatch(stopped.failure?.message ?? '', /nothing runs there/);
    assert.equal(offered('dataQuery.rerunJob', jobContextValue(stopped)), true, 'Run Again gets that job back');
  });

  it('a job stopped after the service took it may still finish there, and offers Download', async () => {
    fx = await startRunner();
    const { clock, model, runner } = fx;
    const { entry, done } = runner.query(users, false);
    done.catch(() => undefined);
    await clock.run(waitFor(model, entry.key, 'running'));
    runner.cancel(entry.key);
    await assert.rejects(done, (e: unknown) => isDqError(e) && e.kind === 'cancelled');
    const stopped = model.get(entry.key) as JobEntry;
    assert.equal(stopped.state, 'cancelled');
    assert.match(stopped.failure?.message ?? '', /may still finish on the service/);
    assert.equal(offered('dataQuery.downloadJob', jobContextValue(stopped)), true);
    const later = await clock.run(runner.download(entry.key));
    assert.ok(later.files.length > 0, 'and Download fetches its files');
  });

  it('a complete job offers Download, its files and the next incremental', async () => {
    fx = await startRunner();
    const { clock, model, runner } = fx;
    const { entry, done } = runner.query(users, true);
    await clock.run(done);
    const context = jobContextValue(model.get(entry.key) as JobEntry);
    assert.equal(context, 'dataQuery.job.complete.files.point');
    for (const command of ['dataQuery.downloadJob', 'dataQuery.openResult', 'dataQuery.queryChangesSince', 'dataQuery.rerunJob']) {
      assert.equal(offered(command, context), true, command);
    }
  });
});
