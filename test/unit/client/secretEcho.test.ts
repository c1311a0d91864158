import * as assert from 'node:assert/strict';
import { isDqError, type DqError } from '../../../src/client/errors';
import { redact } from '../../../src/core/logger';
import { CLIENT_ID, CLIENT_SECRET, makeFixture, type Fixture } from './clientFixture';

// A service that echoes what it was sent: the decoded Basic credentials, the bearer token.
const TABLES = '/dap/query/canvas/table';
const JOB = '/dap/job/j-1';
const OPAQUE_TOKEN = 'opaque-token-value-0123456789';

/** Everything a person could see of a failure: the one-line description, the details, the log. */
function shown(err: DqError, f: Fixture): string {
  return `${err.describe()}\n${JSON.stringify(err.details ?? {})}\n${f.logger.lines.join('\n')}`;
}

async function failure(f: Fixture, call: Promise<unknown>): Promise<DqError> {
  const err = await f.clock.run(call).catch((e: unknown) => e);
  assert.ok(isDqError(err), String(err));
  return err;
}

describe('a service that echoes secrets', () => {
  it('a sign-in refusal quoting the decoded Basic credentials shows neither the secret nor the client ID', async () => {
    const f = makeFixture();
    const echo = `${CLIENT_ID}:${CLIENT_SECRET}`;
    f.gateway.on('POST', '/ids/auth/login', () => ({
      status: 401,
      body: { error: { type: 'Unauthorized', uuid: 'u-1', message: `bad credentials ${echo}`, received: { basic: echo, encoded: encodeURIComponent(echo) } } },
    }));
    const err = await failure(f, f.client.testConnection());
    assert.equal(err.kind, 'auth');
    const text = shown(err, f);
    assert.ok(!text.includes(CLIENT_SECRET), text);
    assert.ok(!text.includes(CLIENT_ID), text);
    assert.match(err.message, /bad credentials \*\*\*:\*\*\*/);
    assert.equal(err.uuid, 'u-1', 'what support needs is still there');
  });

  it('masks only the key part of a region#key client ID', async () => {
    const f = makeFixture({ credentials: async () => ({ clientId: 'us-east-1#Key0123456789', clientSecret: 'another-secret-9876' }) });
    f.gateway.on('POST', '/ids/auth/login', () => ({ status: 401, body: { error: { message: 'us-east-1#Key0123456789:another-secret-9876 refused' } } }));
    const err = await failure(f, f.client.testConnection());
    assert.match(err.message, /us-east-1#\*\*\*:\*\*\* refused/);
  });

  it('a data call refused with a body quoting the bearer token, and a failed job and an outage page quoting the secret, show neither', async () => {
    const f = makeFixture();
    f.gateway
      .on('POST', '/ids/auth/login', () => ({ status: 200, body: { access_token: OPAQUE_TOKEN, expires_in: 3600 } }))
      .on('GET', TABLES, (req) => ({ status: 401, body: { error: { message: `token ${req.headers.authorization} is not valid` } } }))
      .on('GET', JOB, () => ({ status: 200, body: { id: 'j-1', status: 'failed', error: { type: 'X', message: `query by ${CLIENT_SECRET} failed` } } }))
      .on('GET', '/dap/query/catalog/table', () => ({ status: 502, body: `<html>upstream saw secret=${CLIENT_SECRET} token=${OPAQUE_TOKEN}</html>` }));
    const refused = await failure(f, f.client.listTables('canvas'));
    assert.equal(refused.kind, 'auth');
    const failed = await failure(f, f.client.waitForJob('j-1'));
    assert.equal(failed.kind, 'jobFailed');
    const outage = await failure(f, f.client.listTables('catalog'));
    assert.equal(outage.status, 502);
    for (const err of [refused, failed, outage]) {
      const text = shown(err, f);
      assert.ok(!text.includes(OPAQUE_TOKEN), text);
      assert.ok(!text.includes(CLIENT_SECRET), text);
    }
    assert.match(outage.message, /upstream saw/, 'the rest of the answer is still quoted');
    assert.ok(!redact(`echo ${OPAQUE_TOKEN}`).includes(OPAQUE_TOKEN), 'the CLI and the log channel mask it too');
    await f.client.close();
    assert.ok(redact(`echo ${OPAQUE_TOKEN}`).includes(OPAQUE_TOKEN), 'a closed client holds no secret');
  });
});
