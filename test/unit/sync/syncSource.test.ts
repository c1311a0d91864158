// The source a sync records for a table: one text per service and credentials, equal however
// its address is written, different for another gateway, data prefix, scope or client ID, and
// never holding a credential (of the client ID, only a tag of its hash).

import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { clientTag, clientTagOfSource, compareSources, serviceOfSource, sourceIdentity } from '../../../src/sync/syncSource';

const sha12 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 12);

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

  it('tells apart two sets of credentials on one gateway by the first 12 hex digits of the SHA-256 of the client ID', () => {
    const service = { baseUrl: 'https://api.example.com', dataPrefix: 'dap' };
    const a = sourceIdentity({ ...service, clientId: 'institution-a' });
    const b = sourceIdentity({ ...service, clientId: 'institution-b' });
    assert.equal(a, `https://api.example.com/dap?client=${sha12('institution-a')}`);
    assert.equal(b, `https://api.example.com/dap?client=${sha12('institution-b')}`);
    assert.equal(clientTag('institution-a'), sha12('institution-a'));
    assert.equal(sourceIdentity({ ...service, scope: 'acct-7', clientId: 'institution-a' }), `https://api.example.com/dap?scope=acct-7&client=${sha12('institution-a')}`);
    assert.equal(sourceIdentity({ ...service, clientId: ' institution-a ' }), a, 'the ID as typed, spaces around it aside');
    assert.equal(sourceIdentity({ ...service, clientId: '' }), 'https://api.example.com/dap', 'no client ID: the service alone');
    for (const source of [a, b]) assert.ok(!source.includes('institution'), source);

    assert.equal(serviceOfSource(a), 'https://api.example.com/dap');
    assert.equal(serviceOfSource(`https://api.example.com/dap?scope=acct-7&client=${sha12('x')}`), 'https://api.example.com/dap?scope=acct-7');
    assert.equal(serviceOfSource('sample data'), 'sample data');
    assert.equal(clientTagOfSource(a), sha12('institution-a'));
    assert.equal(clientTagOfSource('https://api.example.com/dap?scope=acct-7'), undefined);
    assert.equal(clientTagOfSource(sourceIdentity({ ...service, scope: 'client=0123456789ab' })), undefined, 'a scope never reads as a client tag');
  });

  it('lets a run go on from its own source, adopts one of its service written before client tags were, and refuses the rest', () => {
    const service = { baseUrl: 'https://api.example.com', dataPrefix: 'dap' };
    const a = sourceIdentity({ ...service, clientId: 'institution-a' });
    const b = sourceIdentity({ ...service, clientId: 'institution-b' });
    const scoped = (clientId: string): string => sourceIdentity({ ...service, scope: 'acct-7', clientId });
    assert.equal(compareSources(a, a), 'same');
    assert.equal(compareSources(undefined, a), 'adopt', 'a row from before sources were recorded');
    assert.equal(compareSources('https://api.example.com/dap', a), 'adopt', 'a row from before client tags were');
    assert.equal(compareSources('https://api.example.com/dap?scope=acct-7', scoped('institution-a')), 'adopt');
    assert.equal(compareSources(b, a), 'otherCredentials', 'two institutions on one public gateway');
    assert.equal(compareSources(scoped('institution-b'), scoped('institution-a')), 'otherCredentials');
    assert.equal(compareSources(a, 'https://api.example.com/dap'), 'otherCredentials', 'a run must name its credentials to go on from a tagged row');
    assert.equal(compareSources('https://api.example.org/dap', a), 'otherService', 'a row without tag of another service is not adopted');
    assert.equal(compareSources(scoped('institution-a'), a), 'otherService', 'another scope');
    assert.equal(compareSources('https://api.example.com/dap?scope=acct-7', a), 'otherService');
    assert.equal(compareSources('sample data', a), 'otherService');
    assert.equal(compareSources('sample data', 'sample data'), 'same');
  });

  it('never holds a user name or password written into the address', () => {
    const source = sourceIdentity({ baseUrl: 'https://client:s3cret@api.example.com/gw?token=x#y', dataPrefix: 'dap' });
    assert.equal(source, 'https://api.example.com/gw/dap');
  });
});
