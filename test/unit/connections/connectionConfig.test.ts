// How entries of the dataQuery.connections setting are read: defaults filled in, mistakes
// reported by entry, and written back without repeating the defaults.

import * as assert from 'node:assert/strict';
import {
  DEFAULT_NAMESPACES,
  parseConnections,
  toSettingEntry,
  uniqueName,
} from '../../../src/extension/connections/connectionConfig';

describe('dataQuery.connections setting', () => {
  it('fills in the data prefix and namespaces a person left out', () => {
    const { connections, problems } = parseConnections([{ name: 'Prod', baseUrl: 'https://api.example.com/' }]);
    assert.deepEqual(problems, []);
    assert.deepEqual(connections, [
      {
        kind: 'remote',
        name: 'Prod',
        baseUrl: 'https://api.example.com',
        dataPrefix: 'dap',
        namespaces: [...DEFAULT_NAMESPACES],
        scope: undefined,
        allowInsecureHttp: false,
      },
    ]);
  });

  it('skips entries it cannot use and says which and why', () => {
    const { connections, problems } = parseConnections([
      { name: 'A', baseUrl: 'https://a.example.com' },
      { name: 'A', baseUrl: 'https://b.example.com' },
      { name: 'Secret in URL', baseUrl: 'https://id:secret@c.example.com' },
      'not an object',
    ]);
    assert.deepEqual(connections.map((c) => c.name), ['A']);
    assert.equal(problems.length, 3);
    assert.match(problems[0], /"A" is used twice/);
    assert.match(problems[1], /Do not put credentials in the URL/);
    assert.doesNotMatch(problems.join(' '), /secret@/, 'the typed secret is not repeated');
    assert.match(problems[2], /entry 4 is not an object/);
  });

  it('writes entries back without defaults and never with credentials', () => {
    const [remote] = parseConnections([{ name: 'P', baseUrl: 'https://p.example.com', scope: 'acct-1' }]).connections;
    assert.deepEqual(toSettingEntry(remote), { name: 'P', baseUrl: 'https://p.example.com', scope: 'acct-1' });
    assert.deepEqual(toSettingEntry({ kind: 'sample', name: 'Sample data' }), { name: 'Sample data', sample: true });
  });

  it('picks a free name for a second sample connection', () => {
    assert.equal(uniqueName('Sample data', ['Sample data', 'Sample data 2']), 'Sample data 3');
  });
});
