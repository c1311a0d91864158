// Sign-in answers that are not what the contract says, from a small gateway over real HTTP:
// bodies that are not JSON (a form, XML, broken JSON) must never be echoed, since they may
// hold a token in a form no redaction knows; and JSON behind a UTF-8 byte order mark is
// read like any other answer.

import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { isDqError, type DqError } from '../../../src/client/errors';

/** A token that no pattern would recognise as one: its first part is not `eyJ`. */
const OPAQUE = 'OpaqueTok3nValue_9f8e7d';
const BOM = '\uFEFF';

interface Answer {
  status: number;
  body: string;
}

/** A gateway whose sign-in answers `login` and whose table list answers `tables`. */
class ScriptedGateway {
  url = '';
  readonly bearers: string[] = [];
  login: Answer = { status: 200, body: '{}' };
  tables: Answer = { status: 200, body: '{"tables":[]}' };
  private readonly server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = req.url === '/ids/auth/login' ? this.login : this.tables;
      if (req.url !== '/ids/auth/login') this.bearers.push(String(req.headers.authorization ?? ''));
      res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(answer.body);
    });
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Every text an error carries: its description, details and the messages of its causes. */
function everything(err: DqError): string {
  const parts = [err.describe(), JSON.stringify(err.details ?? {})];
  for (let e: unknown = err.cause; e instanceof Error; e = e.cause) parts.push(e.message);
  return parts.join('\n');
}

describe('sign-in answers (a small gateway over HTTP)', function () {
  this.timeout(20_000);
  let gateway: ScriptedGateway;
  let client: DataQueryClient;

  beforeEach(async () => {
    gateway = await new ScriptedGateway().start();
    client = new DataQueryClient({
      baseUrl: gateway.url,
      credentials: async () => ({ clientId: 'id', clientSecret: 'secret' }),
      maxRetries: 0,
    });
  });

  afterEach(async () => {
    await client.close();
    await gateway.close();
  });

  const NOT_JSON: [string, string][] = [
    ['a form-encoded answer', `access_token=${OPAQUE}&scope=&token_type=bearer`],
    ['an XML answer', `<?xml version="1.0"?><TokenResponse><AccessToken>${OPAQUE}</AccessToken><ExpiresIn>3600</ExpiresIn></TokenResponse>`],
    ['JSON with a trailing comma', `{"access_token":"${OPAQUE}","expires_in":3600,}`],
    ['JSON behind two byte order marks', `${BOM}${BOM}{"access_token":"${OPAQUE}"}`],
  ];

  for (const [what, body] of NOT_JSON) {
    it(`${what} is an invalidResponse that does not show the answer`, async () => {
      gateway.login = { status: 200, body };
      const err = await client.testConnection().then(
        () => assert.fail('expected the sign-in to fail'),
        (e: unknown) => e,
      );
      assert.ok(isDqError(err), String(err));
      assert.equal(err.kind, 'invalidResponse');
      assert.equal(err.operation, 'login');
      assert.match(err.hint ?? '', /base URL points at the Data Query Service gateway.*not shown/);
      assert.doesNotMatch(everything(err), new RegExp(`${OPAQUE.slice(0, 10)}|AccessToken|access_token=`));
    });
  }

  it('a refused sign-in whose answer is not an error envelope is not shown either', async () => {
    gateway.login = { status: 401, body: `denied; last token was ${OPAQUE}` };
    const err = await client.testConnection().catch((e: unknown) => e);
    assert.ok(isDqError(err), String(err));
    assert.equal(err.kind, 'auth');
    assert.match(err.message, /^Sign-in failed with HTTP 401$/);
    assert.doesNotMatch(everything(err), new RegExp(OPAQUE.slice(0, 10)));
  });

  it('JSON behind a UTF-8 byte order mark is read, for the sign-in and the data calls', async () => {
    const payload = Buffer.from(JSON.stringify({ exp: Math.floor(Date.now() / 1000) + 3600 })).toString('base64url');
    const token = `${Buffer.from('{\n  "alg": "RS256"\n}').toString('base64url')}.${payload}.c2lnbmF0dXJl`;
    gateway.login = { status: 200, body: `${BOM}${JSON.stringify({ access_token: token, expires_in: 3600, token_type: 'Bearer' })}` };
    gateway.tables = { status: 200, body: `${BOM}{"tables":["accounts","courses"]}` };
    assert.deepEqual(await client.listTables('canvas'), ['accounts', 'courses']);
    assert.deepEqual(gateway.bearers, [`Bearer ${token}`]);
  });

  it('an error envelope behind a byte order mark keeps its type, uuid and message', async () => {
    gateway.login = { status: 200, body: JSON.stringify({ access_token: OPAQUE }) };
    gateway.tables = { status: 404, body: `${BOM}{"error":{"type":"NotFound","uuid":"u-bom","message":"no such namespace","kind":"namespace","id":"nowhere"}}` };
    const err = await client.listTables('nowhere').catch((e: unknown) => e);
    assert.ok(isDqError(err), String(err));
    assert.equal(err.kind, 'notFound');
    assert.equal(err.uuid, 'u-bom');
    assert.match(err.message, /no such namespace/);
  });
});
