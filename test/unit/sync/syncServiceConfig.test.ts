// The service a sync of a connection reaches, and the source its tables record: a remote
// connection's with a tag of the client ID read with its credentials at the run (two
// institutions on one gateway differ only there), the sample data's a fixed name; and what the
// explorer knows of it from the connection alone, without reading a secret.

import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { RemoteConnection } from '../../../src/extension/connections/connectionConfig';
import { SAMPLE_DATA_SOURCE, syncServiceConfig, syncSourceOf, type ServiceConfigDeps } from '../../../src/extension/sync/syncServiceConfig';

const sha12 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 12);

function connection(name: string, more: Partial<RemoteConnection> = {}): RemoteConnection {
  return { kind: 'remote', name, baseUrl: 'https://gateway.example.edu/', dataPrefix: 'dap', namespaces: ['canvas'], allowInsecureHttp: false, ...more };
}

function deps(secrets: Record<string, { clientId: string; clientSecret: string }>, read: string[] = []): ServiceConfigDeps {
  return {
    sample: async () => ({ baseUrl: 'http://127.0.0.1:41234', dataPrefix: 'dap', clientId: 'emu-0123456789ab', clientSecret: 'emu-secret' }),
    credentials: async (c) => {
      read.push(c.name);
      return secrets[c.name];
    },
    proxySettings: () => ({}),
    rateLimits: () => ({}),
    userAgent: 'test',
  };
}

describe('the service and source of a connection\'s syncs', () => {
  const secrets = {
    'Institution A': { clientId: 'inst-a-client', clientSecret: 'inst-a-secret' },
    'Institution B': { clientId: 'inst-b-client', clientSecret: 'inst-b-secret' },
  };

  it('records two connections to one gateway, without scope, as two sources: a tag of each client ID, never the ID or the secret', async () => {
    const a = await syncServiceConfig(connection('Institution A'), deps(secrets));
    const b = await syncServiceConfig(connection('Institution B'), deps(secrets));
    assert.equal(a.source, `https://gateway.example.edu/dap?client=${sha12('inst-a-client')}`);
    assert.equal(b.source, `https://gateway.example.edu/dap?client=${sha12('inst-b-client')}`);
    assert.deepEqual([a.clientId, a.clientSecret], ['inst-a-client', 'inst-a-secret'], 'the host signs in with them');
    for (const config of [a, b]) assert.doesNotMatch(config.source ?? '', /inst-/);
    const scoped = await syncServiceConfig(connection('Institution A', { scope: 'acct-7' }), deps(secrets));
    assert.equal(scoped.source, `https://gateway.example.edu/dap?scope=acct-7&client=${sha12('inst-a-client')}`);
  });

  it('gives the sample data its fixed source, whatever the emulator\'s port and credentials', async () => {
    const read: string[] = [];
    const sample = await syncServiceConfig({ kind: 'sample', name: 'Sample data' }, deps(secrets, read));
    assert.equal(sample.source, SAMPLE_DATA_SOURCE);
    assert.equal(sample.source, 'sample data');
    assert.equal(syncSourceOf({ kind: 'sample', name: 'Sample data' }, 'emu-0123456789ab'), 'sample data');
    assert.deepEqual(read, [], 'no stored credentials were read');
  });

  it('without the client ID (the explorer reads no secrets), names the service alone; with it, what a run records', async () => {
    assert.equal(syncSourceOf(connection('Institution A')), 'https://gateway.example.edu/dap');
    assert.equal(syncSourceOf(connection('Institution A', { scope: 'acct-7' })), 'https://gateway.example.edu/dap?scope=acct-7');
    assert.equal(syncSourceOf(connection('Institution A'), 'inst-a-client'), (await syncServiceConfig(connection('Institution A'), deps(secrets))).source);
  });
});
