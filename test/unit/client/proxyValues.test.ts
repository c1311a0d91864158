// Proxy values as people write them: `host:port` as curl takes it, and a clear refusal of the
// rest that names where the value came from and never shows its password.

import * as assert from 'node:assert/strict';
import { createDispatcher, parseProxyUrl, resolveProxy } from '../../../src/client/dispatcher';
import { isDqError } from '../../../src/client/errors';

/** The usage error resolveProxy throws for these options. */
function refusal(options: Parameters<typeof resolveProxy>[0]): string {
  try {
    resolveProxy(options);
  } catch (err) {
    assert.ok(isDqError(err), String(err));
    assert.equal(err.kind, 'usage');
    return err.describe();
  }
  assert.fail('the value was accepted');
}

describe('proxy values', () => {
  it('takes host:port (with or without user info) as an http proxy, and http(s) URLs as given', () => {
    assert.deepEqual(parseProxyUrl('proxy.corp:3128'), { url: 'http://proxy.corp:3128' });
    assert.deepEqual(parseProxyUrl(' alice:pw@10.0.0.1:8080 '), { url: 'http://alice:pw@10.0.0.1:8080' });
    assert.deepEqual(parseProxyUrl('[::1]:3128'), { url: 'http://[::1]:3128' });
    assert.deepEqual(parseProxyUrl('https://proxy.corp'), { url: 'https://proxy.corp' });
    assert.deepEqual(resolveProxy({ env: { HTTPS_PROXY: 'proxy.corp:3128' } }), { httpProxy: undefined, httpsProxy: 'http://proxy.corp:3128', noProxy: '' });
    assert.deepEqual(resolveProxy({ url: 'proxy.corp:3128', env: {} }), { httpProxy: 'http://proxy.corp:3128', httpsProxy: 'http://proxy.corp:3128', noProxy: '' });
  });

  it('builds a dispatcher from host:port instead of failing', async () => {
    const dispatcher = createDispatcher({ env: { HTTPS_PROXY: 'proxy.corp:3128', HTTP_PROXY: 'proxy.corp:3128' } });
    await dispatcher.close();
  });

  it('refuses an unusable value as a usage error naming the variable it came from and the expected form', () => {
    const https = refusal({ env: { HTTPS_PROXY: 'proxy.corp' } });
    assert.match(https, /^usage: HTTPS_PROXY "proxy\.corp" is not a usable proxy: it names no port\. Give the proxy as http:\/\/host:port or host:port/);
    assert.match(refusal({ env: { http_proxy: 'not a url' } }), /^usage: http_proxy "not a url" is not a usable proxy: it is not a URL\./);
    assert.match(refusal({ env: { HTTP_PROXY: 'socks5://p:1080' } }), /HTTP_PROXY "socks5:\/\/p:1080" is not a usable proxy: socks5:\/\/ proxies are not supported/);
    assert.match(refusal({ url: 'proxy corp:1', env: {} }), /^usage: The proxy URL "proxy corp:1" is not a usable proxy/);
  });

  it('never shows the password of a refused value', () => {
    for (const value of ['alice:s3cret@proxy.corp', 'http://alice:s3cret@proxy corp:1', 'alice:s3c@ret@proxy.corp']) {
      const said = refusal({ env: { HTTPS_PROXY: value } });
      assert.doesNotMatch(said, /s3c/, said);
      assert.match(said, /\*\*\*@proxy/, said);
    }
  });
});
