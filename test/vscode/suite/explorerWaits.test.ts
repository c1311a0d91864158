// Table listings held back by the client's rate limiter, as the explorer shows them in real
// VS Code against an emulator: a node that says why and for how long instead of a bare
// spinner, settings changes that leave the waits of other connections alone, and a listing
// that fails after its wait showing its error instead of the wait.

import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import {
  activateExtension,
  addEmulatorConnection,
  extensionLog,
  labelOf,
  labels,
  nextRedraw,
  requestsOf,
  setConnections,
} from './vscodeHelpers';

const LIST_TABLES_PER_MINUTE = 5;

describe('Explorer while the rate limit holds a listing back', () => {
  let emulator: RunningEmulator;

  afterEach(async () => {
    await setConnections(undefined);
    await emulator.close();
  });

  it('says it waits for the list-tables limit and for how long; adding a connection meanwhile leaves that wait alone', async () => {
    emulator = await startEmulator({ port: 0 });
    const { api } = await activateExtension();
    await setConnections([]);
    const logBefore = extensionLog().length;
    await addEmulatorConnection(emulator, 'Busy', { namespaces: ['canvas'] });
    const [busy] = await api.explorer.getChildren();
    const [canvas] = await api.explorer.getChildren(busy);
    for (let i = 0; i < LIST_TABLES_PER_MINUTE; i++) {
      api.explorer.refresh(canvas);
      const tables = await api.explorer.getChildren(canvas);
      assert.ok(tables.length > 0 && tables.every((t) => t.kind === 'table'), `listing ${i + 1} shows tables`);
    }

    api.explorer.refresh(canvas);
    const [waiting] = await api.explorer.getChildren(canvas);
    const seconds = Number(/^Waiting for the list-tables limit: (\d+) s$/.exec(labelOf(api, waiting))?.[1]);
    assert.ok(seconds > 0 && seconds <= 60, `a wait of up to a minute, not "${labelOf(api, waiting)}"`);

    await vscode.commands.executeCommand('dataQuery.trySampleData');
    assert.deepEqual(labels(api, await api.explorer.getChildren()), ['Busy', 'Sample data'], 'the new connection shows at once');
    const [still] = await api.explorer.getChildren(canvas);
    assert.match(labelOf(api, still), /^Waiting for the list-tables limit: \d+ s$/, 'Busy keeps waiting where it was');
    assert.equal(requestsOf(emulator, 'listTables'), LIST_TABLES_PER_MINUTE, 'no listing was sent again');

    // removing Busy ends its wait as a cancellation: nothing to report
    await setConnections([{ name: 'Sample data', sample: true }]);
    await addEmulatorConnection(emulator, 'After Busy'); // logs a line after the cancellation
    const log = extensionLog().slice(logBefore);
    assert.match(log, /Added connection "After Busy"/);
    assert.doesNotMatch(log, /network|destroyed|UND_ERR|\[(warning|error)\]/i);
  });

  it('counts down a pause the service asked for (429), then shows the tables by itself', async () => {
    emulator = await startEmulator({ port: 0, limits: { listTables: 1 }, limitWindowSec: 2 });
    const { api } = await activateExtension();
    await setConnections([]);
    await addEmulatorConnection(emulator, 'Strict', { namespaces: ['canvas'] });
    const [strict] = await api.explorer.getChildren();
    const [canvas] = await api.explorer.getChildren(strict);
    const expected = labels(api, await api.explorer.getChildren(canvas));

    api.explorer.refresh(canvas);
    let children = await api.explorer.getChildren(canvas);
    assert.match(labelOf(api, children[0]), /^Paused by the service's rate limit: \d+ s$/);
    while (children[0]?.kind === 'waiting') {
      await nextRedraw(api, canvas);
      children = await api.explorer.getChildren(canvas);
    }
    assert.deepEqual(labels(api, children), expected);
  });

  it('shows the error and its way forward when a listing that waited then fails, instead of waiting for ever', async () => {
    emulator = await startEmulator({ port: 0, limits: { listTables: 1 }, limitWindowSec: 2 });
    const { api } = await activateExtension();
    await setConnections([]);
    await addEmulatorConnection(emulator, 'Strict typo', { namespaces: ['canvas', 'canvsa'] });
    const [strict] = await api.explorer.getChildren();
    const [canvas, typo] = await api.explorer.getChildren(strict);
    assert.ok((await api.explorer.getChildren(canvas)).every((n) => n.kind === 'table'), 'canvas takes the one listing allowed');

    let children = await api.explorer.getChildren(typo);
    assert.match(labelOf(api, children[0]), /^Paused by the service's rate limit: \d+ s$/);
    while (children[0]?.kind === 'waiting') {
      await nextRedraw(api, typo);
      children = await api.explorer.getChildren(typo);
    }
    assert.equal(children.length, 1);
    const item = api.explorer.getTreeItem(children[0]);
    assert.equal(item.label, 'The service has no namespace "canvsa": check its spelling under "namespaces" in the connection\'s settings.');
    assert.equal(item.command?.title, 'Open Settings');
    const listed = requestsOf(emulator, 'listTables');
    assert.equal((await api.explorer.getChildren(typo))[0], children[0], 'drawing it again shows the same error');
    assert.equal(requestsOf(emulator, 'listTables'), listed, 'and lists nothing again');
  });
});
