import * as assert from 'node:assert/strict';
import { isDqError } from '../../../src/client/errors';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { CLIENT_VERSION, DEFAULT_USER_AGENT } from '../../../src/client/version';
import type { JobRecord } from '../../../src/core/contract';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { flushMicrotasks } from '../../support/fakeClock';
import { LoopbackService } from '../../support/loopbackServer';
import { makeFixture } from './clientFixture';

describe('DataQueryClient calls', () => {
  it('encodes path segments and adds scope to list, schema and data calls only', async () => {
    const { gateway, client, clock } = makeFixture({ scope: 'acct 1', dataPrefix: '/dap/' });
    gateway
      .onLogin(() => clock.now())
      .on('GET', '/dap/query/ns%2Fx/table', () => ({ status: 200, body: { tables: [] } }))
      .on('GET', '/dap/query/ns/table/a%20b%3F/schema', () => ({ status: 200, body: { version: 1, schema: {} } }))
      .on('POST', '/dap/query/ns/table/t/data', () => ({ status: 202, body: { id: 'j/1', status: 'waiting' } }))
      .on('GET', '/dap/job/j%2F1', () => ({ status: 200, body: { id: 'j/1', status: 'running' } }))
      .on('POST', '/dap/object/url', () => ({ status: 200, body: { urls: { o1: { url: 'https://objects.example.test/o1?sig=1' } } } }));
    await client.listTables('ns/x');
    await client.getSchema('ns', 'a b?', { scope: 'other' });
    await client.createJob('ns', 't', { format: 'csv' });
    await client.getJob('j/1');
    await client.createUrls(['o1']);
    const paths = gateway.requests.filter((r) => !r.path.startsWith('/ids')).map((r) => r.path);
    assert.deepEqual(paths, [
      '/dap/query/ns%2Fx/table?scope=acct%201',
      '/dap/query/ns/table/a%20b%3F/schema?scope=other',
      '/dap/query/ns/table/t/data?scope=acct%201',
      '/dap/job/j%2F1',
      '/dap/object/url',
    ]);
    assert.deepEqual(JSON.parse(gateway.seen('POST', '/dap/object/url')[0].body ?? ''), [{ id: 'o1' }]);
  });

  it('sends only the contract fields of a job request, and accepts 200 and 202', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway
      .onLogin(() => clock.now())
      .on('POST', '/dap/query/canvas/table/t/data', (_r, n) =>
        n === 1 ? { status: 202, body: { id: 'j1', status: 'waiting', extra: true } } : { status: 200, body: { id: 'j1', status: 'complete', objects: [{ id: 'o' }], at: '2026-11-20T08:00:00Z' } },
      );
    const request = { format: 'jsonl', since: '2026-11-19T00:00:00Z', mode: 'condensed', filter: 'x' } as never;
    const first = await client.createJob('canvas', 't', request);
    const second = await client.createJob('canvas', 't', request);
    assert.equal(first.status, 'waiting');
    assert.equal(second.status, 'complete');
    assert.deepEqual(JSON.parse(gateway.seen('POST', '/dap/query/canvas/table/t/data')[0].body ?? ''), {
      format: 'jsonl',
      since: '2026-11-19T00:00:00Z',
      mode: 'condensed',
    });
  });

  it('refuses an unknown format before spending a call', async () => {
    const { gateway, client } = makeFixture();
    await assert.rejects(client.createJob('canvas', 't', { format: 'xlsx' } as never), (e: unknown) => isDqError(e) && e.kind === 'usage');
    assert.equal(gateway.requests.length, 0);
  });

  const invalid: [string, unknown][] = [
    ['tables is not an array', { tables: 'accounts' }],
    ['tables holds a non-string', { tables: ['a', 1] }],
    ['no tables field', { items: [] }],
  ];
  for (const [what, body] of invalid) {
    it(`rejects a table list where ${what}`, async () => {
      const { gateway, client, clock } = makeFixture();
      gateway.onLogin(() => clock.now()).on('GET', '/dap/query/canvas/table', () => ({ status: 200, body }));
      await assert.rejects(client.listTables('canvas'), (e: unknown) => isDqError(e) && e.kind === 'invalidResponse' && /tables/.test(e.message));
    });
  }

  it('rejects a job without id or with an unknown status, tolerates unknown fields', async () => {
    const { gateway, client, clock } = makeFixture();
    const bodies = [{ status: 'running' }, { id: 'j', status: 'paused' }, { id: 'j', status: 'running', brand_new: { a: 1 } }];
    gateway.onLogin(() => clock.now()).on('GET', '/dap/job/j', (_r, n) => ({ status: 200, body: bodies[n - 1] }));
    await assert.rejects(client.getJob('j'), (e: unknown) => isDqError(e) && e.kind === 'invalidResponse');
    await assert.rejects(client.getJob('j'), (e: unknown) => isDqError(e) && e.kind === 'invalidResponse' && /paused/.test(e.message));
    assert.equal((await client.getJob('j')).status, 'running');
  });

  it('a 200 that is not JSON is an invalidResponse pointing at the base URL', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway.onLogin(() => clock.now()).on('GET', '/dap/query/canvas/table', () => ({ status: 200, body: '<html>login page</html>' }));
    await assert.rejects(client.listTables('canvas'), (e: unknown) => isDqError(e) && e.kind === 'invalidResponse' && /base URL/.test(e.hint ?? ''));
  });

  it('refuses plain http to a non-loopback host, allows it when opted in and for loopback', async () => {
    const insecure = makeFixture({ baseUrl: 'http://api.example.test' });
    await assert.rejects(insecure.client.listTables('canvas'), (e: unknown) => isDqError(e) && e.kind === 'insecure' && /https/.test(e.hint ?? ''));
    await assert.rejects(insecure.client.testConnection(), (e: unknown) => isDqError(e) && e.kind === 'insecure');
    assert.equal(insecure.gateway.requests.length, 0);
    for (const baseUrl of ['http://localhost:1', 'http://127.5.0.1:1', 'http://[::1]:1']) {
      const f = makeFixture({ baseUrl });
      const err = await f.client.testConnection().catch((e: unknown) => e);
      assert.ok(isDqError(err) && err.kind !== 'insecure', `${baseUrl} is loopback`);
    }
    const optedIn = makeFixture({ baseUrl: 'http://api.example.test', allowInsecureHttp: true });
    const err = await optedIn.client.testConnection().catch((e: unknown) => e);
    assert.ok(isDqError(err) && err.kind !== 'insecure');
  });

  it('runJob waits out a reused job that is about to expire and creates it again', async () => {
    const { gateway, client, clock } = makeFixture();
    const soon = () => new Date(clock.now() + 10_000).toISOString();
    const later = () => new Date(clock.now() + 24 * 3600_000).toISOString();
    gateway
      .onLogin(() => clock.now())
      .on('POST', '/dap/query/canvas/table/t/data', (_r, n) =>
        n === 1
          ? { status: 200, body: { id: 'old', status: 'complete', objects: [{ id: 'o' }], expires_at: soon() } }
          : { status: 202, body: { id: 'new', status: 'waiting', expires_at: later() } },
      )
      .on('GET', '/dap/job/new', (_r, n) => ({ status: 200, body: n < 2 ? { id: 'new', status: 'running' } : { id: 'new', status: 'complete', objects: [{ id: 'o2' }] } }));
    const t0 = clock.now();
    const waits: unknown[] = [];
    const job = await clock.run(client.runJob('canvas', 't', { format: 'jsonl' }, { onQueued: (w) => waits.push(w) }));
    assert.equal(job.id, 'new');
    assert.ok(clock.now() - t0 >= 10_000, 'waited for the old job to expire');
    assert.deepEqual(waits, [{ operation: 'createJob', waitMs: 11_000, reason: 'expiring' }], 'and said so, with how long');
    assert.equal(gateway.seen('POST', '/dap/query/canvas/table/t/data').length, 2);
  });

  it('runJob returns a reused complete job far from expiry at once', async () => {
    const { gateway, client, clock } = makeFixture();
    gateway
      .onLogin(() => clock.now())
      .on('POST', '/dap/query/canvas/table/t/data', () => ({ status: 200, body: { id: 'j', status: 'complete', objects: [], expires_at: new Date(clock.now() + 3600_000).toISOString() } }));
    const job = await client.runJob('canvas', 't', { format: 'csv' });
    assert.equal(job.id, 'j');
    assert.equal(gateway.seen('GET', '/dap/job/j').length, 0);
  });

  it('downloadJob refuses a job that is not complete', async () => {
    const { client } = makeFixture();
    const job: JobRecord = { id: 'j', status: 'running' };
    await assert.rejects(client.downloadJob(job, { dir: '/nonexistent' }), (e: unknown) => isDqError(e) && e.kind === 'usage');
  });

  it('names the client and version in the default User-Agent, matching package.json', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8')) as { version: string };
    assert.equal(CLIENT_VERSION, pkg.version);
    assert.equal(DEFAULT_USER_AGENT, `data-query-explorer/${pkg.version}`);
  });

  it('closes a dispatcher it built, releasing its connections, but not an injected one', async () => {
    const { client, gateway, clock } = makeFixture();
    gateway.onLogin(() => clock.now()).on('GET', '/dap/query/canvas/table', () => ({ status: 200, body: { tables: ['still'] } }));
    await client.close();
    const again = makeFixture({}, gateway).client;
    assert.deepEqual(await again.listTables('canvas'), ['still'], 'the injected dispatcher still works');

    const service = await new LoopbackService().start();
    try {
      const own = new DataQueryClient({ baseUrl: service.gatewayUrl, credentials: async () => ({ clientId: 'a', clientSecret: 'b' }) });
      assert.deepEqual(await own.listTables('canvas'), ['accounts', 'courses']);
      assert.ok(service.openGatewayConnections() > 0, 'kept-alive connections are open');
      await own.close();
      await flushMicrotasks(20); // the server sees a closed connection on its next I/O turns
      assert.equal(service.openGatewayConnections(), 0, 'closing the client closed its connection');
      await assert.rejects(own.listTables('canvas'), (e: unknown) => isDqError(e) && e.kind === 'usage');
    } finally {
      await service.close();
    }
  });
});
