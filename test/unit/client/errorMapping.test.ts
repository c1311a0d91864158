import * as assert from 'node:assert/strict';
import { isDqError, type DqError } from '../../../src/client/errors';
import { errorFromNetwork, errorFromResponse } from '../../../src/client/errorMapping';
import { makeFixture } from './clientFixture';

const TABLES = '/dap/query/nowhere/table';
const CREATE = '/dap/query/canvas/table/accounts/data';

/** Makes a listTables/createJob call fail with the given answer and returns the error. */
async function failWith(status: number, body: unknown, call: 'list' | 'create' = 'list'): Promise<DqError> {
  const { gateway, client, clock } = makeFixture({ maxRetries: 1 });
  gateway
    .onLogin(() => clock.now())
    .on('GET', TABLES, () => ({ status, body }))
    .on('POST', CREATE, () => ({ status, body }));
  const p: Promise<unknown> = call === 'list' ? client.listTables('nowhere') : client.createJob('canvas', 'accounts', { format: 'jsonl', since: '2020-01-01T00:00:00Z' });
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
    assert.equal(err.details?.since, '2026-11-01T00:00:00Z');
    assert.match(err.hint ?? '', /Run a full snapshot \(omit since\).*earliest allowed.*2026-11-01T00:00:00Z/);
  });

  it('400 out of range with since and until', async () => {
    const err = await failWith(400, { error: { type: 'OutOfRange', uuid: 'u-5', message: 'out of range', since: '2026-11-01T00:00:00Z', until: '2026-11-20T00:00:00Z' } }, 'create');
    assert.equal(err.kind, 'snapshotRequired');
    assert.equal(err.details?.until, '2026-11-20T00:00:00Z');
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
