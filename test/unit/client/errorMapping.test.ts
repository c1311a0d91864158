import * as assert from 'node:assert/strict';
import { isDqError, type DqError } from '../../../src/client/errors';
import { errorFromNetwork, errorFromResponse } from '../../../src/client/errorMapping';
import { makeFixture } from './clientFixture';

const TABLES = '/dap/query/nowhere/table';
const CREATE = '/dap/query/canvas/table/accounts/data';

/** Makes a listTables/createJob call fail with the given answer and returns the error. */
async function failWith(status: number, body: unknown, call: 'list' | 'create' = 'list', range: { since?: string; until?: string } = { since: '2020-01-01T00:00:00Z' }): Promise<DqError> {
  const { gateway, client, clock } = makeFixture({ maxRetries: 1 });
  gateway
    .onLogin(() => clock.now())
    .on('GET', TABLES, () => ({ status, body }))
    .on('POST', CREATE, () => ({ status, body }));
  const p: Promise<unknown> = call === 'list' ? client.listTables('nowhere') : client.createJob('canvas', 'accounts', { format: 'jsonl', ...range });
  const err = await clock.run(p).catch((e: unknown) => e);
  assert.ok(isDqError(err), `expected a DqError, got ${String(err)}`);
  return err;
}

describe('error mapping (contract section 4)', () => {
  it('404 namespace: notFound with the kind and id, and a hint that names the namespace', async () => {
    const err = await failWith(404, { error: { type: 'NotFound', uuid: 'u-1', message: 'namespace not found', id: 'nowhere', kind: 'namespace' } });
    assert.equal(err.kind, 'notFound');
    assert.equal(err.status, 404);
    assert.equal(err.uuid, 'u-1');
    assert.equal(err.details?.kind, 'namespace');
    assert.equal(err.details?.id, 'nowhere');
    assert.match(err.hint ?? '', /Check the namespace name "nowhere"; the service has no list of namespaces/);
    assert.doesNotMatch(err.hint ?? '', /data prefix/, 'the service named what is missing: the path was right');
    assert.match(err.describe(), /uuid u-1/);
  });

  it('404 table: a hint about the table name', async () => {
    const err = await failWith(404, { error: { type: 'NotFound', uuid: 'u-2', message: 'no such table', id: 'acounts', kind: 'table' } }, 'create');
    assert.equal(err.kind, 'notFound');
    assert.equal(err.details?.kind, 'table');
    assert.match(err.hint ?? '', /table name "acounts"/);
  });

  it('400 validation: the location is shown', async () => {
    const err = await failWith(400, { error: { type: 'ValidationError', uuid: 'u-3', message: 'bad format', location: { line: 1, column: 12, character: 11 } } }, 'create');
    assert.equal(err.kind, 'validation');
    assert.deepEqual(err.details?.location, { line: 1, column: 12, character: 11 });
    assert.match(err.hint ?? '', /line 1, column 12/);
    assert.match(err.message, /bad format/);
  });

  it('400 snapshot required: tells to run a snapshot and the earliest since', async () => {
    const err = await failWith(400, { error: { type: 'SnapshotRequired', uuid: 'u-4', message: 'since too old', since: '2026-11-01T00:00:00Z' } }, 'create');
    assert.equal(err.kind, 'snapshotRequired');
    assert.equal(err.type, 'SnapshotRequired');
    assert.equal(err.details?.since, '2026-11-01T00:00:00Z');
    assert.match(err.hint ?? '', /Run a full snapshot \(omit since\).*earliest allowed.*2026-11-01T00:00:00Z/);
    assert.doesNotMatch(err.hint ?? '', /wait for new data/i);
  });

  const OUT_OF_RANGE = {
    error: {
      type: 'OutOfRange',
      uuid: 'u-5',
      message: 'The requested range has no data: since is after the latest committed change.',
      since: '2026-11-01T00:00:00Z',
      until: '2026-11-20T00:00:00Z',
    },
  };

  it('400 OutOfRange for a since after the newest data: not a snapshot, but wait or use an earlier since', async () => {
    const err = await failWith(400, OUT_OF_RANGE, 'create', { since: '2026-11-21T00:00:00Z' });
    assert.equal(err.kind, 'validation');
    assert.equal(err.type, 'OutOfRange');
    assert.equal(err.uuid, 'u-5');
    assert.equal(err.details?.since, '2026-11-01T00:00:00Z');
    assert.equal(err.details?.until, '2026-11-20T00:00:00Z');
    assert.match(err.message, /since is after the latest committed change/);
    assert.match(err.hint ?? '', /no data after the requested since yet \(the latest committed change is at 2026-11-20T00:00:00Z\)/);
    assert.match(err.hint ?? '', /Wait for new data .* or use an earlier since, no earlier than 2026-11-01T00:00:00Z/);
    assert.doesNotMatch(err.hint ?? '', /snapshot/i);
  });

  it('400 OutOfRange for an until after the newest data: says to omit until', async () => {
    const err = await failWith(400, OUT_OF_RANGE, 'create', { since: '2026-11-10T00:00:00Z', until: '2026-12-01T00:00:00Z' });
    assert.equal(err.kind, 'validation');
    assert.match(err.hint ?? '', /requested until is later than the latest committed change \(the latest committed change is at 2026-11-20T00:00:00Z\); omit until/);
    assert.doesNotMatch(err.hint ?? '', /snapshot/i);
  });

  it('400 OutOfRange for a since before the history: names the earliest allowed since', async () => {
    const err = await failWith(400, OUT_OF_RANGE, 'create', { since: '2026-10-01T00:00:00Z' });
    assert.equal(err.kind, 'validation');
    assert.match(err.hint ?? '', /the earliest allowed since is 2026-11-01T00:00:00Z\. Use that or a later since/);
  });

  it('400 OutOfRange without the request at hand: the since-too-late hint', () => {
    const err = errorFromResponse({ status: 400, bodyText: JSON.stringify(OUT_OF_RANGE), operation: 'createJob' });
    assert.equal(err.kind, 'validation');
    assert.match(err.hint ?? '', /Wait for new data/);
    assert.doesNotMatch(err.hint ?? '', /snapshot/i);
  });

  it('400 with a range but no type: told apart by the since that was asked', () => {
    const bodyText = JSON.stringify({ error: { message: 'range refused', since: '2026-11-01T00:00:00Z', until: '2026-11-20T00:00:00Z' } });
    const tooLate = errorFromResponse({ status: 400, bodyText, operation: 'createJob', requested: { since: '2026-11-20T00:00:00Z' } });
    assert.equal(tooLate.kind, 'validation');
    assert.match(tooLate.hint ?? '', /Wait for new data/);
    const tooEarly = errorFromResponse({ status: 400, bodyText, operation: 'createJob', requested: { since: '2026-10-31T00:00:00Z' } });
    assert.equal(tooEarly.kind, 'snapshotRequired');
    assert.match(tooEarly.hint ?? '', /Run a full snapshot \(omit since\)\. The earliest allowed since is 2026-11-01T00:00:00Z/);
  });

  it('404 on sign-in: check the base URL, not the namespace or table', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.on('POST', '/ids/auth/login', () => ({ status: 404, body: { error: { type: 'NotFound', uuid: 'u-404', message: 'No route for POST /ids/auth/login.' } } }));
    const err = await clock.run(client.testConnection()).catch((e: unknown) => e);
    assert.ok(isDqError(err));
    assert.equal(err.kind, 'notFound');
    assert.equal(err.operation, 'login');
    assert.equal(err.uuid, 'u-404');
    assert.match(err.hint ?? '', /Check the base URL: it must be the service's gateway address alone, without the data prefix or any other path/);
    assert.doesNotMatch(err.hint ?? '', /namespace|table/);
    assert.equal(gateway.logins(), 1, 'not retried');
  });

  it('404 without a kind on a data call: the names, then the base URL and data prefix', async () => {
    const noRoute = { error: { type: 'NotFound', uuid: 'u-6', message: 'No route for POST /api/query/canvas/table/accounts/data.' } };
    const create = await failWith(404, noRoute, 'create');
    assert.equal(create.kind, 'notFound');
    assert.match(create.hint ?? '', /Check the namespace and table names, and the base URL and data prefix of the connection/);
    const list = await failWith(404, noRoute);
    assert.equal(list.details?.kind, 'namespace');
    assert.match(list.hint ?? '', /Check the namespace name;.*If that is right, check the base URL and data prefix of the connection/);
    const job = errorFromResponse({ status: 404, bodyText: '', operation: 'getJob' });
    assert.match(job.hint ?? '', /24 hours.*base URL and data prefix/);
  });

  it('404 with a kind the contract does not name: treated like one without a kind', () => {
    const err = errorFromResponse({ status: 404, bodyText: JSON.stringify({ error: { message: 'gone', kind: 'route' } }), operation: 'createJob' });
    assert.equal(err.details?.kind, 'route');
    assert.match(err.hint ?? '', /base URL and data prefix/);
  });

  for (const type of ['AccountNotOnboarded', 'AccountDisabled', 'AccountUnderMaintenance', 'RequestTypeForbidden']) {
    for (const status of [403, 500]) {
      it(`${type} as ${status}: account kind with its own hint, not retried`, async () => {
        const { gateway, client, clock } = makeFixture();
        gateway.onLogin(() => clock.now()).on('GET', TABLES, () => ({ status, body: { error: { type, uuid: `u-${type}`, message: 'account problem' } } }));
        const err = await clock.run(client.listTables('nowhere')).catch((e: unknown) => e);
        assert.ok(isDqError(err));
        assert.equal(err.kind, 'account');
        assert.equal(err.type, type);
        assert.equal(err.status, status);
        assert.equal(err.uuid, `u-${type}`);
        assert.ok((err.hint ?? '').length > 20);
        assert.equal(gateway.seen('GET', TABLES).length, 1);
      });
    }
  }

  it('504 without type or uuid: a server error that was retried', async () => {
    const err = await failWith(504, { error: { message: 'Endpoint request timed out' } });
    assert.equal(err.kind, 'server');
    assert.equal(err.status, 504);
    assert.equal(err.uuid, undefined);
    assert.equal(err.type, undefined);
    assert.match(err.hint ?? '', /timed out after 1 retries/);
  });

  it('a non-JSON body: status and a short, redacted excerpt', async () => {
    const html = `<html><body><h1>502 Bad Gateway</h1> upstream said Bearer abc.def.ghi ${'x'.repeat(1000)}</body></html>`;
    const err = await failWith(502, html);
    assert.equal(err.kind, 'server');
    assert.equal(err.status, 502);
    assert.match(err.message, /HTTP 502/);
    assert.match(err.message, /502 Bad Gateway/);
    assert.ok(err.message.length < 400, 'only an excerpt');
    assert.ok(!err.message.includes('abc.def.ghi'));
  });

  it('server strings in the message and details are redacted', async () => {
    const link = 'https://acct.blob.core.windows.net/c/o?sv=2024&sig=SAS-SECRET&se=2026';
    const err = await failWith(400, { error: { message: `bad link ${link}`, location: { hint: link }, links: [link] } });
    const everything = `${err.describe()} ${JSON.stringify(err.details)}`;
    assert.match(everything, /bad link https:\/\/acct\.blob\.core\.windows\.net\/c\/o\?/);
    assert.ok(!everything.includes('SAS-SECRET'));
  });

  it('a network failure keeps its cause without the URL it may carry', () => {
    const raw = Object.assign(new Error('connect failed for https://h.example.test/o?X-Amz-Signature=AMZ-SECRET&X-Amz-Credential=AKIA1'), {
      code: 'ECONNRESET',
      cause: new Error('inner https://h.example.test/o?Signature=CF-SECRET'),
    });
    const err = errorFromNetwork(raw, 'download', 'h.example.test');
    assert.equal(err.kind, 'network');
    const chain: string[] = [];
    for (let e: unknown = err; e instanceof Error; e = e.cause) chain.push(`${e.name} ${e.message}`);
    assert.equal(chain.length, 3, 'the cause chain is kept');
    for (const secret of ['AMZ-SECRET', 'AKIA1', 'CF-SECRET', '?X-Amz', '?Signature']) assert.ok(!chain.join('\n').includes(secret), secret);
    assert.equal((err.cause as { code?: string }).code, 'ECONNRESET', 'the code is kept for retry decisions');
  });

  it('429: rateLimited with the uuid', async () => {
    const err = await failWith(429, { error: { type: 'TooManyRequests', uuid: 'u-429', message: 'rate limit' } });
    assert.equal(err.kind, 'rateLimited');
    assert.equal(err.uuid, 'u-429');
  });

  it('401 on a data call: auth', () => {
    const err = errorFromResponse({ status: 401, bodyText: '{"error":{"message":"Unauthorized"}}', operation: 'getSchema', afterRefresh: true });
    assert.equal(err.kind, 'auth');
    assert.match(err.hint ?? '', /client ID and secret/);
  });

  it('404 on get-job without a body: notFound of kind job with an expiry hint', () => {
    const err = errorFromResponse({ status: 404, bodyText: '', operation: 'getJob' });
    assert.equal(err.kind, 'notFound');
    assert.equal(err.details?.kind, 'job');
    assert.match(err.hint ?? '', /24 hours/);
  });

  it('an unexpected status is a server error, not a crash', () => {
    const err = errorFromResponse({ status: 418, bodyText: 'teapot', operation: 'getJob' });
    assert.equal(err.kind, 'server');
    assert.match(err.message, /418/);
  });
});
