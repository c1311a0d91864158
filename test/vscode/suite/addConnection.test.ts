// dataQuery.addConnection driven by its argument object, against emulators: the same test
// as the prompts (a token request) decides, secrets go to SecretStorage and the rest to the
// settings, and plain http to another machine needs the same opt-in as dq.

import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { activateExtension, addEmulatorConnection, connectionsSetting, labels, requestsOf, setConnections } from './vscodeHelpers';

/** This machine's address on its network: plain http to it is not loopback. */
function networkAddress(): string {
  const address = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  if (!address) throw new Error('This machine has no non-loopback IPv4 address to test plain http with.');
  return address;
}

describe('Add Connection with an argument object', () => {
  let emulator: RunningEmulator;

  before(async () => {
    emulator = await startEmulator({ port: 0 });
  });

  afterEach(async () => {
    await setConnections(undefined);
  });

  after(async () => {
    await emulator.close();
  });

  it('tests the connection, keeps the secret out of the settings and lists its tables', async () => {
    const { api } = await activateExtension();
    await setConnections([]);
    const signIns = requestsOf(emulator, 'token');
    const result = await addEmulatorConnection(emulator, 'Added by args', { namespaces: ['canvas'], scope: 'acct-1' });
    assert.deepEqual(result, { name: 'Added by args' });
    assert.ok(requestsOf(emulator, 'token') > signIns, 'the connection was tested with a token request');
    assert.deepEqual(connectionsSetting(), [
      { name: 'Added by args', baseUrl: emulator.baseUrl, namespaces: ['canvas'], scope: 'acct-1' },
    ]);
    assert.doesNotMatch(JSON.stringify(vscode.workspace.getConfiguration('dataQuery').get('connections')), new RegExp(emulator.clientSecret));

    const [connection] = await api.explorer.getChildren();
    const [canvas] = await api.explorer.getChildren(connection);
    const tables = await api.explorer.getChildren(canvas);
    assert.ok(tables.length > 0 && tables.every((t) => t.kind === 'table'), `tables, not ${labels(api, tables).join(', ')}`);
  });

  it('rejects a wrong secret with the reason and saves nothing', async () => {
    await activateExtension();
    await setConnections([]);
    await assert.rejects(
      Promise.resolve(addEmulatorConnection(emulator, 'Wrong secret', { clientSecret: 'not-the-secret' })),
      /Could not connect to "Wrong secret"/,
    );
    assert.deepEqual(connectionsSetting(), []);
  });

  it('refuses plain http to another machine unless allowInsecureHttp is passed', async () => {
    const address = networkAddress();
    const remote = await startEmulator({ port: 0, host: address, allowNonLoopback: true });
    try {
      const { api } = await activateExtension();
      await setConnections([]);
      assert.match(remote.baseUrl, /^http:\/\/(?!127\.)/);
      await assert.rejects(
        Promise.resolve(addEmulatorConnection(remote, 'Plain http')),
        (err: Error) => /Refusing plain http/.test(err.message) && /allowInsecureHttp: true/.test(err.message),
      );
      assert.deepEqual(connectionsSetting(), []);
      assert.equal(requestsOf(remote, 'token'), 0, 'refused before any request');

      await addEmulatorConnection(remote, 'Plain http', { allowInsecureHttp: true, namespaces: ['canvas'] });
      assert.deepEqual(connectionsSetting(), [
        { name: 'Plain http', baseUrl: remote.baseUrl, namespaces: ['canvas'], allowInsecureHttp: true },
      ]);
      const [connection] = await api.explorer.getChildren();
      const [canvas] = await api.explorer.getChildren(connection);
      assert.ok((await api.explorer.getChildren(canvas)).every((t) => t.kind === 'table'));
    } finally {
      await remote.close();
    }
  });

  it('rejects arguments it cannot use, saying which', async () => {
    await activateExtension();
    await setConnections([{ name: 'Taken', sample: true }]);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: 'Taken' }, /"Taken" already exists/],
      [{ baseUrl: 'ftp://example.com' }, /https:\/\//],
      [{ clientSecret: '' }, /"clientId" and "clientSecret"/],
    ];
    for (const [args, message] of cases) {
      await assert.rejects(Promise.resolve(addEmulatorConnection(emulator, 'Fine name', args)), message);
    }
    assert.deepEqual(connectionsSetting(), [{ name: 'Taken', sample: true }]);
  });
});
