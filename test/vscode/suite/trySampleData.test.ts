// "Try Sample Data" when the sample connection already exists: the explorer shows it,
// selected and expanded, instead of doing nothing visible.

import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExplorerNode } from '../../../src/extension/explorer/explorerNodes';
import { activateExtension, connectionsSetting, labels, setConnections } from './vscodeHelpers';

function next<T>(event: vscode.Event<T>): Promise<T> {
  return new Promise((resolve) => {
    const listener = event((e) => {
      listener.dispose();
      resolve(e);
    });
  });
}

describe('Try Sample Data', () => {
  afterEach(async () => {
    await setConnections(undefined);
  });

  it('reveals the sample connection that exists: selected and expanded', async () => {
    const { api } = await activateExtension();
    const connections = [
      { name: 'Elsewhere', baseUrl: 'https://elsewhere.example.com' },
      { name: 'Sample data', sample: true },
    ];
    await setConnections(connections);
    const selected = next(api.explorerView.onDidChangeSelection);
    const expanded = next(api.explorerView.onDidExpandElement);
    await vscode.commands.executeCommand('dataQuery.trySampleData');
    assert.deepEqual(labels(api, (await selected).selection as ExplorerNode[]), ['Sample data']);
    assert.deepEqual(labels(api, [(await expanded).element]), ['Sample data']);
    assert.equal(api.explorerView.visible, true);
    assert.deepEqual(connectionsSetting(), connections, 'nothing added');
  });
});
