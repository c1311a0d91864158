import * as assert from 'node:assert/strict';
import { DEFAULT_RATE_LIMITS, type Operation } from '../../../src/core/contract';
import { isDqError } from '../../../src/client/errors';
import { OperationLimiter } from '../../../src/client/operationLimiter';
import { FakeClock, flushMicrotasks } from '../../support/fakeClock';
import { busiestWindow, seededRandom } from '../../support/rateWindows';
import { atOnce, CLIENT_ID, CLIENT_SECRET, makeFixture } from './clientFixture';

const WINDOW = 60_000;

function limiterWith(clock: FakeClock, limits: Partial<Record<Operation, number>>): OperationLimiter {
  return new OperationLimiter({ limits: { ...DEFAULT_RATE_LIMITS, ...limits }, windowMs: WINDOW, clock });
}

describe('OperationLimiter', () => {
  it('never lets more than N starts into any window over a long randomized run, per operation', async () => {
    const clock = new FakeClock();
    const limiter = limiterWith(clock, { listTables: 5, createJob: 3 });
    const random = seededRandom(42);
    const starts: Record<string, number[]> = { listTables: [], createJob: [] };
    const calls: Promise<void>[] = [];
    for (let step = 0; step < 400; step++) {
      // bursts of arrivals at random moments, well above the limit on average
      const arrivals = Math.floor(random() * 3);
      for (let k = 0; k < arrivals; k++) {
        const op: Operation = random() < 0.5 ? 'listTables' : 'createJob';
        calls.push(limiter.acquire(op, { priority: random() < 0.3 ? 'background' : 'user' }).then(() => {
          starts[op].push(clock.now());
        }));
      }
      await clock.advance(Math.floor(random() * 9_000));
    }
    // let the queues drain
    for (let i = 0; i < 400 && clock.pending > 0; i++) await clock.advance(WINDOW);
    await Promise.all(calls);
    assert.equal(starts.listTables.length + starts.createJob.length, calls.length, 'every call eventually started');
    assert.ok(starts.listTables.length > 50 && starts.createJob.length > 50, 'the run exercised both operations');
    assert.equal(busiestWindow(starts.listTables, WINDOW), 5);
    assert.equal(busiestWindow(starts.createJob, WINDOW), 3);
  });

  it('keeps operations independent: one at its limit does not delay another', async () => {
    const clock = new FakeClock();
    const limiter = limiterWith(clock, { listTables: 2 });
    await limiter.acquire('listTables');
    await limiter.acquire('listTables');
    let thirdStarted = false;
    void limiter.acquire('listTables').then(() => (thirdStarted = true));
    let schemaStarted = false;
    void limiter.acquire('getSchema').then(() => (schemaStarted = true));
    await flushMicrotasks();
    assert.equal(schemaStarted, true);
    assert.equal(thirdStarted, false);
    await clock.advance(WINDOW - 1);
    assert.equal(thirdStarted, false, 'still inside the window of the first start');
    await clock.advance(1);
    assert.equal(thirdStarted, true);
  });

  it('does not leave behind a caller that queues again the moment its start is handed over', async () => {
    const clock = new FakeClock();
    const limiter = limiterWith(clock, { createJob: 1 });
    const starts: number[] = [];
    const oneAfterAnother = async (): Promise<void> => {
      for (let i = 0; i < 3; i++) {
        await limiter.acquire('createJob'); // the next call is made in the turn this one starts
        starts.push(clock.now());
      }
    };
    const done = oneAfterAnother();
    for (let i = 0; i < 3; i++) await clock.advance(WINDOW);
    await done;
    const t0 = starts[0];
    assert.deepEqual(starts, [t0, t0 + WINDOW, t0 + 2 * WINDOW]);
  });

  it('starts user calls before background calls that were waiting longer', async () => {
    const clock = new FakeClock();
    const limiter = limiterWith(clock, { getJob: 1 });
    await limiter.acquire('getJob');
    const order: string[] = [];
    const waits = [
      limiter.acquire('getJob', { priority: 'background' }).then(() => order.push('bg1')),
      limiter.acquire('getJob', { priority: 'background' }).then(() => order.push('bg2')),
      limiter.acquire('getJob', { priority: 'user' }).then(() => order.push('user1')),
      limiter.acquire('getJob', { priority: 'user' }).then(() => order.push('user2')),
    ];
    await clock.run(Promise.all(waits));
    assert.deepEqual(order, ['user1', 'user2', 'bg1', 'bg2']);
  });

  it('cancels a waiting call without using its slot', async () => {
    const clock = new FakeClock();
    const limiter = limiterWith(clock, { createJob: 1 });
    await limiter.acquire('createJob');
    const controller = new AbortController();
    const cancelled = limiter.acquire('createJob', { signal: controller.signal });
    let nextStartedAt: number | undefined;
    const next = limiter.acquire('createJob').then(() => (nextStartedAt = clock.now()));
    controller.abort();
    await assert.rejects(cancelled, (err: unknown) => isDqError(err) && err.kind === 'cancelled');
    const t0 = clock.now();
    await clock.run(next);
    assert.equal(nextStartedAt, t0 + WINDOW, 'the next caller got the slot the cancelled one gave up');
  });

  it('counts a start from when its answer came back, so the next window opens a window after the answer', async () => {
    const clock = new FakeClock();
    const limiter = limiterWith(clock, { createJob: 1 });
    const t0 = clock.now();
    const slot = await limiter.acquire('createJob');
    await clock.advance(5_000); // the call on its way to the server and back
    slot.answered();
    let nextStartedAt: number | undefined;
    const next = limiter.acquire('createJob').then(() => (nextStartedAt = clock.now()));
    await clock.advance(WINDOW - 5_000);
    assert.equal(nextStartedAt, undefined, 'a window after the start is too early: the server counted the call later');
    await clock.run(next);
    assert.equal(nextStartedAt, t0 + 5_000 + WINDOW);
  });

  it('a burst never arrives at the server faster than its window allows, however long the sign-in takes', async () => {
    let clock!: FakeClock;
    const fixture = makeFixture({
      rateLimits: { createJob: 2 },
      credentials: async () => {
        await clock.sleep(5_000); // a slow sign-in holds the first calls after their starts
        return { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET };
      },
    });
    clock = fixture.clock;
    const arrivals: number[] = [];
    fixture.gateway.onLogin(() => clock.now()).on('POST', '/dap/query/canvas/table/accounts/data', () => {
      arrivals.push(clock.now());
      return { status: 200, body: { id: 'j', status: 'complete', objects: [] } };
    });
    await clock.run(Promise.all(Array.from({ length: 6 }, () => fixture.client.createJob('canvas', 'accounts', { format: 'csv' }))));
    assert.equal(arrivals.length, 6);
    assert.equal(busiestWindow(arrivals, WINDOW), 2, 'no window of the server holds more than the limit');
  });

  it('rejects at once when the signal is already aborted', async () => {
    const limiter = limiterWith(new FakeClock(), {});
    await assert.rejects(limiter.acquire('getJob', { signal: AbortSignal.abort() }), (err: unknown) => isDqError(err) && err.kind === 'cancelled');
  });

  it('a pause holds back only its own operation until it ends', async () => {
    const clock = new FakeClock();
    const limiter = limiterWith(clock, {});
    limiter.pause('listTables', 12_000);
    let listedAt: number | undefined;
    const t0 = clock.now();
    const list = limiter.acquire('listTables').then(() => (listedAt = clock.now()));
    let schemaAt: number | undefined;
    void limiter.acquire('getSchema').then(() => (schemaAt = clock.now()));
    await flushMicrotasks();
    assert.equal(schemaAt, t0);
    assert.equal(listedAt, undefined);
    assert.equal(limiter.snapshot().find((b) => b.operation === 'listTables')?.pausedForMs, 12_000);
    await clock.run(list);
    assert.equal(listedAt, t0 + 12_000);
  });

  it('reports the remaining budget and when it resets', async () => {
    const clock = new FakeClock();
    const limiter = limiterWith(clock, { listTables: 2 });
    await limiter.acquire('listTables');
    await clock.advance(10_000);
    await limiter.acquire('listTables');
    const b = limiter.snapshot().find((s) => s.operation === 'listTables');
    assert.deepEqual(b, { operation: 'listTables', limit: 2, remaining: 0, resetInMs: 50_000, pausedForMs: 0 });
    await clock.advance(50_000);
    assert.equal(limiter.snapshot().find((s) => s.operation === 'listTables')?.remaining, 1);
  });

  it('refuses a limit below one', () => {
    assert.throws(() => limiterWith(new FakeClock(), { getJob: 0 }), (err: unknown) => isDqError(err) && err.kind === 'usage');
  });

  it('keeps a pause longer than the longest wait, refusing calls at once until little enough is left', async () => {
    const clock = new FakeClock();
    const limiter = new OperationLimiter({ limits: DEFAULT_RATE_LIMITS, windowMs: WINDOW, maxPauseMs: 120_000, clock });
    const t0 = clock.now();
    limiter.pause('listTables', 86_400_000);
    assert.equal(limiter.snapshot().find((b) => b.operation === 'listTables')?.pausedForMs, 86_400_000);
    await assert.rejects(atOnce(limiter.acquire('listTables')), (err: unknown) => {
      assert.ok(isDqError(err) && err.kind === 'rateLimited', String(err));
      assert.match(err.message, /listTables to wait until 2026-11-21T08:00:00Z \(86400 s from now\).*not sent/);
      assert.match(err.hint ?? '', /Try again after 2026-11-21T08:00:00Z/);
      return true;
    });
    assert.equal(limiter.snapshot().find((b) => b.operation === 'listTables')?.remaining, 5, 'a refused call uses no budget');
    await clock.advance(86_400_000 - 120_000);
    await clock.run(limiter.acquire('listTables'));
    assert.equal(clock.now() - t0, 86_400_000, 'a call made with the longest wait left waits out the rest');
  });

  it('a pause longer than the longest wait refuses the calls already queued for the operation', async () => {
    const clock = new FakeClock();
    const limiter = new OperationLimiter({ limits: { ...DEFAULT_RATE_LIMITS, createJob: 1 }, windowMs: WINDOW, maxPauseMs: 120_000, clock });
    await limiter.acquire('createJob');
    const queued = limiter.acquire('createJob', { priority: 'background' });
    let schemaStarted = false;
    limiter.pause('createJob', 600_000);
    void limiter.acquire('getSchema').then(() => (schemaStarted = true));
    await assert.rejects(atOnce(queued), (err: unknown) => isDqError(err) && err.kind === 'rateLimited' && /not sent/.test(err.message));
    await flushMicrotasks();
    assert.equal(schemaStarted, true, 'other operations go on');
  });

  it('a released start (the call never left) lets the next queued caller go at once, user calls first', async () => {
    const clock = new FakeClock();
    const limiter = limiterWith(clock, { createJob: 1 });
    const slot = await limiter.acquire('createJob');
    const order: string[] = [];
    const background = limiter.acquire('createJob', { priority: 'background' }).then(() => order.push('background'));
    const user = limiter.acquire('createJob', { priority: 'user' }).then(() => order.push('user'));
    await flushMicrotasks();
    slot.release();
    slot.answered(); // too late: a released start stays released
    await clock.advance(0);
    assert.deepEqual(order, ['user']);
    assert.equal(limiter.snapshot().find((b) => b.operation === 'createJob')?.remaining, 0, 'the user call holds the one start');
    await clock.run(Promise.all([background, user]));
    assert.deepEqual(order, ['user', 'background']);
  });

  it('tells each queued caller once when it will likely start, counting those ahead of it', async () => {
    const clock = new FakeClock();
    const limiter = limiterWith(clock, { createJob: 2 });
    await limiter.acquire('createJob');
    await clock.advance(10_000);
    await limiter.acquire('createJob');
    const told: { waitMs: number; reason: string }[][] = [[], [], []];
    const waits = told.map((list) => limiter.acquire('createJob', { onQueued: (w) => list.push(w) }));
    await flushMicrotasks();
    // the window frees at +50 s and +60 s for the first two; the third needs the first of those to leave again
    assert.deepEqual(told, [[{ waitMs: 50_000, reason: 'limit' }], [{ waitMs: 60_000, reason: 'limit' }], [{ waitMs: 110_000, reason: 'limit' }]]);
    await clock.run(Promise.all(waits));
    assert.deepEqual(told.map((l) => l.length), [1, 1, 1]);
  });
});
