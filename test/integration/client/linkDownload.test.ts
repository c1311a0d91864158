// "Open Result From Link" over real HTTP: a pasted link cannot be renewed, so a refused one
// (expired or revoked) ends at its first answer with advice to ask for a new link, and every
// other failure speaks of the link, never of a connection's base URL, port or insecure-http
// setting, nor of running a query that the holder of a link may not be able to run.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Agent } from 'undici';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { isDqError, type DqError } from '../../../src/client/errors';
import { nullLogger } from '../../../src/core/logger';
import { downloadLink } from '../../../src/jobs/linkDownload';
import { linksFolder } from '../../../src/jobs/resultsLayout';
import { FakeClock } from '../../support/fakeClock';
import { LoopbackService } from '../../support/loopbackServer';

/** Advice meant for a connection or a job, which a pasted link has not. */
const NOT_FOR_A_LINK = /base URL|for this connection|run the query|fresh links/i;

describe('downloading a pasted link', function () {
  this.timeout(30_000);
  let service: LoopbackService;
  let client: DataQueryClient;
  let agent: Agent;
  let clock: FakeClock;
  let root: string;

  beforeEach(async () => {
    service = await new LoopbackService().start();
    client = new DataQueryClient({ baseUrl: service.gatewayUrl, credentials: async () => ({ clientId: 'id', clientSecret: 'secret' }), random: () => 0.5 });
    agent = new Agent();
    clock = new FakeClock(Date.now());
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-link-'));
  });

  afterEach(async () => {
    await client.close();
    await agent.close();
    await service.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  /** A link to the object, as Copy Result Link would have made it. */
  async function linkTo(objectId: string, data: Buffer): Promise<string> {
    service.objects.set(objectId, data);
    const { urls } = await client.createUrls([objectId]);
    return urls[objectId].url;
  }

  function open(url: string): Promise<Awaited<ReturnType<typeof downloadLink>>> {
    return clock.run(downloadLink({ url, resultsRoot: root, dispatcher: agent, clock, logger: nullLogger, userAgent: 'test' }));
  }

  async function failure(url: string): Promise<DqError> {
    const err = await open(url).then(
      () => assert.fail('expected the link to fail'),
      (e: unknown) => e,
    );
    assert.ok(isDqError(err), `a DqError, not ${String(err)}`);
    assert.doesNotMatch(`${err.message} ${err.hint ?? ''}`, NOT_FOR_A_LINK);
    return err;
  }

  async function filesUnder(folder: string): Promise<string[]> {
    return fs.readdir(folder).catch(() => []);
  }

  it('downloads a good link into links/ with the bytes the host sent', async () => {
    const data = gzipSync('id,name\n1,a\n');
    const file = await open(await linkTo('o', data));
    assert.equal(path.dirname(file.path), linksFolder(root));
    assert.deepEqual(await fs.readFile(file.path), data);
  });

  it('an expired link: one request, no file, and the advice to ask for a new link', async () => {
    const url = await linkTo('o', gzipSync('never'));
    service.faults.set('o', { forbid: 1_000 }); // the object host answers 403 "Request has expired"
    const err = await failure(url);
    assert.equal(err.status, 403);
    assert.match(err.message, /expired or was revoked/);
    assert.match(err.hint ?? '', /new link/);
    assert.equal(service.requestsFor('o').length, 1, 'no retries of a link that cannot be renewed');
    assert.deepEqual(await filesUnder(linksFolder(root)), []);
  });

  it('a link the host does not know (404) is reported the same way', async () => {
    const url = new URL(await linkTo('o', gzipSync('never')));
    url.searchParams.set('X-Amz-Signature', 'revoked');
    const err = await failure(url.href);
    assert.equal(err.status, 404);
    assert.match(err.message, /expired or was revoked/);
    assert.equal(service.requestsFor('o').length, 1);
  });

  it('a host that keeps failing says to open the link again later', async () => {
    const url = await linkTo('o', gzipSync('never'));
    service.faults.set('o', { failStatus: 503 });
    const err = await failure(url);
    assert.equal(err.kind, 'server');
    assert.match(err.hint ?? '', /link/);
  });

  it('a link where nothing answers speaks of the link, not of a base URL and port', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await failure(`http://127.0.0.1:${port}/bucket/o?X-Amz-Signature=abc`);
    assert.equal(err.kind, 'network');
    assert.match(err.hint ?? '', /link/);
  });

  it('a plain http link to another host is refused before any request, with advice about the link', async () => {
    const err = await failure('http://results.example.com/bucket/o?X-Amz-Signature=abc');
    assert.equal(err.kind, 'insecure');
    assert.match(err.hint ?? '', /https:\/\/ link/);
    assert.deepEqual(await filesUnder(root), []);
  });
});
