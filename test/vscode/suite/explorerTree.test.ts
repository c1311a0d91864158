// The explorer tree against real services: the sample connection runs the emulator inside
// the extension host; another emulator started here stands for a remote service. Errors that
// only a change of settings can mend offer the settings, not a retry; Refresh on a table whose
// schema the service holds back starts the read over.

import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import { tablesOf } from '../../support/emulatorTables';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import type { ExplorerNode } from '../../../src/extension/explorer/explorerNodes';
import { activateExtension, addEmulatorConnection, connectionsSetting, labelOf, labels, requestsOf, setConnections } from './vscodeHelpers';

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

  it('says to check a misspelled namespace and opens the settings at the connections, instead of offering a retry', async () => {
    const { api } = await activateExtension();
    await setConnections([]);
    await addEmulatorConnection(reference, 'Misspelled', { namespaces: ['canvas', 'canvsa'] });
    const [connection] = await api.explorer.getChildren();
    const typo = (await api.explorer.getChildren(connection)).find((n) => labelOf(api, n) === 'canvsa') as ExplorerNode;
    const [error] = await api.explorer.getChildren(typo);
    const item = api.explorer.getTreeItem(error);
    assert.equal(item.label, 'The service has no namespace "canvsa": check its spelling under "namespaces" in the connection\'s settings.');
    assert.equal(item.description, 'Open Settings');
    assert.notEqual(item.command?.command, 'dataQuery.refresh', 'no retry: the same name is missing again');

    await vscode.commands.executeCommand(item.command!.command, ...(item.command!.arguments ?? []));
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor && editor.document.uri.path.endsWith('/settings.json'), `the settings file is open: ${editor?.document.uri.toString()}`);
    assert.match(editor.document.lineAt(editor.selection.active.line).text, /"dataQuery\.connections"/, 'at the connections');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('says how to mend plain http to a remote host and offers the settings', async () => {
    const { api } = await activateExtension();
    await setConnections([]);
    await addEmulatorConnection(reference, 'Plain', { namespaces: ['canvas'] });
    // the same connection (and its stored credentials), pointed at a host on the network over plain http
    const [entry] = connectionsSetting() as Record<string, unknown>[];
    await setConnections([{ ...entry, baseUrl: 'http://10.11.12.13:8080' }]);
    const [connection] = await api.explorer.getChildren();
    const [canvas] = await api.explorer.getChildren(connection);
    const [error] = await api.explorer.getChildren(canvas);
    const item = api.explorer.getTreeItem(error);
    assert.match(String(item.label), /^Refusing plain http to 10\.11\.12\.13:8080: .*\. Use https:\/\/ in the connection's baseUrl, or set "allowInsecureHttp": true in its settings/);
    assert.equal(item.command?.title, 'Open Settings');
    assert.equal(item.command?.command, 'workbench.action.openSettingsJson');
  });

  it('Refresh on a table whose schema read the service holds back stops that read and reads again', async () => {
    // in front of the emulator: the first schema request gets no answer at all
    let holding: http.ServerResponse | undefined;
    let heldSent!: () => void;
    const sent = new Promise<void>((resolve) => (heldSent = resolve));
    let heldGivenUp!: () => void;
    const givenUp = new Promise<void>((resolve) => (heldGivenUp = resolve));
    const front = http.createServer((req, res) => {
      if (!holding && /\/schema(\?|$)/.test(req.url ?? '')) {
        holding = res;
        res.on('close', heldGivenUp);
        heldSent();
        return;
      }
      const upstream = http.request(new URL(req.url ?? '/', reference.baseUrl), { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      const { api } = await activateExtension();
      await setConnections([]);
      await vscode.commands.executeCommand('dataQuery.addConnection', {
        name: 'Held',
        baseUrl: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
        dataPrefix: reference.dataPrefix,
        clientId: reference.clientId,
        clientSecret: reference.clientSecret,
        namespaces: ['canvas'],
      });
      const [connection] = await api.explorer.getChildren();
      const [canvas] = await api.explorer.getChildren(connection);
      const [table] = await api.explorer.getChildren(canvas);
      assert.equal(table.kind, 'table');

      const spinning = api.explorer.getChildren(table);
      await sent;
      await api.explorer.refresh(table);
      await givenUp; // the held request is abandoned, not left to run out its minute
      assert.deepEqual(await spinning, [], 'the stopped drawing shows nothing; the redraw shows the columns');
      const columns = await api.explorer.getChildren(table);
      assert.ok(columns.length > 0 && columns.every((c) => c.kind === 'column'), labels(api, columns).join(', '));
    } finally {
      holding?.destroy();
      front.close();
    }
  });
});
