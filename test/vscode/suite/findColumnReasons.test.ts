// Find Column from the explorer or the palette, when it can find nothing: a connection
// without credentials says so (and sends nothing), and a connection whose tables cannot be
// read says that no table could be read and why, instead of opening an empty list. The
// failure's sentence is the one presentError puts in the notification and the log; the log of
// this run is read back. Driven by an argument object that lacks what it needs, it refuses
// before reading anything.

import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import type { ExplorerNode } from '../../../src/extension/explorer/explorerNodes';
import { activateExtension, addEmulatorConnection, extensionLog, labelOf, requestsOf, setConnections } from './vscodeHelpers';

/** How long the log may take to show a line (VS Code writes it in batches). */
const LOG_WAIT_MS = 30_000;

/** The first line of Find Column's failures logged after `offset`, once there is one. */
async function findColumnFailure(offset: number): Promise<string> {
  const deadline = Date.now() + LOG_WAIT_MS;
  for (;;) {
    const line = extensionLog()
      .slice(offset)
      .split('\n')
      .find((l) => l.includes('Find Column: '));
    if (line) return line.slice(line.indexOf('Find Column: '));
    assert.ok(Date.now() < deadline, `the log tells why Find Column found nothing:\n${extensionLog().slice(offset)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs Find Column on a connection's tree node, as its context menu does; resolves once it gave up (an open list of columns keeps it waiting). */
function findColumnOn(node: ExplorerNode): Thenable<unknown> {
  return vscode.commands.executeCommand('dataQuery.findColumn', node);
}

describe('Find Column says why it found nothing', function () {
  this.timeout(90_000);
  let emulator: RunningEmulator;
  let refusing: RunningEmulator;

  before(async () => {
    emulator = await startEmulator({ port: 0, namespaces: ['canvas'] });
    // every data call answers an account error: no table list, no schema
    refusing = await startEmulator({ port: 0, namespaces: ['canvas'], faults: 'account=AccountDisabled' });
  });

  afterEach(async () => {
    // a picker left open by a failing run would stand in the next test's way
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await setConnections(undefined);
  });

  after(async () => {
    await emulator?.close();
    await refusing?.close();
  });

  it('on a connection without credentials: names the missing credentials and sends nothing', async () => {
    const { api } = await activateExtension();
    await setConnections([{ name: 'Find without secrets', baseUrl: emulator.baseUrl, dataPrefix: emulator.dataPrefix, namespaces: ['canvas'] }]);
    const [connection] = await api.explorer.getChildren();
    assert.equal(labelOf(api, connection), 'Find without secrets');
    const sent = emulator.requestLog.entries().length;
    const offset = extensionLog().length;

    const finished = findColumnOn(connection);
    const failure = await findColumnFailure(offset);
    assert.equal(await finished, undefined, 'it gave up without opening a list of columns');
    assert.match(failure, /^Find Column: No client ID and secret are stored for the connection "Find without secrets"\. Use "Set Credentials" on the connection/);
    assert.doesNotMatch(extensionLog().slice(offset), /No table of|could not be listed/, 'not told as tables that could not be read');
    assert.equal(emulator.requestLog.entries().length, sent, 'nothing was sent to the service');
  });

  it('on a connection whose tables cannot be read: says no table could be read, and why', async () => {
    const { api } = await activateExtension();
    await setConnections([]);
    await addEmulatorConnection(refusing, 'Find on a disabled account', { namespaces: ['canvas'] });
    const [connection] = await api.explorer.getChildren();
    assert.equal(labelOf(api, connection), 'Find on a disabled account');
    const listings = requestsOf(refusing, 'listTables');
    const offset = extensionLog().length;

    const finished = findColumnOn(connection);
    const failure = await findColumnFailure(offset);
    assert.equal(await finished, undefined, 'it gave up without opening a list of columns');
    assert.match(failure, /^Find Column: No table of Find on a disabled account could be read\. The tables of canvas could not be listed: /);
    assert.match(failure, /This account is disabled for the data service/, 'with the service\'s reason');
    assert.match(failure, /Check the connection \(Refresh it in the Data Query view\), then try again\./, 'and what to do');
    assert.ok(requestsOf(refusing, 'listTables') > listings, 'the service was asked');
  });

  it('with an argument object that lacks the text or has no list of namespaces: refuses before reading anything', async () => {
    await activateExtension();
    await setConnections([]);
    await addEmulatorConnection(emulator, 'Find without text', { namespaces: ['canvas'] });
    const sent = emulator.requestLog.entries().length;

    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('dataQuery.findColumn', { connection: 'Find without text' })),
      /"text" is missing from the command's argument/,
    );
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('dataQuery.findColumn', { connection: 'Find without text', text: 'user_id', namespaces: 'canvas' })),
      /"namespaces" in the command's argument must be a list of namespace names/,
    );
    assert.equal(emulator.requestLog.entries().length, sent, 'no table was listed and no schema read');
  });
});
