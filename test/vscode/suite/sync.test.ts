// Syncing tables of the sample connection into the local database, in VS Code: Sync Table and
// Sync Namespace by argument object (the sync runs in its own process), the synced mark on the
// table in the explorer (redrawn while a run goes on), a second run, bad arguments and a target setting holding a password
// refused, a PostgreSQL server named by the workspace settings refused until allowed, the SQL console on the synced database, and a cancelled resnapshot leaving the table
// as the last run left it.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DataQueryExtensionApi } from '../../../src/extension/extension';
import type { ExplorerNode, TableNode } from '../../../src/extension/explorer/explorerNodes';
import type { PreviewPanel } from '../../../src/extension/preview/previewPanel';
import type { TableSyncReport } from '../../../src/sync/syncReport';
import { activateExtension, extensionLog, labelOf, setConnections } from './vscodeHelpers';

const SAMPLE = 'Sample data';

function sync(command: 'dataQuery.syncTable' | 'dataQuery.syncNamespace', args: Record<string, unknown>): Thenable<TableSyncReport[]> {
  return vscode.commands.executeCommand<TableSyncReport[]>(command, { connection: SAMPLE, ...args });
}

async function rejection(pending: Thenable<unknown>): Promise<string> {
  try {
    await pending;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return assert.fail('the command should have rejected');
}

async function tableNode(api: DataQueryExtensionApi, namespace: string, table: string): Promise<TableNode> {
  const [connection] = await api.explorer.getChildren();
  const namespaces = await api.explorer.getChildren(connection);
  const ns = namespaces.find((n) => labelOf(api, n) === namespace) as ExplorerNode;
  const tables = await api.explorer.getChildren(ns);
  const node = tables.find((t) => t.kind === 'table' && t.table === table);
  assert.ok(node, `${namespace}.${table} is in the tree`);
  return node as TableNode;
}

/** Resolves once the table is marked as synced (the synced tables are read again after a settings change). */
function marked(api: DataQueryExtensionApi, namespace: string, table: string): Promise<void> {
  return new Promise((resolve) => {
    const check = (): boolean => api.syncedTables.stateOf(SAMPLE, namespace, table) !== undefined;
    if (check()) return resolve();
    const listener = api.syncedTables.onDidChange(() => {
      if (!check()) return;
      listener.dispose();
      resolve();
    });
  });
}

/** `count(*)` of a statement run in a console, as its grid shows it. */
async function consoleCount(editor: vscode.TextEditor, statement: string): Promise<number> {
  const panel = (await vscode.commands.executeCommand('dataQuery.runSqlStatement', { uri: editor.document.uri.toString(), text: statement })) as PreviewPanel;
  assert.equal(panel.state().error, undefined, panel.state().error);
  const [[n]] = await panel.rows(0, 1);
  return Number(n);
}

describe('Sync into a database', function () {
  // the sample emulator allows 5 new jobs a minute, shared with the other suites
  this.timeout(240_000);
  let api: DataQueryExtensionApi;
  let first: TableSyncReport;

  before(async () => {
    ({ api } = await activateExtension());
    await setConnections([{ name: SAMPLE, sample: true }]);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.getConfiguration('dataQuery').update('sync.target', undefined, vscode.ConfigurationTarget.Global);
    await setConnections(undefined);
  });

  it('syncs a table by argument object into the local database, and marks it in the explorer with its point and rows', async () => {
    [first] = await sync('dataQuery.syncTable', { namespace: 'canvas', table: 'users' });
    assert.equal(first.outcome, 'synced', JSON.stringify(first));
    assert.equal(first.kind, 'snapshot');
    assert.ok(first.rows !== undefined && first.rows > 0, 'rows were loaded');
    const database = api.syncedTables.targetLabel as string;
    assert.equal(path.basename(database), 'sync.duckdb');
    assert.ok(database.includes(path.join('globalStorage', 'data-query-explorer.data-query-explorer')), `in the extension's storage: ${database}`);
    assert.ok((await fs.stat(database)).size > 0, 'the database file exists');

    const users = await tableNode(api, 'canvas', 'users');
    await api.explorer.getChildren(users); // expanding reads the schema: its version shows too
    const item = api.explorer.getTreeItem(users);
    const day = first.point!.slice(0, 10);
    assert.match(String(item.description), new RegExp(`^v\\d+ · synced ${day} \\d\\d:\\d\\d, ${first.rows.toLocaleString('en-US')} rows$`));
    const hovered = (await api.explorer.resolveTreeItem(item, users)).tooltip; // made when hovered
    const tooltip = hovered instanceof vscode.MarkdownString ? hovered.value : String(hovered);
    assert.match(tooltip, /Synced to .*sync\.duckdb.*data as of/);
    assert.deepEqual([(item.iconPath as vscode.ThemeIcon).id, (item.iconPath as vscode.ThemeIcon).color?.id], ['table', 'charts.green']);

    const courses = api.explorer.getTreeItem(await tableNode(api, 'canvas', 'courses'));
    assert.doesNotMatch(String(courses.description ?? ''), /synced/, 'a table not synced has no mark');
  });

  it('applies the changes since the stored point on the next run (or finds none), redrawing the table\'s mark', async () => {
    const users = await tableNode(api, 'canvas', 'users');
    const redrawn: unknown[] = [];
    const listening = api.explorer.onDidChangeTreeData((node) => redrawn.push(node));
    let again: TableSyncReport;
    try {
      [again] = await sync('dataQuery.syncTable', { namespace: 'canvas', table: 'users' });
    } finally {
      listening.dispose();
    }
    assert.ok(redrawn.includes(users), 'the synced table is redrawn as the run goes on');
    assert.ok(!redrawn.includes(await tableNode(api, 'canvas', 'courses')), 'only the tables the run touched');
    assert.ok(again.outcome === 'synced' || again.outcome === 'unchanged', JSON.stringify(again));
    assert.equal(again.kind, 'changes');
    assert.ok(Date.parse(again.point!) >= Date.parse(first.point!), 'the point never goes back');
    const state = api.syncedTables.stateOf(SAMPLE, 'canvas', 'users');
    assert.deepEqual([state?.rows, state?.point], [again.rows, again.point]);
  });

  it('syncs every table of a namespace', async () => {
    const reports = await sync('dataQuery.syncNamespace', { namespace: 'catalog' });
    assert.deepEqual(reports.map((r) => [r.table, r.outcome]).sort(), [['orders', 'synced'], ['products', 'synced']]);
    const synced = api.syncedTables.list().map((s) => `${s.namespace}.${s.table}`);
    for (const name of ['canvas.users', 'catalog.orders', 'catalog.products']) assert.ok(synced.includes(name), `${name} is marked: ${synced.join(', ')}`);
  });

  it('rejects bad arguments, and a target setting holding a password, saying what to do', async () => {
    assert.match(await rejection(sync('dataQuery.syncTable', { namespace: 'canvas' })), /"table" is missing.*Pass \{connection, namespace, table, resnapshot\?\}/);
    assert.match(await rejection(sync('dataQuery.syncTable', { connection: 'Nowhere', namespace: 'canvas', table: 'users' })), /no connection named "Nowhere"/);
    assert.match(await rejection(sync('dataQuery.syncNamespace', { namespace: 'canvass' })), /"canvass" is not a namespace of "Sample data".*canvas/);
    assert.match(await rejection(sync('dataQuery.syncTable', { namespace: 'canvas', table: 'users', resnapshot: 'yes' })), /"resnapshot" must be true or false/);

    const secret = 'hunter2-not-for-settings';
    await vscode.workspace.getConfiguration('dataQuery').update('sync.target', `postgresql://sync:${secret}@127.0.0.1:5432/school`, vscode.ConfigurationTarget.Global);
    try {
      const message = await rejection(sync('dataQuery.syncTable', { namespace: 'canvas', table: 'users' }));
      assert.match(message, /contains a password.*PGPASSWORD/);
      assert.ok(!message.includes(secret), 'the password is never repeated');
      assert.ok(!extensionLog().includes(secret), 'nor logged');
    } finally {
      await vscode.workspace.getConfiguration('dataQuery').update('sync.target', undefined, vscode.ConfigurationTarget.Global);
      await marked(api, 'canvas', 'users');
    }
  });

  it('refuses a sync by argument object to a PostgreSQL server the workspace settings name, until allowed, and connects nowhere', async () => {
    const connections: net.Socket[] = [];
    const server = net.createServer((socket) => {
      connections.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `postgresql://etl@127.0.0.1:${(server.address() as net.AddressInfo).port}/warehouse`;
    const wasMarked = api.syncedTables.stateOf(SAMPLE, 'canvas', 'users') !== undefined;
    await vscode.workspace.getConfiguration('dataQuery').update('sync.target', url, vscode.ConfigurationTarget.Workspace);
    try {
      const message = await rejection(sync('dataQuery.syncTable', { namespace: 'canvas', table: 'users' }));
      assert.ok(message.includes(`This workspace's settings name the sync target ${url}, a PostgreSQL server not confirmed yet`), message);
      assert.match(message, /Sync Table.*confirm the server/);
      assert.equal(connections.length, 0, 'nothing connected to the server');
    } finally {
      await vscode.workspace.getConfiguration('dataQuery').update('sync.target', undefined, vscode.ConfigurationTarget.Workspace);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (wasMarked) await marked(api, 'canvas', 'users');
    }
  });

  it('opens the SQL console on the synced database: canvas.users counts the synced rows', async () => {
    const editor = (await vscode.commands.executeCommand('dataQuery.openSyncedSqlConsole', { namespace: 'canvas', table: 'users' })) as vscode.TextEditor;
    assert.match(editor.document.getText(), /SQL console on the synced database .*sync\.duckdb \(read only\)/);
    assert.match(editor.document.getText(), /SELECT count\(\*\) FROM canvas\.users;/);
    const rows = api.syncedTables.stateOf(SAMPLE, 'canvas', 'users')?.rows;
    assert.equal(await consoleCount(editor, 'select count(*) from canvas.users'), rows);
    assert.equal(await consoleCount(editor, 'select count(*) from synced.catalog.orders'), api.syncedTables.stateOf(SAMPLE, 'catalog', 'orders')?.rows);
  });

  it('a cancelled resnapshot leaves the table as the last run left it', async () => {
    const before = api.syncedTables.stateOf(SAMPLE, 'canvas', 'users');
    assert.ok(before);
    const cancellation = new vscode.CancellationTokenSource();
    const watching = api.syncedTables.onDidChange(() => {
      if (api.syncedTables.activityOf(SAMPLE, 'canvas', 'users')?.stage === 'querying') cancellation.cancel();
    });
    let reports: TableSyncReport[];
    try {
      reports = await sync('dataQuery.syncTable', { namespace: 'canvas', table: 'users', resnapshot: true, cancellation: cancellation.token });
    } finally {
      watching.dispose();
    }
    assert.ok(cancellation.token.isCancellationRequested, 'the run was under way when it was cancelled');
    assert.deepEqual(reports.map((r) => [r.table, r.outcome]), [['users', 'cancelled']]);
    const after = api.syncedTables.stateOf(SAMPLE, 'canvas', 'users');
    assert.deepEqual([after?.point, after?.rows], [before.point, before.rows]);
    const editor = (await vscode.commands.executeCommand('dataQuery.openSyncedSqlConsole', {})) as vscode.TextEditor;
    assert.equal(await consoleCount(editor, 'select count(*) from canvas.users'), before.rows, 'the database holds the rows of the last complete run');
  });
});
