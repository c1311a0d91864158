// The source a sync records for a table: one text per service, equal however its address is
// written, different for another gateway, data prefix or scope, and never holding a credential.

import * as assert from 'node:assert/strict';
import { sourceIdentity } from '../../../src/sync/syncSource';

describe('the source of synced tables', () => {
  it('is the same service however its address is written', () => {
    const plain = sourceIdentity({ baseUrl: 'https://api.example.com', dataPrefix: 'dap' });
    assert.equal(plain, 'https://api.example.com/dap');
    for (const baseUrl of ['https://API.Example.com/', 'https://api.example.com:443', ' https://api.example.com// ']) {
      assert.equal(sourceIdentity({ baseUrl, dataPrefix: '/dap/' }), plain, baseUrl);
    }
    assert.equal(sourceIdentity({ baseUrl: 'https://api.example.com', dataPrefix: 'dap', scope: '' }), plain, 'an empty scope is the credentials\' own');
  });

  it('tells apart another gateway, data prefix or scope', () => {
    const sources = new Set([
      sourceIdentity({ baseUrl: 'https://api.example.com', dataPrefix: 'dap' }),
      sourceIdentity({ baseUrl: 'https://api.example.org', dataPrefix: 'dap' }),
      sourceIdentity({ baseUrl: 'http://127.0.0.1:8787', dataPrefix: 'dap' }),
      sourceIdentity({ baseUrl: 'http://127.0.0.1:8788', dataPrefix: 'dap' }),
      sourceIdentity({ baseUrl: 'https://api.example.com', dataPrefix: 'dap2' }),
      sourceIdentity({ baseUrl: 'https://api.example.com', dataPrefix: 'dap', scope: 'acct-1' }),
      sourceIdentity({ baseUrl: 'https://api.example.com', dataPrefix: 'dap', scope: 'acct-2' }),
    ]);
    assert.equal(sources.size, 7);
    assert.equal(sourceIdentity({ baseUrl: 'https://api.example.com', dataPrefix: 'dap', scope: 'a b' }), 'https://api.example.com/dap?scope=a%20b');
  });

  it('never holds a user name or password written into the address', () => {
    const source = sourceIdentity({ baseUrl: 'https://client:s3cret@api.example.com/gw?token=x#y', dataPrefix: 'dap' });
    assert.equal(source, 'https://api.example.com/gw/dap');
  });
});
