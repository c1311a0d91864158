// The explorer tree against real services: the sample connection runs the emulator inside
// the extension host; another emulator started here stands for a remote service.

import * as assert from 'node:assert/strict';
import { tablesOf } from '../../support/emulatorTables';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import type { ExplorerNode } from '../../../src/extension/explorer/explorerNodes';
import { activateExtension, labels, setConnections } from './vscodeHelpers';

describe('Explorer tree', () => {
  let reference: RunningEmulator;

  before(async () => {
    reference = await startEmulator({ port: 0 });
  });

  after(async () => {
    await setConnections(undefined);
    await reference.close();
  });

  it('shows the emulator\'s namespaces under the sample connection, and their tables', async () => {
    const { api } = await activateExtension();
    await setConnections([{ name: 'Sample data', sample: true }]);
    const [sample] = await api.explorer.getChildren();
    assert.equal(sample.kind, 'connection');
    const namespaces = await api.explorer.getChildren(sample);
    assert.deepEqual(labels(api, namespaces), reference.namespaces);

    const first = namespaces[0];
    const tables = await api.explorer.getChildren(first);
    const expected = [...(await tablesOf(reference, reference.namespaces[0]))].sort((a, b) => a.localeCompare(b));
    assert.ok(expected.length > 0);
    assert.deepEqual(labels(api, tables), expected);
    assert.ok(tables.every((t: ExplorerNode) => t.kind === 'table'));
  });

  it('offers Set Credentials when a connection has none stored', async () => {
    const { api } = await activateExtension();
    await setConnections([{ name: 'No secrets yet', baseUrl: reference.baseUrl, dataPrefix: reference.dataPrefix }]);
    const loginsBefore = reference.requestLog.entries().filter((e) => e.path.endsWith('/ids/auth/login')).length;
    const [connection] = await api.explorer.getChildren();
    const [namespace] = await api.explorer.getChildren(connection);
    const children = await api.explorer.getChildren(namespace);
    assert.equal(children.length, 1);
    assert.equal(children[0].kind, 'error');
    const item = api.explorer.getTreeItem(children[0]);
    assert.match(String(item.label), /No client ID and secret are stored for the connection "No secrets yet"/);
    assert.equal(item.command?.command, 'dataQuery.setCredentials');
    const loginsAfter = reference.requestLog.entries().filter((e) => e.path.endsWith('/ids/auth/login')).length;
    assert.equal(loginsAfter, loginsBefore, 'no token request is sent without credentials');
  });
});
