import * as assert from 'node:assert/strict';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { createDispatcher, resolveProxy } from '../../../src/client/dispatcher';
import type { ProxyOptions } from '../../../src/client/types';
import { LoopbackProxy } from '../../support/loopbackProxy';
import { LoopbackService } from '../../support/loopbackServer';

describe('proxy handling', function () {
  this.timeout(20_000);
  let service: LoopbackService;
  let proxy: LoopbackProxy;

  beforeEach(async () => {
    service = await new LoopbackService().start();
    proxy = await new LoopbackProxy().start();
  });

  afterEach(async () => {
    await service.close();
    await proxy.close();
  });

  async function listThrough(options: ProxyOptions): Promise<string[]> {
    const dispatcher = createDispatcher(options);
    const client = new DataQueryClient({
      baseUrl: service.gatewayUrl,
      credentials: async () => ({ clientId: 'id', clientSecret: 'secret' }),
      dispatcher,
    });
    try {
      return await client.listTables('canvas');
    } finally {
      await client.close();
      await dispatcher.close();
    }
  }

  const gatewayHost = (): string => new URL(service.gatewayUrl).host;

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

  it('bypasses the proxy for NO_PROXY hosts', async () => {
    assert.deepEqual(await listThrough({ env: { HTTP_PROXY: proxy.url, NO_PROXY: 'example.org, 127.0.0.1' } }), ['accounts', 'courses']);
    assert.equal(proxy.tunnels.length, 0);
  });

  it('an explicit proxy URL wins over the environment, and noProxy from options applies', async () => {
    await listThrough({ url: proxy.url, env: { HTTP_PROXY: 'http://127.0.0.1:9' } });
    assert.ok(proxy.tunnels.length > 0);
    const before = proxy.tunnels.length;
    await listThrough({ url: proxy.url, noProxy: ['127.0.0.1'] });
    assert.equal(proxy.tunnels.length, before);
  });

  it('goes direct when no proxy is configured or the environment is switched off', async () => {
    await listThrough({ env: {} });
    await listThrough({ env: { HTTP_PROXY: proxy.url }, useEnvironment: false });
    assert.equal(proxy.tunnels.length, 0);
  });

  it('resolves the proxy settings the way the environment conventions say', () => {
    assert.equal(resolveProxy({ env: {} }), undefined);
    assert.deepEqual(resolveProxy({ env: { HTTPS_PROXY: 'http://p:1' } }), { httpProxy: undefined, httpsProxy: 'http://p:1', noProxy: '' });
    assert.deepEqual(resolveProxy({ env: { HTTP_PROXY: 'http://p:1', no_proxy: 'a,b' } }), { httpProxy: 'http://p:1', httpsProxy: 'http://p:1', noProxy: 'a,b' });
    assert.deepEqual(resolveProxy({ url: 'http://q:2', noProxy: ['x', 'y'], env: { HTTPS_PROXY: 'http://p:1' } }), { httpProxy: 'http://q:2', httpsProxy: 'http://q:2', noProxy: 'x,y' });
  });
});
