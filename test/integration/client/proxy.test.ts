// Proxies over real HTTP: a recording CONNECT proxy on loopback that routes made-up host
// names to the services in the test (calls to this machine's own addresses never go through
// a proxy, whatever the settings say), and proxies that refuse to open a tunnel.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { EnvHttpProxyAgent, request } from 'undici';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { createDispatcher, resolveProxy } from '../../../src/client/dispatcher';
import { isCancelled, isDqError, type DqError } from '../../../src/client/errors';
import type { ProxyOptions } from '../../../src/client/types';
import { redact } from '../../../src/core/logger';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { LoopbackProxy } from '../../support/loopbackProxy';
import { LoopbackService } from '../../support/loopbackServer';

/** The name the recording proxy routes to the loopback service: not this machine's to any client. */
const GATEWAY_NAME = 'gateway.proxy-test.invalid';

describe('proxy handling', function () {
  this.timeout(20_000);
  let service: LoopbackService;
  let proxy: LoopbackProxy;
  /** the loopback service's gateway under GATEWAY_NAME, reachable only through the proxy */
  let gatewayUrl: string;

  beforeEach(async () => {
    service = await new LoopbackService().start();
    proxy = await new LoopbackProxy().start();
    gatewayUrl = proxy.routed(service.gatewayUrl, GATEWAY_NAME);
  });

  afterEach(async () => {
    await service.close();
    await proxy.close();
  });

  async function listThrough(options: ProxyOptions, baseUrl = gatewayUrl): Promise<string[]> {
    const dispatcher = createDispatcher(options);
    const client = new DataQueryClient({
      baseUrl,
      allowInsecureHttp: true,
      credentials: async () => ({ clientId: 'id', clientSecret: 'secret' }),
      dispatcher,
      maxRetries: 0,
    });
    try {
      return await client.listTables('canvas');
    } finally {
      await client.close();
      await dispatcher.close();
    }
  }

  /** listThrough for a call that must go direct: GATEWAY_NAME does not resolve without the proxy. */
  async function directFailure(options: ProxyOptions): Promise<DqError> {
    const err = await listThrough(options).then(
      () => assert.fail('the made-up name resolved without the proxy'),
      (e: unknown) => e,
    );
    assert.ok(isDqError(err) && err.kind === 'network', String(err));
    return err;
  }

  const gatewayHost = (): string => new URL(gatewayUrl).host;

  it('goes through the proxy named by HTTP_PROXY', async () => {
    assert.deepEqual(await listThrough({ env: { HTTP_PROXY: proxy.url } }), ['accounts', 'courses']);
    assert.ok(proxy.tunnels.length > 0);
    assert.ok(proxy.tunnels.every((t) => t === gatewayHost()));
  });

  it('reads lower-case variables too, and sends proxy credentials from the URL to the proxy only', async () => {
    const withUser = proxy.url.replace('http://', 'http://alice:pa%3Ass@');
    await listThrough({ env: { http_proxy: withUser } });
    assert.ok(proxy.tunnels.length > 0);
    assert.equal(proxy.proxyAuth[0], `Basic ${Buffer.from('alice:pa:ss').toString('base64')}`);
    assert.ok(!service.gatewayAuth.some((a) => a.includes('alice')));
  });

  it('downloads result files through the proxy as well, without credentials to the object host', async () => {
    const data = gzipSync(Buffer.from('{"key":{"id":1}}\n'.repeat(2_000)));
    service.objects.set('o', data);
    service.linkBase = proxy.routed(service.objectUrl, 'objects.proxy-test.invalid');
    const dispatcher = createDispatcher({ url: proxy.url, env: {} });
    const client = new DataQueryClient({ baseUrl: gatewayUrl, allowInsecureHttp: true, credentials: async () => ({ clientId: 'id', clientSecret: 'secret' }), dispatcher });
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-proxy-'));
    try {
      const [file] = await client.downloadJob({ id: 'j', status: 'complete', objects: [{ id: 'o' }] }, { dir, format: 'jsonl' });
      assert.deepEqual(await fs.readFile(file.path), data);
    } finally {
      await client.close();
      await dispatcher.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
    assert.ok(proxy.tunnels.includes(new URL(service.linkBase).host), 'the object host was reached through the proxy');
    assert.ok(service.objectRequests.length > 0 && service.objectRequests.every((r) => r.authorization === undefined));
  });

  it('bypasses the proxy for NO_PROXY hosts', async () => {
    await directFailure({ env: { HTTP_PROXY: proxy.url, NO_PROXY: `example.org, ${GATEWAY_NAME}` } });
    assert.equal(proxy.tunnels.length, 0);
  });

  it('an explicit proxy URL wins over the environment, and noProxy from options applies', async () => {
    await listThrough({ url: proxy.url, env: { HTTP_PROXY: 'http://127.0.0.1:9' } });
    assert.ok(proxy.tunnels.length > 0);
    const before = proxy.tunnels.length;
    await directFailure({ url: proxy.url, noProxy: [GATEWAY_NAME] });
    assert.equal(proxy.tunnels.length, before);
  });

  it('goes direct when no proxy is configured or the environment is switched off', async () => {
    await directFailure({ env: {} });
    await directFailure({ env: { HTTP_PROXY: proxy.url }, useEnvironment: false });
    assert.equal(proxy.tunnels.length, 0);
  });

  it('never sends calls to this machine through the proxy, whatever the settings say', async () => {
    const settings: ProxyOptions[] = [
      { env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url } },
      { env: { http_proxy: proxy.url, no_proxy: 'example.org' } },
      { url: proxy.url, noProxy: '' },
      { url: proxy.url.replace('http://', 'http://alice:pw@') },
    ];
    for (const options of settings) {
      for (const host of ['127.0.0.1', 'localhost']) {
        const baseUrl = service.gatewayUrl.replace('127.0.0.1', host);
        assert.deepEqual(await listThrough(options, baseUrl), ['accounts', 'courses'], `${host} with ${JSON.stringify(options)}`);
      }
    }
    assert.deepEqual(proxy.tunnels, [], 'the proxy saw no tunnel, so neither the Basic credentials nor the token');
    assert.deepEqual(proxy.proxyAuth, []);
  });

  it('resolves the proxy settings the way the environment conventions say', () => {
    assert.equal(resolveProxy({ env: {} }), undefined);
    assert.deepEqual(resolveProxy({ env: { HTTPS_PROXY: 'http://p:1' } }), { httpProxy: undefined, httpsProxy: 'http://p:1', noProxy: '' });
    assert.deepEqual(resolveProxy({ env: { HTTP_PROXY: 'http://p:1', no_proxy: 'a,b' } }), { httpProxy: 'http://p:1', httpsProxy: 'http://p:1', noProxy: 'a,b' });
    assert.deepEqual(resolveProxy({ url: 'http://q:2', noProxy: ['x', 'y'], env: { HTTPS_PROXY: 'http://p:1' } }), { httpProxy: 'http://q:2', httpsProxy: 'http://q:2', noProxy: 'x,y' });
  });
});

