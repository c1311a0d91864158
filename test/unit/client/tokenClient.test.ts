import * as assert from 'node:assert/strict';
import { isDqError } from '../../../src/client/errors';
import { jwtExpiryMs } from '../../../src/core/jwtCodec';
import { fakeJwt } from '../../support/mockGateway';
import { atOnce, CLIENT_ID, CLIENT_SECRET, makeFixture } from './clientFixture';

const TABLES = '/dap/query/canvas/table';
const LOGIN = '/ids/auth/login';

describe('tokens', () => {
  it('logs in with Basic credentials and the client-credentials grant, then sends Bearer and a User-Agent', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.onLogin(() => clock.now()).on('GET', TABLES, () => ({ status: 200, body: { tables: ['accounts'] } }));
    assert.deepEqual(await client.listTables('canvas'), ['accounts']);
    const [login] = gateway.seen('POST', '/ids/auth/login');
    assert.equal(login.headers.authorization, `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`);
    assert.equal(login.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(login.body, 'grant_type=client_credentials');
    const [call] = gateway.seen('GET', TABLES);
    assert.match(call.headers.authorization, /^Bearer eyJ/);
    assert.equal(call.headers['x-svcauth'], undefined);
    assert.match(call.headers['user-agent'], /^data-query-explorer\/\d+\.\d+\.\d+/);
  });

  it('many concurrent calls share one login', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.onLogin(() => clock.now()).on('GET', '/dap/query/canvas/table/t/schema', () => ({ status: 200, body: { version: 1, schema: {} } }));
    await Promise.all(Array.from({ length: 20 }, () => client.getSchema('canvas', 't')));
    assert.equal(gateway.logins(), 1);
  });

  it('refreshes ahead of the JWT exp, not after, and reuses the token before that', async () => {
    const { gateway, client, clock } = makeFixture({ tokenRefreshMarginMs: 60_000 });
    gateway.onLogin(() => clock.now(), 3600).on('GET', TABLES, () => ({ status: 200, body: { tables: [] } }));
    await client.listTables('canvas');
    await clock.advance(3600_000 - 61_000); // 61 s before exp
    await clock.run(client.listTables('canvas'));
    assert.equal(gateway.logins(), 1, 'still valid beyond the margin');
    await clock.advance(2_000); // 59 s before exp: inside the margin
    await clock.run(client.listTables('canvas'));
    assert.equal(gateway.logins(), 2);
    const bearer = gateway.seen('GET', TABLES).map((r) => r.headers.authorization);
    assert.equal(bearer[0], bearer[1]);
    assert.notEqual(bearer[1], bearer[2]);
  });

  it('uses expires_in when the token carries no exp', async () => {
    const { gateway, client, clock } = makeFixture({ tokenRefreshMarginMs: 10_000 });
    gateway
      .on('POST', '/ids/auth/login', () => ({ status: 200, body: { access_token: 'opaque-token', expires_in: 120 } }))
      .on('GET', TABLES, () => ({ status: 200, body: { tables: [] } }));
    await client.listTables('canvas');
    await clock.advance(105_000);
    await client.listTables('canvas');
    assert.equal(gateway.logins(), 1);
    await clock.advance(10_000);
    await clock.run(client.listTables('canvas'));
    assert.equal(gateway.logins(), 2);
  });

  it('a 401 on a data call forces exactly one refresh and one retry', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.onLogin(() => clock.now()).on('GET', TABLES, (_r, n) => (n === 1 ? { status: 401, body: { error: { message: 'expired' } } } : { status: 200, body: { tables: ['a'] } }));
    assert.deepEqual(await clock.run(client.listTables('canvas')), ['a']);
    assert.equal(gateway.logins(), 2);
    assert.equal(gateway.seen('GET', TABLES).length, 2);
  });

  it('before any token has been accepted, a 401 for the token fetched after the refresh fails at once with auth and says what to check', async () => {
    const { gateway, client, clock } = makeFixture({ maxRetries: 2 });
    gateway.onLogin(() => clock.now()).on('GET', TABLES, () => ({ status: 401, body: { error: { message: 'nope', uuid: 'u-401' } } }));
    const started = clock.now();
    const err = await clock.run(client.listTables('canvas')).catch((e: unknown) => e);
    assert.ok(isDqError(err));
    assert.equal(err.kind, 'auth');
    assert.equal(err.status, 401);
    assert.equal(err.uuid, 'u-401');
    assert.match(err.hint ?? '', /did not accept the token it had just issued.*client ID and secret/);
    assert.equal(gateway.logins(), 2, 'one forced refresh only');
    const calls = gateway.seen('GET', TABLES);
    assert.equal(calls.length, 2, 'the first try and the one after the refresh, no retries');
    assert.notEqual(calls[0].headers.authorization, calls[1].headers.authorization, 'the second try used the new token');
    assert.equal(clock.now(), started, 'no backoff before failing');
  });

  it('once a token has been accepted, 401s after the refresh are retried with the same token, then fail with auth', async () => {
    const { gateway, client, clock } = makeFixture({ maxRetries: 2 });
    gateway.onLogin(() => clock.now()).on('GET', TABLES, (_r, n) => (n === 1 ? { status: 200, body: { tables: ['a'] } } : { status: 401, body: { error: { message: 'nope', uuid: 'u-401' } } }));
    assert.deepEqual(await client.listTables('canvas'), ['a']);
    const err = await clock.run(client.listTables('canvas')).catch((e: unknown) => e);
    assert.ok(isDqError(err));
    assert.equal(err.kind, 'auth');
    assert.equal(err.status, 401);
    assert.equal(gateway.logins(), 2, 'one forced refresh only');
    const calls = gateway.seen('GET', TABLES).slice(1);
    assert.equal(calls.length, 4, 'the first try, the one after the refresh, and maxRetries more');
    assert.equal(new Set(calls.slice(1).map((c) => c.headers.authorization)).size, 1);
  });

  it('once a token has been accepted, a gateway refusing the new token too does not fail the call', async () => {
    const { gateway, client, clock } = makeFixture();
    const refusals = new Set([2, 3]);
    gateway.onLogin(() => clock.now()).on('GET', TABLES, (_r, n) => (refusals.has(n) ? { status: 401, body: {} } : { status: 200, body: { tables: ['a'] } }));
    assert.deepEqual(await client.listTables('canvas'), ['a']);
    assert.deepEqual(await clock.run(client.listTables('canvas')), ['a']);
    assert.equal(gateway.logins(), 2);
    assert.equal(gateway.seen('GET', TABLES).length, 4);
  });

  it('a gateway refusing a valid token now and then does not fail the call', async () => {
    const { gateway, client, clock } = makeFixture();
    const refusals = new Set([1, 3]);
    gateway.onLogin(() => clock.now()).on('GET', TABLES, (_r, n) => (refusals.has(n) ? { status: 401, body: {} } : { status: 200, body: { tables: ['a'] } }));
    assert.deepEqual(await clock.run(client.listTables('canvas')), ['a']);
    assert.deepEqual(await clock.run(client.listTables('canvas')), ['a']);
    assert.equal(gateway.logins(), 3, 'each refusal got its own refresh');
    assert.equal(gateway.seen('GET', TABLES).length, 4);
  });

  for (const status of [400, 401, 403]) {
    it(`login ${status} is an auth error naming the credentials, without echoing them`, async () => {
      const { gateway, client, clock, logger } = makeFixture();
      gateway.on('POST', '/ids/auth/login', () => ({ status, body: { error: { type: 'Unauthorized', message: 'bad client', uuid: 'u-login' } } }));
      const err = await clock.run(client.testConnection()).catch((e: unknown) => e);
      assert.ok(isDqError(err));
      assert.equal(err.kind, 'auth');
      assert.equal(err.uuid, 'u-login');
      assert.match(err.hint ?? '', /client ID and secret/);
      const everything = `${err.describe()}\n${logger.lines.join('\n')}`;
      assert.ok(!everything.includes(CLIENT_SECRET));
      assert.ok(!everything.includes(Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')));
      assert.equal(gateway.logins(), 1, 'credential errors are not retried');
    });
  }

  it('testConnection always fetches a new token', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.onLogin(() => clock.now());
    await client.testConnection();
    await client.testConnection();
    assert.equal(gateway.logins(), 2);
  });

  it('a login answer without access_token is an invalidResponse that does not echo the body', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.on('POST', '/ids/auth/login', () => ({ status: 200, body: { token: 'eyJsecretish.abcdefgh.ijklmnop' } }));
    const err = await clock.run(client.testConnection()).catch((e: unknown) => e);
    assert.ok(isDqError(err));
    assert.equal(err.kind, 'invalidResponse');
    assert.ok(!err.describe().includes('eyJsecretish'));
  });

  it('never writes a token into the log', async () => {
    const { gateway, client, clock, logger } = makeFixture();
    gateway.onLogin(() => clock.now()).on('GET', TABLES, (_r, n) => (n === 1 ? { status: 401, body: {} } : { status: 200, body: { tables: [] } }));
    await clock.run(client.listTables('canvas'));
    const tokens = gateway.seen('GET', TABLES).map((r) => r.headers.authorization.slice('Bearer '.length));
    assert.ok(logger.lines.length > 0);
    for (const token of tokens) assert.ok(!logger.lines.join('\n').includes(token));
  });

  it('reads exp from a JWT payload and ignores tokens that are not JWTs', () => {
    assert.equal(jwtExpiryMs(fakeJwt({ exp: 1_800_000_000 })), 1_800_000_000_000);
    assert.equal(jwtExpiryMs('not-a-jwt'), undefined);
    assert.equal(jwtExpiryMs('a.!!!.c'), undefined);
  });

  it('a sign-in answered 429 waits its Retry-After, and the next sign-in respects that pause too', async () => {
    const { gateway, client, clock } = makeFixture({ maxRetries: 0 });
    gateway.on('POST', LOGIN, () => ({ status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '20' } }));
    const t0 = clock.now();
    const first = await clock.run(client.testConnection()).catch((e: unknown) => e);
    assert.ok(isDqError(first) && first.kind === 'rateLimited', String(first));
    gateway.onLogin(() => clock.now());
    let signedInAt: number | undefined;
    await clock.run(client.testConnection().then(() => (signedInAt = clock.now())));
    assert.equal(gateway.logins(), 2);
    assert.equal(signedInAt, t0 + 20_000, 'the second sign-in waited out the pause');
  });

  it('a sign-in told to wait beyond the longest wait fails at once as rateLimited, and so do sign-ins until then, unsent', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.on('POST', LOGIN, () => ({ status: 429, body: '', headers: { 'retry-after': '86400' } }));
    const t0 = clock.now();
    const err = await clock.run(client.testConnection()).catch((e: unknown) => e);
    assert.ok(isDqError(err) && err.kind === 'rateLimited', String(err));
    assert.match(err.hint ?? '', /Try again after 2026-11-21T08:00:00Z/);
    assert.equal(clock.now(), t0);
    assert.equal(gateway.logins(), 1);

    await clock.advance(60_000);
    const again = await atOnce(client.testConnection()).catch((e: unknown) => e);
    assert.ok(isDqError(again) && again.kind === 'rateLimited', String(again));
    assert.match(again.message, /sign-in to wait until 2026-11-21T08:00:00Z .*not sent/);
    const data = await atOnce(client.listTables('canvas')).catch((e: unknown) => e);
    assert.ok(isDqError(data) && data.kind === 'rateLimited', String(data));
    assert.equal(gateway.logins(), 1, 'no sign-in was sent during the pause');
    assert.equal(client.budgets().find((b) => b.operation === 'listTables')?.remaining, 5, 'the listing used none of its budget');
  });

  it('calls whose sign-in fails use none of their operation\'s budget: once the credentials work, the next call goes at once', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.on('POST', LOGIN, () => ({ status: 401, body: { error: { type: 'Unauthorized', message: 'bad client' } } }));
    gateway.on('GET', TABLES, () => ({ status: 200, body: { tables: ['a'] } }));
    for (let i = 0; i < 5; i++) {
      const err = await clock.run(client.listTables('canvas')).catch((e: unknown) => e);
      assert.ok(isDqError(err) && err.kind === 'auth', String(err));
    }
    assert.deepEqual(client.budgets().find((b) => b.operation === 'listTables'), { operation: 'listTables', limit: 5, remaining: 5, resetInMs: 0, pausedForMs: 0 });
    gateway.onLogin(() => clock.now()); // the credentials are fixed
    const queued: unknown[] = [];
    const t0 = clock.now();
    assert.deepEqual(await clock.run(client.listTables('canvas', { onQueued: (w) => queued.push(w) })), ['a']);
    assert.deepEqual(queued, [], 'not held back by calls that never reached the service');
    assert.equal(clock.now(), t0);
  });

  it('a call cancelled while signing in gives its rate slot to the next call', async () => {
    const { gateway, client, clock } = makeFixture({ rateLimits: { listTables: 1 } });
    gateway.on('POST', LOGIN, (_r, n) => (n === 1 ? { status: 503, body: '' } : { status: 200, body: { access_token: fakeJwt({ exp: Math.floor(clock.now() / 1000) + 3600 }) } }));
    gateway.on('GET', TABLES, () => ({ status: 200, body: { tables: ['a'] } }));
    const controller = new AbortController();
    const leaving = client.listTables('canvas', { signal: controller.signal });
    await clock.advance(0);
    assert.equal(gateway.logins(), 1, 'the sign-in is backing off after a 503');
    controller.abort();
    await assert.rejects(leaving, (e: unknown) => isDqError(e) && e.kind === 'cancelled');
    const queued: unknown[] = [];
    const t0 = clock.now();
    assert.deepEqual(await clock.run(client.listTables('canvas', { onQueued: (w) => queued.push(w) })), ['a']);
    assert.deepEqual(queued, [], 'the cancelled call held no slot');
    assert.equal(clock.now(), t0, 'no minute of waiting');
    assert.equal(gateway.seen('GET', TABLES).length, 1);
  });

  it('a caller may stop waiting for a sign-in that another caller still waits for', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.on('POST', LOGIN, (_r, n) => (n === 1 ? { status: 503, body: '' } : { status: 200, body: { access_token: fakeJwt({ exp: Math.floor(clock.now() / 1000) + 3600 }) } }));
    gateway.on('GET', TABLES, () => ({ status: 200, body: { tables: ['a'] } }));
    const patient = client.listTables('canvas', { signal: new AbortController().signal });
    const impatient = new AbortController();
    const leaving = client.listTables('canvas', { signal: impatient.signal });
    await clock.advance(0);
    impatient.abort();
    await assert.rejects(leaving, (e: unknown) => isDqError(e) && e.kind === 'cancelled');
    assert.deepEqual(await clock.run(patient), ['a']);
    assert.equal(gateway.logins(), 2);
  });

  it('a sign-in nobody waits for any more stops, backoff included', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.on('POST', LOGIN, () => ({ status: 503, body: '' }));
    const controller = new AbortController();
    const call = client.listTables('canvas', { signal: controller.signal });
    await clock.advance(0);
    assert.equal(gateway.logins(), 1);
    assert.ok(clock.pending > 0, 'the sign-in is backing off');
    controller.abort();
    await assert.rejects(call, (e: unknown) => isDqError(e) && e.kind === 'cancelled');
    await clock.advance(0);
    assert.equal(clock.pending, 0, 'no sleep is left behind');
    await clock.advance(10 * 60_000);
    assert.equal(gateway.logins(), 1, 'no further sign-in attempts');
  });
});
