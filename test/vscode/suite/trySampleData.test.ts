// "Try Sample Data" when the sample connection already exists: the explorer shows it,
// selected and expanded, instead of doing nothing visible, also when another side bar view was
// in front while the connection was added.

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
    // the view shows another connection...
    const elsewhere = { name: 'Elsewhere', baseUrl: 'https://elsewhere.example.com' };
    await setConnections([elsewhere]);
    const [shown] = await api.explorer.getChildren();
    await api.explorerView.reveal(shown, { select: true, focus: true });
    // ...then another side bar view comes to the front, as after "Reveal Results"
    const hidden = api.explorerView.visible ? next(api.explorerView.onDidChangeVisibility) : Promise.resolve({ visible: false });
    await vscode.commands.executeCommand('workbench.view.explorer');
    assert.equal((await hidden).visible, false, 'the Data Query view is hidden');
    // and the sample connection is added meanwhile, under a name this run has not shown before
    const connections = [elsewhere, { name: 'Sample set', sample: true }];
    await setConnections(connections);
    const selected = next(api.explorerView.onDidChangeSelection);
    const expanded = next(api.explorerView.onDidExpandElement);
    await vscode.commands.executeCommand('dataQuery.trySampleData');
    assert.deepEqual(labels(api, (await selected).selection as ExplorerNode[]), ['Sample set']);
    assert.deepEqual(labels(api, [(await expanded).element]), ['Sample set']);
    assert.equal(api.explorerView.visible, true);
    assert.deepEqual(connectionsSetting(), connections, 'nothing added');
  });
});
