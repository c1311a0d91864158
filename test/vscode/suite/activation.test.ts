// The extension activates in real VS Code, registers what it contributes, and starts from
// the welcome view (no connection) until a connection is added.

import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateExtension, connectionsSetting, labels, setConnections } from './vscodeHelpers';

describe('Data Query Explorer in VS Code', () => {
  afterEach(async () => {
    await setConnections(undefined);
  });

  it('activates and hands out its explorer', async () => {
    const { extension, api } = await activateExtension();
    assert.equal(extension.isActive, true);
    assert.equal(typeof api.explorer.getChildren, 'function');
  });

  it('registers every command it contributes', async () => {
    const { extension } = await activateExtension();
    const contributed = (extension.packageJSON.contributes.commands as { command: string }[]).map((c) => c.command);
    assert.ok(contributed.includes('dataQuery.addConnection'), 'Add Connection is contributed');
    assert.ok(contributed.includes('dataQuery.trySampleData'), 'Try Sample Data is contributed');
    assert.ok(contributed.includes('dataQuery.refresh'), 'Refresh is contributed');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], 'contributed commands without a handler');
  });

  it('shows no tree items without connections, so the welcome view appears', async () => {
    const { api } = await activateExtension();
    await setConnections([]);
    assert.deepEqual(await api.explorer.getChildren(), []);
  });

  it('Try Sample Data adds a sample connection to the user settings and the tree', async () => {
    const { api } = await activateExtension();
    await vscode.commands.executeCommand('dataQuery.trySampleData');
    assert.deepEqual(connectionsSetting(), [{ name: 'Sample data', sample: true }]);
    const roots = await api.explorer.getChildren();
    assert.deepEqual(labels(api, roots), ['Sample data']);
    // a second click does not add a second sample connection
    await vscode.commands.executeCommand('dataQuery.trySampleData');
    assert.deepEqual(connectionsSetting(), [{ name: 'Sample data', sample: true }]);
  });

  it('lists broken setting entries as error nodes that open the settings', async () => {
    const { api } = await activateExtension();
    await setConnections([{ name: 'No URL' }]);
    const roots = await api.explorer.getChildren();
    assert.equal(roots.length, 1);
    const item = api.explorer.getTreeItem(roots[0]);
    assert.match(String(item.label), /No URL.*baseUrl/);
    assert.equal(item.command?.command, 'workbench.action.openSettingsJson');
  });
});
