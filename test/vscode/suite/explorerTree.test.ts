// The explorer tree against real services: the sample connection runs the emulator inside
// the extension host; another emulator started here stands for a remote service.

import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { tablesOf } from '../../support/emulatorTables';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import type { ExplorerNode } from '../../../src/extension/explorer/explorerNodes';
import { activateExtension, labels, requestsOf, setConnections } from './vscodeHelpers';

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

  it('shows missing credentials on the connection itself, with Set Credentials, and sends nothing', async () => {
    const { api, extension } = await activateExtension();
    await setConnections([{ name: 'No secrets yet', baseUrl: reference.baseUrl, dataPrefix: reference.dataPrefix }]);
    const signIns = requestsOf(reference, 'token');
    const [connection] = await api.explorer.getChildren();
    const item = api.explorer.getTreeItem(connection);
    assert.equal(item.label, 'No secrets yet');
    assert.match(String(item.description), /no credentials/);
    assert.equal(item.collapsibleState, vscode.TreeItemCollapsibleState.None, 'no namespaces to open without credentials');
    assert.equal(item.command?.command, 'dataQuery.setCredentials');
    assert.deepEqual(item.command?.arguments, [connection]);
    const menus = extension.packageJSON.contributes.menus['view/item/context'] as { command: string; when: string; group: string }[];
    const inline = menus.find((m) => m.command === 'dataQuery.setCredentials' && m.group.startsWith('inline'));
    assert.ok(inline?.when.includes(`viewItem == ${String(item.contextValue)}`), 'Set Credentials is its inline action');
    assert.equal(requestsOf(reference, 'token'), signIns, 'no token request is sent without credentials');
  });
});
