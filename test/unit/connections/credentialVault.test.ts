// Stored credentials are bound to the service they were saved for: a connection pointed at
// another base URL does not get them, records saved before binding are bound on first read,
// and secrets of connections that left the settings are deleted, also while one is added.
// SecretStorage and global state are in-memory stand-ins that keep only strings, as VS Code does.

import * as assert from 'node:assert/strict';
import { nullLogger } from '../../../src/core/logger';
import { parseConnections, type RemoteConnection } from '../../../src/extension/connections/connectionConfig';
import { serviceAddress } from '../../../src/extension/connections/credentialBinding';
import { CredentialVault, secretKey } from '../../../src/extension/connections/credentialVault';
import { MemoryStorage } from '../jobs/memoryStorage';
import { MemorySecrets } from './memorySecrets';

function remote(name: string, baseUrl: string): RemoteConnection {
  return parseConnections([{ name, baseUrl }]).connections[0] as RemoteConnection;
}

const CREDENTIALS = { clientId: 'id-1', clientSecret: 'secret-1' };

function settingsOf(...connections: RemoteConnection[]): () => { names: Set<string>; connections: RemoteConnection[] } {
  return () => ({ names: new Set(connections.map((c) => c.name)), connections });
}

describe('Stored credentials and the service they were saved for', () => {
  let secrets: MemorySecrets;
  let state: MemoryStorage;
  let vault: CredentialVault;

  beforeEach(() => {
    secrets = new MemorySecrets();
    state = new MemoryStorage();
    vault = new CredentialVault(secrets, state, nullLogger);
  });

  it('gives them to the connection at the base URL they were saved for, and not after it points elsewhere', async () => {
    const saved = remote('Prod', 'https://api.example.com');
    await vault.save(saved, CREDENTIALS);
    assert.deepEqual(await vault.credentials(saved), CREDENTIALS);
    assert.deepEqual(await vault.credentials(remote('Prod', 'https://API.example.com:443/')), CREDENTIALS, 'the same service written differently');

    const moved = remote('Prod', 'https://other.example.net');
    assert.equal(await vault.credentials(moved), undefined);
    const found = await vault.stateOf(moved);
    assert.equal(found.state, 'elsewhere');
    assert.equal(found.state === 'elsewhere' && found.savedFor, 'https://api.example.com');
    assert.equal(await vault.credentials(remote('Prod', 'https://api.example.com/other-path')), undefined, 'another path is another service');
  });

  it('binds a record saved before binding to the base URL the connection has when it is first read', async () => {
    await secrets.store(secretKey('Old'), JSON.stringify(CREDENTIALS));
    assert.deepEqual(await vault.credentials(remote('Old', 'https://old.example.com/')), CREDENTIALS);
    const rewritten = JSON.parse(secrets.values.get(secretKey('Old')) ?? '{}') as Record<string, unknown>;
    assert.equal(rewritten.boundTo, 'https://old.example.com', 'saved again, bound');
    assert.deepEqual(vault.names(), ['Old'], 'listed, so it is deleted with its connection');
    assert.equal(await vault.credentials(remote('Old', 'https://new.example.com')), undefined, 'bound from then on');
  });

  it('deletes the credentials of connections no longer in the settings and keeps the others', async () => {
    const kept = remote('Kept', 'https://a.example.com');
    const gone = remote('Gone', 'https://b.example.com');
    await vault.save(kept, CREDENTIALS);
    await vault.save(gone, CREDENTIALS);
    assert.deepEqual(await vault.prune(settingsOf(kept)), ['Gone']);
    assert.equal(secrets.values.has(secretKey('Gone')), false, 'the secret is deleted');
    assert.deepEqual(vault.names(), ['Kept']);
    assert.equal(await vault.credentials(gone), undefined, 'a later entry with the same name finds nothing');
    assert.deepEqual(await vault.credentials(kept), CREDENTIALS);
  });

  it('lists, on clean-up, connections whose credentials predate the list, so they can be deleted later', async () => {
    const old = remote('Old', 'https://old.example.com');
    await secrets.store(secretKey('Old'), JSON.stringify(CREDENTIALS));
    await vault.prune(settingsOf(old));
    assert.deepEqual(vault.names(), ['Old']);
    await vault.prune(settingsOf());
    assert.equal(secrets.values.has(secretKey('Old')), false);
  });

  it('does not delete the credentials of a connection being added when a clean-up starts meanwhile', async () => {
    const added = remote('New', 'https://new.example.com');
    let inSettings: RemoteConnection[] = [];
    let finishWrite: () => void = () => undefined;
    const writing = new Promise<void>((resolve) => (finishWrite = resolve));
    const saving = vault.save(added, CREDENTIALS, async () => {
      await writing;
      inSettings = [added];
    });
    // a settings change (another entry edited) asks for a clean-up while the entry is being written
    const pruning = vault.prune(() => settingsOf(...inSettings)());
    finishWrite();
    await saving;
    assert.deepEqual(await pruning, []);
    assert.deepEqual(await vault.credentials(added), CREDENTIALS);
  });

  it('reads the bound address as origin and path', () => {
    assert.equal(serviceAddress('HTTPS://Api.Example.com:443/gw/'), 'https://api.example.com/gw');
    assert.equal(serviceAddress('http://127.0.0.1:8080'), 'http://127.0.0.1:8080');
  });
});
