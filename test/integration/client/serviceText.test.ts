// Text the service sends back (error messages, failed jobs) may quote a signed link of a
// style no list of parameter names knows. A small gateway over real HTTP quotes such links;
// every URL in what the client reports keeps its host and path and loses its query.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { isDqError, type DqError } from '../../../src/client/errors';

/** A Backblaze B2, an Alibaba OSS and an Akamai token, and a password in the link. */
const SECRETS = ['4_0022b3cSECRETB2TOKEN', 'OSSSECRET', 'AKAMAISECRET', 'pw-77e1'];
const LINK = `https://reader:pw-77e1@objects.example.com/res/part-0.json.gz?Authorization=${SECRETS[0]}&x-oss-signature=${SECRETS[1]}&hdnts=exp~1~hmac~${SECRETS[2]}`;
const SHOWN = 'https://***@objects.example.com/res/part-0.json.gz?…';

/** A gateway whose links request is refused, and whose job failed, each quoting LINK. */
function quotingGateway(): http.Server {
  return http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const send = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/ids/auth/login') return send(200, { access_token: 'opaque', expires_in: 3600 });
      if (req.url === '/dap/object/url') return send(400, { error: { type: 'BadRequest', uuid: 'u-link', message: `link ${LINK} was not valid`, link: LINK } });
      if (req.url === '/dap/job/j-failed') {
        return send(200, { id: 'j-failed', status: 'failed', error: { type: 'ExportFailed', uuid: 'u-job', message: `could not write to "${LINK}"` } });
      }
      send(404, { error: { message: 'not here' } });
    });
  });
}

/** Every text an error carries: its description, details and the messages of its causes. */
function everything(err: DqError): string {
  const parts = [err.describe(), JSON.stringify(err.details ?? {})];
  for (let e: unknown = err.cause; e instanceof Error; e = e.cause) parts.push(e.message);
  return parts.join('\n');
}

function assertNoSecret(err: unknown): asserts err is DqError {
  assert.ok(isDqError(err), String(err));
  const text = everything(err);
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${secret} shows in: ${text}`);
}

describe('links quoted by the service (a small gateway over HTTP)', function () {
  this.timeout(20_000);
  let server: http.Server;
  let client: DataQueryClient;
  let dir: string;

  before(async () => {
    server = quotingGateway();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    client = new DataQueryClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      credentials: async () => ({ clientId: 'id', clientSecret: 'secret' }),
      maxRetries: 0,
    });
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-text-'));
  });

  after(async () => {
    await client.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('a refused links request shows the link without its query, and a hint that fits a links request', async () => {
    const err = await client.createUrls(['o1']).catch((e: unknown) => e);
    assertNoSecret(err);
    assert.equal(err.kind, 'validation');
    assert.equal(err.uuid, 'u-link');
    assert.equal(err.message, `Requesting download links failed with HTTP 400: link ${SHOWN} was not valid`);
    assert.equal(err.details?.link, SHOWN);
    assert.doesNotMatch(err.hint ?? '', /format, mode|since\/until/);
    assert.match(err.hint ?? '', /object ids come from the job.*Run the query again/);
  });

  it('a download whose links are refused reports the same, and writes nothing', async () => {
    const err = await client.downloadJob({ id: 'j1', status: 'complete', objects: [{ id: 'o1' }] }, { dir, format: 'jsonl' }).catch((e: unknown) => e);
    assertNoSecret(err);
    assert.match(err.message, /link https:\/\/\*\*\*@objects\.example\.com\/res\/part-0\.json\.gz\?… was not valid/);
    assert.deepEqual(await fs.readdir(dir), []);
  });

  it('a failed job\'s message shows the link without its query', async () => {
    const err = await client.waitForJob('j-failed').catch((e: unknown) => e);
    assertNoSecret(err);
    assert.equal(err.kind, 'jobFailed');
    assert.equal(err.message, `Job j-failed failed: could not write to "${SHOWN}"`);
  });
});
