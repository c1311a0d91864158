import * as assert from 'node:assert/strict';
import { isDqError } from '../../../src/client/errors';
import { JobPoller } from '../../../src/client/jobPoller';
import type { JobRecord, JobStatus } from '../../../src/core/contract';
import { FakeClock } from '../../support/fakeClock';
import { makeFixture } from './clientFixture';

/** A fetchJob that follows a script of statuses per job and records when it was asked. */
function scripted(clock: FakeClock, script: Record<string, JobStatus[]>) {
  const polls: { jobId: string; at: number }[] = [];
  const fetchJob = async (jobId: string): Promise<JobRecord> => {
    polls.push({ jobId, at: clock.now() });
    const steps = script[jobId];
    const n = polls.filter((p) => p.jobId === jobId).length;
    const status = steps[Math.min(n, steps.length) - 1];
    return status === 'complete' ? { id: jobId, status, objects: [{ id: `${jobId}-o` }] } : { id: jobId, status };
  };
  return { polls, fetchJob };
}

describe('JobPoller', () => {
  it('waits a quarter of the time it has watched a job between polls, from 1 s up to 5 minutes', async () => {
    const clock = new FakeClock();
    const statuses: JobStatus[] = [...Array(20).fill('waiting'), ...Array(20).fill('running'), 'complete'];
    const { polls, fetchJob } = scripted(clock, { j: statuses });
    const poller = new JobPoller({ fetchJob, clock });
    const updates: string[] = [];
    const t0 = clock.now();
    const job = await clock.run(poller.watch('j', { onUpdate: (r) => updates.push(r.status) }));
    assert.equal(job.status, 'complete');
    assert.equal(polls[0].at, t0, 'the first poll is immediate');
    const gaps = polls.slice(1).map((p, i) => ({ age: polls[i].at - t0, gap: p.at - polls[i].at }));
    assert.deepEqual(gaps.slice(0, 5).map((g) => g.gap), [1_000, 1_000, 1_000, 1_000, 1_000], 'a young job is checked every second');
    for (const { age, gap } of gaps) assert.equal(gap, Math.min(300_000, Math.max(1_000, Math.round(age / 4))), `gap after ${age} ms`);
    assert.ok(gaps.some((g) => g.gap === 300_000), 'the run reached the 5-minute cap');
    assert.deepEqual(updates, ['waiting', 'running', 'complete']);
  });

  it('polls a job a number of times that grows with the log of its duration', async () => {
    /** polls until a job of `durationMs` is seen complete, and how late that was */
    const pollsFor = async (durationMs: number) => {
      const clock = new FakeClock();
      const t0 = clock.now();
      let calls = 0;
      const poller = new JobPoller({
        clock,
        fetchJob: async (id) => {
          calls++;
          return clock.now() - t0 >= durationMs ? { id, status: 'complete', objects: [] } : { id, status: 'running' };
        },
      });
      await clock.run(poller.watch('j'), 10_000);
      return { calls, lateMs: clock.now() - t0 - durationMs };
    };
    const [fiveMinutes, halfHour, twoHours] = await Promise.all([300_000, 1_800_000, 7_200_000].map(pollsFor));
    assert.ok(halfHour.calls - fiveMinutes.calls <= 10, `a 6x longer job adds ${halfHour.calls - fiveMinutes.calls} polls`);
    assert.ok(twoHours.calls < 60, `two hours took ${twoHours.calls} polls (every 5 s would be 1,440)`);
    assert.ok(fiveMinutes.lateMs <= 300_000 / 4, `a 5-minute job was seen ${fiveMinutes.lateMs} ms after it ended`);
    assert.ok(twoHours.lateMs <= 300_000, `a 2-hour job was seen ${twoHours.lateMs} ms after it ended`);
  });

  it('polls many jobs from one loop with a single pending timer', async () => {
    const clock = new FakeClock();
    const script: Record<string, JobStatus[]> = {};
    for (let i = 0; i < 6; i++) script[`j${i}`] = [...Array(i + 2).fill('running'), 'complete'];
    const { fetchJob } = scripted(clock, script);
    const poller = new JobPoller({ fetchJob, clock });
    const all = Promise.all(Object.keys(script).map((id) => poller.watch(id)));
    for (let step = 0; step < 5; step++) {
      await clock.advance(1_000);
      assert.ok(clock.pending <= 1, `one timer for all jobs, saw ${clock.pending}`);
    }
    const done = await clock.run(all);
    assert.deepEqual(done.map((j) => j.status), Array(6).fill('complete'));
    assert.equal(poller.size, 0);
    assert.equal(clock.pending, 0, 'the loop ends when nothing is watched');
  });

  it('two waiters on the same job share its polls', async () => {
    const clock = new FakeClock();
    const { polls, fetchJob } = scripted(clock, { j: ['running', 'running', 'complete'] });
    const poller = new JobPoller({ fetchJob, clock });
    const [a, b] = await clock.run(Promise.all([poller.watch('j'), poller.watch('j')]));
    assert.equal(a.id, b.id);
    assert.equal(polls.length, 3);
  });

  it('a failed job rejects with jobFailed carrying the job error type, uuid and message', async () => {
    const clock = new FakeClock();
    const poller = new JobPoller({
      clock,
      fetchJob: async (id) => ({ id, status: 'failed', error: { type: 'QueryError', uuid: 'u-job', message: 'column overflow' } }),
    });
    const err = await clock.run(poller.watch('j')).catch((e: unknown) => e);
    assert.ok(isDqError(err));
    assert.equal(err.kind, 'jobFailed');
    assert.equal(err.type, 'QueryError');
    assert.equal(err.uuid, 'u-job');
    assert.match(err.message, /column overflow/);
    assert.match(err.describe(), /uuid u-job/);
  });

  it('a failed job whose server message holds a pre-signed link reports it without the signature', async () => {
    const clock = new FakeClock();
    const link = 'https://bucket.example.test/out/part-0?X-Goog-Credential=sa%40x&X-Goog-Signature=0ddba11&Key-Pair-Id=K9';
    const poller = new JobPoller({
      clock,
      fetchJob: async (id) => ({ id, status: 'failed', error: { uuid: 'u-job', message: `could not write ${link}` } }),
    });
    const err = await clock.run(poller.watch('j')).catch((e: unknown) => e);
    assert.ok(isDqError(err) && err.kind === 'jobFailed');
    assert.match(err.message, /could not write https:\/\/bucket\.example\.test\/out\/part-0\?/);
    for (const secret of ['sa%40x', '0ddba11', 'K9']) assert.ok(!err.describe().includes(secret), secret);
  });

  it('cancelling one waiter stops polling when no one else waits', async () => {
    const clock = new FakeClock();
    const { polls, fetchJob } = scripted(clock, { j: ['running'] });
    const poller = new JobPoller({ fetchJob, clock });
    const controller = new AbortController();
    const wait = poller.watch('j', { signal: controller.signal });
    await clock.advance(3_000);
    controller.abort();
    await assert.rejects(wait, (e: unknown) => isDqError(e) && e.kind === 'cancelled');
    const count = polls.length;
    await clock.advance(120_000);
    assert.equal(polls.length, count);
  });

  it('waitForJob maps a 404 to jobExpired', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.onLogin(() => clock.now()).on('GET', '/dap/job/gone', () => ({ status: 404, body: { error: { type: 'NotFound', uuid: 'u-404', message: 'no job', id: 'gone', kind: 'job' } } }));
    const err = await clock.run(client.waitForJob('gone')).catch((e: unknown) => e);
    assert.ok(isDqError(err));
    assert.equal(err.kind, 'jobExpired');
    assert.equal(err.uuid, 'u-404');
    assert.match(err.hint ?? '', /run the query again/);
  });

  it('rides out a 10-minute outage of the status checks: the job completes afterwards, the waiter hears of the trouble and its end', async () => {
    const { gateway, client, clock } = makeFixture();
    const t0 = clock.now();
    const outage = { from: t0 + 10_000, to: t0 + 610_000 };
    gateway.onLogin(() => clock.now()).on('GET', '/dap/job/long', () => {
      const now = clock.now();
      if (now >= outage.from && now < outage.to) return { status: 503, body: { error: { type: 'ServiceUnavailable', message: 'down for maintenance' } } };
      return now - t0 >= 900_000 ? { status: 200, body: { id: 'long', status: 'complete', objects: [{ id: 'o1' }] } } : { status: 200, body: { id: 'long', status: 'running' } };
    });
    const troubles: (string | undefined)[] = [];
    const job = await clock.run(client.waitForJob('long', { onStatusTrouble: (e) => troubles.push(e?.kind) }), 10_000);
    assert.equal(job.status, 'complete', 'the wait did not end with the outage');
    assert.ok(clock.now() - t0 >= 900_000);
    assert.ok(troubles.length >= 2 && troubles.slice(0, -1).every((k) => k === 'server'), `told of each failed check: ${troubles.join(', ')}`);
    assert.equal(troubles.at(-1), undefined, 'and told when checks work again');
  });

  it('polls at background priority and never beyond the get-job budget', async () => {
    const { gateway, client, clock } = makeFixture({ rateLimits: { getJob: 3 } });
    const polls: number[] = [];
    const order: string[] = [];
    gateway.onLogin(() => clock.now());
    gateway.on('GET', '/dap/job/ju', () => {
      polls.push(clock.now());
      order.push('user');
      return { status: 200, body: { id: 'ju', status: 'running' } };
    });
    for (let i = 0; i < 4; i++) {
      gateway.on('GET', `/dap/job/j${i}`, (_r, n) => {
        polls.push(clock.now());
        order.push(`j${i}`);
        return { status: 200, body: n >= 12 ? { id: `j${i}`, status: 'complete', objects: [] } : { id: `j${i}`, status: 'running' } };
      });
    }
    const waits = Promise.all([0, 1, 2, 3].map((i) => client.waitForJob(`j${i}`)));
    // a user call that arrives while the pollers have used up the budget goes first
    await clock.advance(1_000);
    const user = client.getJob('ju');
    await clock.run(Promise.all([waits, user]));
    const sorted = [...polls].sort((a, b) => a - b);
    for (let i = 0; i + 3 < sorted.length; i++) assert.ok(sorted[i + 3] - sorted[i] >= 60_000, 'at most 3 polls in any minute');
    assert.deepEqual(order.slice(0, 3).sort(), ['j0', 'j1', 'j2']);
    assert.equal(order[3], 'user', 'the user call went ahead of the background poll that waited longer');
  });
});
