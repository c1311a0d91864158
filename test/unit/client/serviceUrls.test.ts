// Which hosts count as this machine, for plain http without opting in (and for going around
// a proxy): `localhost` and literal loopback addresses only. A name under `.localhost` is
// looked up like any other, so a resolver could send it, and the credentials, elsewhere.

import * as assert from 'node:assert/strict';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { isDqError } from '../../../src/client/errors';
import { checkBaseUrl, checkUrl, isLoopbackHost } from '../../../src/client/serviceUrls';

describe('loopback hosts', () => {
  it('counts localhost, 127.0.0.0/8 and ::1 as this machine, as URLs spell them', () => {
    for (const url of ['http://localhost:1', 'http://LOCALHOST:1', 'http://127.0.0.1:1', 'http://127.5.0.1:1', 'http://127.1:1', 'http://[::1]:1', 'http://[0:0:0:0:0:0:0:1]:1', 'http://[::ffff:127.0.0.1]:1']) {
      assert.equal(isLoopbackHost(new URL(url).hostname), true, url);
    }
  });

  it('does not count names under .localhost, other addresses or look-alike names', () => {
    for (const url of ['http://gateway.localhost:1', 'http://a.b.LOCALHOST:1', 'http://localhost.:1', 'http://localhost.example.com:1', 'http://127.0.0.1.nip.io:1', 'http://10.0.0.1:1', 'http://0.0.0.0:1', 'http://[::2]:1', 'http://[::ffff:10.0.0.1]:1']) {
      assert.equal(isLoopbackHost(new URL(url).hostname), false, url);
    }
  });

  it('refuses plain http to a name under .localhost unless insecure http is allowed', async () => {
    for (const check of [() => checkBaseUrl('http://gateway.localhost:8080', false), () => checkUrl('http://objects.localhost:9000/o?sig=x', false, 'download link')]) {
      assert.throws(check, (e: unknown) => isDqError(e) && e.kind === 'insecure');
    }
    assert.equal(checkBaseUrl('http://gateway.localhost:8080', true).hostname, 'gateway.localhost');
    assert.equal(checkBaseUrl('http://localhost:8080', false).hostname, 'localhost');
    const client = new DataQueryClient({ baseUrl: 'http://gateway.localhost:1', credentials: async () => ({ clientId: 'id', clientSecret: 'secret' }) });
    try {
      await assert.rejects(client.testConnection(), (e: unknown) => isDqError(e) && e.kind === 'insecure' && /gateway\.localhost/.test(e.message));
    } finally {
      await client.close();
    }
  });
});