describe('proxy handling with the emulator on this machine', function () {
  this.timeout(30_000);
  let emu: RunningEmulator;
  let proxy: LoopbackProxy;
  let dir: string;

  before(async () => {
    emu = await startEmulator({ jobDelayMs: 0, limits: false, namespaces: ['canvas'] });
    proxy = await new LoopbackProxy().start();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-proxy-'));
  });

  after(async () => {
    await proxy.close();
    await emu.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('signs in, queries and downloads from 127.0.0.1 with HTTP_PROXY set, and the proxy sees none of it', async () => {
    const client = new DataQueryClient({
      baseUrl: emu.baseUrl,
      dataPrefix: emu.dataPrefix,
      credentials: async () => ({ clientId: emu.clientId, clientSecret: emu.clientSecret }),
      proxy: { env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: '' } },
    });
    try {
      assert.ok((await client.listTables('canvas')).includes('accounts'));
      const job = await client.runJob('canvas', 'accounts', { format: 'jsonl' });
      const files = await client.downloadJob(job, { dir, format: 'jsonl' });
      assert.ok(files.length > 0 && files.every((f) => f.bytes > 0));
    } finally {
      await client.close();
    }
    assert.deepEqual(proxy.tunnels, [], 'neither the gateway nor the object host was reached through the proxy');
  });
});

/** A proxy that answers every tunnel request with `status`, counting them. */
class RefusingProxy {
  requests = 0;
  url = '';
  private readonly server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      this.requests++;
      const challenge = this.status === 407 ? 'Proxy-Authenticate: Basic realm="corp"\r\n' : '';
      socket.end(`HTTP/1.1 ${this.status} Refused\r\n${challenge}Content-Length: 0\r\n\r\n`);
    });
  });

  constructor(private readonly status: number) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('a proxy that refuses the tunnel', function () {
  this.timeout(20_000);
  let refusing: RefusingProxy | undefined;

  afterEach(async () => {
    await refusing?.close();
    refusing = undefined;
  });

  async function listVia(status: number, proxyUrl: (url: string) => string): Promise<DqError> {
    refusing = await new RefusingProxy(status).start();
    const client = new DataQueryClient({
      baseUrl: 'https://gateway.proxy-test.invalid',
      credentials: async () => ({ clientId: 'id', clientSecret: 'secret' }),
      proxy: { url: proxyUrl(refusing.url), env: {} },
    });
    try {
      const err = await client.listTables('canvas').then(
        () => assert.fail('expected the call to fail'),
        (e: unknown) => e,
      );
      assert.ok(isDqError(err), String(err));
      return err;
    } finally {
      await client.close();
    }
  }

  it('407 is a network error naming the proxy (without its password) and its status, asking for credentials, not a cancel', async () => {
    const err = await listVia(407, (url) => url.replace('http://', 'http://alice:pw-51f7@'));
    assert.equal(err.kind, 'network');
    assert.equal(isCancelled(err), false);
    const port = new URL(refusing?.url ?? '').port;
    assert.match(err.message, new RegExp(`^Sign-in could not reach https://gateway\\.proxy-test\\.invalid/ids/auth/login: the proxy http://\\*\\*\\*@127\\.0\\.0\\.1:${port} refused to open a connection to it \\(the proxy answered HTTP 407\\)`));
    assert.match(err.hint ?? '', /proxy wants credentials: put user:password@ before the host in the proxy URL, or set them in the proxy settings/);
    // as the person reads it (the dq line, the log): the advice survives the masking of user info
    assert.match(redact(err.describe()), /put user:password@ before the host/);
    assert.doesNotMatch(err.describe(), /pw-51f7|alice|cancel/i);
    assert.equal(refusing?.requests, 1, 'a refusal is not tried again');
  });

  for (const status of [403, 502]) {
    it(`${status} is a network error naming the status, asking to check the proxy`, async () => {
      const err = await listVia(status, (url) => url);
      assert.equal(err.kind, 'network');
      assert.equal(isCancelled(err), false);
      assert.match(err.message, new RegExp(`the proxy http://127\\.0\\.0\\.1:\\d+ refused to open a connection to it \\(the proxy answered HTTP ${status}\\)`));
      assert.match(err.hint ?? '', /Check the proxy settings/);
    });
  }

  it('undici\'s own refusal error (an AbortError) is not taken for a cancel', async () => {
    refusing = await new RefusingProxy(407).start();
    const agent = new EnvHttpProxyAgent({ httpProxy: refusing.url, httpsProxy: refusing.url, noProxy: '' });
    try {
      const raw = await request('https://gateway.proxy-test.invalid/', { dispatcher: agent }).then(
        () => assert.fail('expected the request to fail'),
        (e: unknown) => e,
      );
      assert.equal((raw as Error).name, 'AbortError', 'undici names it like a cancel');
      assert.equal(isCancelled(raw), false);
    } finally {
      await agent.close();
    }
  });
});
