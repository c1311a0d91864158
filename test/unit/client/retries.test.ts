import * as assert from 'node:assert/strict';
import { isDqError } from '../../../src/client/errors';
import { backoffDelayMs, parseRetryAfter, unnamed429WaitMs } from '../../../src/client/retryPolicy';
import { atOnce, makeFixture } from './clientFixture';

const SCHEMA = '/dap/query/canvas/table/accounts/schema';
const CREATE = '/dap/query/canvas/table/accounts/data';
const TABLES = '/dap/query/canvas/table';
const schemaOk = { status: 200, body: { version: 2, schema: { type: 'object' } } };

describe('retries', () => {
  it('backoff ceilings grow exponentially up to the cap, with full jitter inside [0, ceiling)', () => {
    const policy = { maxRetries: 10, baseMs: 500, maxMs: 30_000, maxWaitMs: 120_000 };
    const ceilings = [0, 1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelayMs(n, { ...policy, random: () => 0.999999 }));
    assert.deepEqual(ceilings, [499, 999, 1999, 3999, 7999, 15999, 29999, 29999]);
    for (let n = 0; n < 8; n++) {
      assert.equal(backoffDelayMs(n, { ...policy, random: () => 0 }), 0);
      const half = backoffDelayMs(n, { ...policy, random: () => 0.5 });
      assert.ok(half >= 0 && half < ceilings[n] + 1);
    }
  });

  it('retries 502, 503, 504 and 500 with growing waits, then succeeds', async () => {
    const statuses = [502, 503, 504, 500];
    const { gateway, client, clock } = makeFixture({ random: () => 0.999 });
    gateway.onLogin(() => clock.now()).on('GET', SCHEMA, (_r, n) => (n <= statuses.length ? { status: statuses[n - 1], body: n === 3 ? { error: { message: 'timeout' } } : '<html>bad gateway</html>' } : schemaOk));
    const schema = await clock.run(client.getSchema('canvas', 'accounts'));
    assert.equal(schema.version, 2);
    assert.equal(gateway.seen('GET', SCHEMA).length, 5);
    const waits = clock.sleeps.filter((ms) => ms > 0);
    assert.equal(waits.length, 4);
    for (let i = 1; i < waits.length; i++) assert.ok(waits[i] > waits[i - 1], `waits grow: ${waits.join(', ')}`);
  });

  it('stops after maxRetries and reports the last failure', async () => {
    const { gateway, client, clock } = makeFixture({ maxRetries: 2 });
    gateway.onLogin(() => clock.now()).on('GET', SCHEMA, () => ({ status: 504, body: { error: { message: 'Endpoint request timed out' } } }));
    const err = await clock.run(client.getSchema('canvas', 'accounts')).catch((e: unknown) => e);
    assert.ok(isDqError(err));
    assert.equal(err.kind, 'server');
    assert.equal(err.status, 504);
    assert.match(err.describe(), /timed out/);
    assert.equal(gateway.seen('GET', SCHEMA).length, 3);
  });

  it('answers 501, 505 and 511 at once, for sign-in and data calls alike: trying again cannot help', async () => {
    for (const status of [501, 505, 511]) {
      const { gateway, client, clock } = makeFixture();
      gateway.onLogin(() => clock.now()).on('GET', SCHEMA, () => ({ status, body: '' }));
      const err = await clock.run(client.getSchema('canvas', 'accounts')).catch((e: unknown) => e);
      assert.ok(isDqError(err) && err.status === status, String(err));
      assert.equal(gateway.seen('GET', SCHEMA).length, 1, `${status} is not retried`);
      assert.doesNotMatch(err.describe(), /try again later/i, 'no advice to wait for it');
      assert.match(err.describe(), status === 511 ? /sign in to the network/ : /base URL points at the Data Query Service/);

      const signIn = makeFixture();
      signIn.gateway.on('POST', '/ids/auth/login', () => ({ status, body: '' }));
      const refused = await signIn.clock.run(signIn.client.getSchema('canvas', 'accounts')).catch((e: unknown) => e);
      assert.ok(isDqError(refused) && refused.status === status, String(refused));
      assert.equal(signIn.gateway.logins(), 1, `sign-in ${status} is not retried`);
    }
  });

  it('retries a dropped connection on an idempotent call', async () => {
    const { gateway, client, clock, logger } = makeFixture();
    gateway.onLogin(() => clock.now()).on('GET', SCHEMA, (_r, n) => (n === 1 ? 'drop' : schemaOk));
    await clock.run(client.getSchema('canvas', 'accounts'));
    assert.equal(gateway.seen('GET', SCHEMA).length, 2);
    assert.ok(logger.lines.some((l) => /^warn getSchema: .*; trying again in [\d.]+ s \(1\/\d\)/.test(l)), logger.lines.join('\n'));
  });

  it('a dropped connection that never recovers ends as a network error', async () => {
    const { gateway, client, clock } = makeFixture({ maxRetries: 1 });
    gateway.onLogin(() => clock.now()).on('GET', SCHEMA, () => 'drop');
    const err = await clock.run(client.getSchema('canvas', 'accounts')).catch((e: unknown) => e);
    assert.ok(isDqError(err) && err.kind === 'network', String(err));
    assert.equal(gateway.seen('GET', SCHEMA).length, 2);
  });

  it('retries createJob on 5xx (identical requests return the same job) but not on 400 or 404', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.onLogin(() => clock.now()).on('POST', CREATE, (_r, n) => (n === 1 ? { status: 503, body: '' } : { status: 202, body: { id: 'j1', status: 'waiting' } }));
    const job = await clock.run(client.createJob('canvas', 'accounts', { format: 'jsonl' }));
    assert.equal(job.id, 'j1');
    assert.equal(gateway.seen('POST', CREATE).length, 2);
    assert.equal(gateway.seen('POST', CREATE)[1].body, gateway.seen('POST', CREATE)[0].body, 'the retry is the identical request');

    for (const status of [400, 404]) {
      const f = makeFixture();
      f.gateway.onLogin(() => f.clock.now()).on('POST', CREATE, () => ({ status, body: { error: { message: 'no' } } }));
      await assert.rejects(f.clock.run(f.client.createJob('canvas', 'accounts', { format: 'csv' })));
      assert.equal(f.gateway.seen('POST', CREATE).length, 1, `no retry on ${status}`);
    }
  });

  it('a 429 pauses that operation for Retry-After seconds, then retries; other operations go on', async () => {
    const { gateway, client, clock, logger } = makeFixture();
    gateway
      .onLogin(() => clock.now())
      .on('GET', '/dap/query/canvas/table', (_r, n) => (n === 1 ? { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '7' } } : { status: 200, body: { tables: ['x'] } }))
      .on('GET', SCHEMA, () => schemaOk);
    const t0 = clock.now();
    let listedAt: number | undefined;
    const listing = client.listTables('canvas').then((t) => ((listedAt = clock.now()), t));
    await clock.advance(0);
    await clock.advance(0);
    const budget = client.budgets().find((b) => b.operation === 'listTables');
    assert.equal(budget?.pausedForMs, 7_000);
    await client.getSchema('canvas', 'accounts'); // not held back
    assert.equal(clock.now(), t0);
    await clock.run(listing);
    assert.equal(listedAt, t0 + 7_000);
    assert.ok(logger.lines.some((l) => /^warn .*429/.test(l)));
  });

  it('a 429 with an HTTP-date Retry-After waits until that date', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.onLogin(() => clock.now()).on('GET', SCHEMA, (_r, n) => (n === 1 ? { status: 429, body: '', headers: { 'retry-after': new Date(clock.now() + 20_000).toUTCString() } } : schemaOk));
    const t0 = clock.now();
    await clock.run(client.getSchema('canvas', 'accounts'));
    const [, second] = gateway.seen('GET', SCHEMA);
    assert.ok(second);
    assert.equal(clock.now() - t0, 20_000);
  });

  it('429s without Retry-After wait at least the default, longer with each retry, up to the longest wait', async () => {
    const { gateway, client, clock } = makeFixture({ defaultRetryAfterMs: 30_000, maxRetries: 4 });
    const arrivals: number[] = [];
    gateway.onLogin(() => clock.now()).on('GET', SCHEMA, (_r, n) => {
      arrivals.push(clock.now());
      return n <= 4 ? { status: 429, body: '' } : schemaOk;
    });
    await clock.run(client.getSchema('canvas', 'accounts'));
    const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]);
    // random 0.5: halfway between 1 and 2 times the default, then 2 to 4 times, capped at 2 minutes
    assert.deepEqual(gaps, [45_000, 90_000, 90_000, 90_000]);
    assert.ok(gaps.every((g) => g >= 30_000 && g <= 120_000), gaps.join(', '));
  });

  it('clients sharing credentials that get a 429 without Retry-After do not all come back at the same moment', async () => {
    const firstRetryAfter = async (random: number): Promise<number> => {
      const { gateway, client, clock } = makeFixture({ defaultRetryAfterMs: 30_000, random: () => random });
      gateway.onLogin(() => clock.now()).on('GET', SCHEMA, (_r, n) => (n === 1 ? { status: 429, body: '' } : schemaOk));
      const t0 = clock.now();
      await clock.run(client.getSchema('canvas', 'accounts'));
      return clock.now() - t0;
    };
    const waits = [await firstRetryAfter(0), await firstRetryAfter(0.4), await firstRetryAfter(0.99)];
    assert.deepEqual(waits, [30_000, 42_000, 59_700], 'spread between the default and twice it');
  });

  it('the wait for a 429 without Retry-After never drops below the default, even with a longest wait below twice it', () => {
    for (const random of [0, 0.3, 0.999]) {
      for (let retry = 0; retry < 8; retry++) {
        const wait = unnamed429WaitMs(retry, 30_000, { maxWaitMs: 120_000, random: () => random });
        assert.ok(wait >= 30_000 && wait <= 120_000, `retry ${retry}: ${wait}`);
        assert.equal(unnamed429WaitMs(retry, 30_000, { maxWaitMs: 40_000, random: () => random }) >= 30_000, true);
      }
    }
  });

  it('repeated 429s end as rateLimited with a hint to wait or raise limits', async () => {
    const { gateway, client, clock } = makeFixture({ maxRetries: 2 });
    gateway.onLogin(() => clock.now()).on('GET', SCHEMA, () => ({ status: 429, body: { error: { message: 'Too many', uuid: 'u-429' } }, headers: { 'retry-after': '1' } }));
    const err = await clock.run(client.getSchema('canvas', 'accounts')).catch((e: unknown) => e);
    assert.ok(isDqError(err));
    assert.equal(err.kind, 'rateLimited');
    assert.equal(err.uuid, 'u-429');
    assert.match(err.hint ?? '', /wait/);
    assert.match(err.hint ?? '', /higher limits/);
    assert.equal(gateway.seen('GET', SCHEMA).length, 3);
  });

  it('parses Retry-After seconds and dates', () => {
    const now = Date.UTC(2026, 0, 1);
    assert.equal(parseRetryAfter('12', now), 12_000);
    assert.equal(parseRetryAfter(new Date(now + 90_000).toUTCString(), now), 90_000);
    assert.equal(parseRetryAfter(new Date(now - 5_000).toUTCString(), now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });

  it('a cancelled call stops waiting between retries', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.onLogin(() => clock.now()).on('GET', SCHEMA, () => ({ status: 503, body: '' }));
    const controller = new AbortController();
    const call = client.getSchema('canvas', 'accounts', { signal: controller.signal });
    await clock.advance(0);
    await clock.advance(0);
    controller.abort();
    await assert.rejects(call, (e: unknown) => isDqError(e) && e.kind === 'cancelled');
    assert.equal(gateway.seen('GET', SCHEMA).length, 1);
  });

  it('honours Retry-After on a 503 too, instead of its own backoff', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.onLogin(() => clock.now()).on('GET', SCHEMA, (_r, n) => (n === 1 ? { status: 503, body: '', headers: { 'retry-after': '9' } } : schemaOk));
    const t0 = clock.now();
    await clock.run(client.getSchema('canvas', 'accounts'));
    assert.equal(gateway.seen('GET', SCHEMA).length, 2);
    assert.equal(clock.now() - t0, 9_000);
  });

  it('a Retry-After beyond the longest wait fails at once as rateLimited, naming when to try again', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.onLogin(() => clock.now()).on('GET', TABLES, () => ({ status: 429, body: { error: { message: 'quota', uuid: 'u-day' } }, headers: { 'retry-after': '86400' } }));
    const t0 = clock.now();
    const err = await clock.run(client.listTables('canvas')).catch((e: unknown) => e);
    assert.ok(isDqError(err), String(err));
    assert.equal(err.kind, 'rateLimited');
    assert.equal(err.uuid, 'u-day');
    assert.match(err.message, /86400 s \(until 2026-11-21T08:00:00Z\)/);
    assert.match(err.hint ?? '', /Try again after 2026-11-21T08:00:00Z/);
    assert.equal(clock.now(), t0, 'no time was spent waiting');
    assert.equal(gateway.seen('GET', TABLES).length, 1);
    const paused = client.budgets().find((b) => b.operation === 'listTables')?.pausedForMs;
    assert.equal(paused, 86_400_000, 'the budget shows the pause the service asked for');
  });

  it('a Retry-After too large for any date fails as rateLimited with the usual message, not a date error', async () => {
    for (const retryAfter of ['99999999999999999999', '9'.repeat(400), 'Fri, 31 Dec 9999 23:59:59 GMT']) {
      const { gateway, client, clock } = makeFixture();
      gateway.onLogin(() => clock.now()).on('GET', TABLES, () => ({ status: 429, body: { error: { message: 'quota' } }, headers: { 'retry-after': retryAfter } }));
      const err = await clock.run(client.listTables('canvas')).catch((e: unknown) => e);
      assert.ok(isDqError(err), String(err));
      assert.equal(err.kind, 'rateLimited', err.describe());
      assert.match(err.message, /The service asked listTables to wait at least 604800 s \(until 2026-11-27T08:00:00Z\), longer than the 120 s this client waits/);
      assert.match(err.hint ?? '', /Try again after 2026-11-27T08:00:00Z/);
      assert.equal(gateway.seen('GET', TABLES).length, 1);
      const later = await atOnce(client.listTables('canvas')).catch((e: unknown) => e);
      assert.ok(isDqError(later) && later.kind === 'rateLimited', String(later));
      assert.match(later.message, /until 2026-11-27T08:00:00Z .*not sent/);
    }
    assert.equal(parseRetryAfter('1e3', Date.UTC(2026, 0, 1)), undefined);
  });

  it('after a 429 asking for more than the longest wait, later calls of that operation fail at once without being sent until little enough is left', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway
      .onLogin(() => clock.now())
      .on('POST', CREATE, (_r, n) => (n === 1 ? { status: 429, body: { error: { type: 'RateLimitExceeded', message: 'slow down' } }, headers: { 'retry-after': '600' } } : { status: 202, body: { id: 'j1', status: 'waiting' } }))
      .on('GET', SCHEMA, () => schemaOk);
    const t0 = clock.now();
    const first = await clock.run(client.createJob('canvas', 'accounts', { format: 'jsonl' })).catch((e: unknown) => e);
    assert.ok(isDqError(first) && first.kind === 'rateLimited', String(first));
    assert.match(first.message, /wait 600 s \(until 2026-11-20T08:10:00Z\)/);
    assert.equal(client.budgets().find((b) => b.operation === 'createJob')?.pausedForMs, 600_000, 'the budget shows the pause');

    await clock.advance(5_000);
    const second = await atOnce(client.createJob('canvas', 'accounts', { format: 'jsonl' })).catch((e: unknown) => e);
    assert.ok(isDqError(second) && second.kind === 'rateLimited', String(second));
    assert.match(second.message, /until 2026-11-20T08:10:00Z \(595 s from now\).*not sent/);
    assert.match(second.hint ?? '', /Try again after 2026-11-20T08:10:00Z/);
    assert.equal(clock.now(), t0 + 5_000, 'refused without waiting');
    assert.equal(gateway.seen('POST', CREATE).length, 1, 'the second call never reached the service');
    assert.equal(client.budgets().find((b) => b.operation === 'createJob')?.remaining, 4, 'and used none of the budget');
    assert.equal((await client.getSchema('canvas', 'accounts')).version, 2, 'other operations go on');

    await clock.advance(600_000 - 5_000 - 90_000); // 90 s of the pause left: short enough to wait
    const queued: unknown[] = [];
    const job = await clock.run(client.createJob('canvas', 'accounts', { format: 'jsonl' }, { onQueued: (w) => queued.push(w) }));
    assert.equal(job.id, 'j1');
    assert.deepEqual(queued, [{ operation: 'createJob', waitMs: 90_000, reason: 'paused' }]);
    assert.equal(clock.now(), t0 + 600_000, 'sent when the pause ended');
    assert.equal(gateway.seen('POST', CREATE).length, 2);
  });

  it('the longest wait is configurable', async () => {
    const { gateway, client, clock } = makeFixture({ maxRetryWaitMs: 5_000 });
    gateway.onLogin(() => clock.now()).on('GET', SCHEMA, () => ({ status: 429, body: '', headers: { 'retry-after': '6' } }));
    const err = await clock.run(client.getSchema('canvas', 'accounts')).catch((e: unknown) => e);
    assert.ok(isDqError(err) && err.kind === 'rateLimited', String(err));
    assert.match(err.message, /wait 6 s/);
    assert.equal(gateway.seen('GET', SCHEMA).length, 1);
  });

  it('tells a call held back by its own limit, once, how long it will likely wait', async () => {
    const { gateway, client, clock } = makeFixture({ rateLimits: { listTables: 2 } });
    gateway.onLogin(() => clock.now()).on('GET', TABLES, () => ({ status: 200, body: { tables: [] } }));
    const queued: unknown[] = [];
    const onQueued = (w: unknown): number => queued.push(w);
    await client.listTables('canvas', { onQueued });
    await clock.advance(20_000);
    await client.listTables('canvas', { onQueued });
    assert.deepEqual(queued, [], 'calls within the limit are not queued');
    const third = client.listTables('canvas', { onQueued });
    const fourth = client.listTables('canvas', { onQueued });
    await clock.advance(0);
    assert.deepEqual(queued, [
      { operation: 'listTables', waitMs: 40_000, reason: 'limit' },
      { operation: 'listTables', waitMs: 60_000, reason: 'limit' },
    ]);
    await clock.run(Promise.all([third, fourth]));
    assert.equal(queued.length, 2);
  });

  it('tells a call held back by a 429 pause that it is paused, and for how long', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.onLogin(() => clock.now()).on('GET', SCHEMA, (_r, n) => (n === 1 ? { status: 429, body: '', headers: { 'retry-after': '23' } } : schemaOk));
    const queued: unknown[] = [];
    await clock.run(client.getSchema('canvas', 'accounts', { onQueued: (w) => queued.push(w) }));
    assert.deepEqual(queued, [{ operation: 'getSchema', waitMs: 23_000, reason: 'paused' }]);
  });

  it('runJob passes onQueued to the job request', async () => {
    const { gateway, client, clock } = makeFixture({ rateLimits: { createJob: 1 } });
    gateway.onLogin(() => clock.now()).on('POST', CREATE, () => ({ status: 200, body: { id: 'j', status: 'complete', objects: [] } }));
    await client.runJob('canvas', 'accounts', { format: 'csv' });
    const queued: unknown[] = [];
    await clock.run(client.runJob('canvas', 'accounts', { format: 'csv' }, { onQueued: (w) => queued.push(w) }));
    assert.deepEqual(queued, [{ operation: 'createJob', waitMs: 60_000, reason: 'limit' }]);
  });
});
