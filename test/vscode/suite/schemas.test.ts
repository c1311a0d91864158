// Schemas in the explorer, in real VS Code against an emulator: a table's columns (keys first,
// with their marks and tooltips), the schema commands, find-column across namespaces, a newer
// schema version reported by a job, a table that disappeared, and the cache of table lists and
// schemas across a reload and past 4 hours, also for nodes expanded again and their tooltips.

import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { nullLogger } from '../../../src/core/logger';
import { STALE_AFTER_MS } from '../../../src/core/schemaCache';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { SampleCatalog } from '../../../src/emulator/sampleData/sampleCatalog';
import type { ClientPool } from '../../../src/extension/connections/clientPool';
import type { Connection } from '../../../src/extension/connections/connectionConfig';
import type { ConnectionStore } from '../../../src/extension/connections/connectionStore';
import type { ColumnNode, ConnectionNode, ExplorerNode, NamespaceNode, TableNode } from '../../../src/extension/explorer/explorerNodes';
import { ExplorerTreeProvider } from '../../../src/extension/explorer/explorerTreeProvider';
import type { TableMarks } from '../../../src/extension/explorer/tableMarks';
import { SchemaModel } from '../../../src/extension/schema/schemaModel';
import { tableSchema } from '../../../src/emulator/sampleData/tableModel';
import { createTableScript } from '../../../src/sync/postgresSql';
import { targetTableOf } from '../../../src/sync/syncColumns';
import { emulatorClientPool } from '../../support/emulatorClientPool';
import { FakeClock, flushMicrotasks } from '../../support/fakeClock';
import { MemoryStorage } from '../../unit/jobs/memoryStorage';
import { activateExtension, addEmulatorConnection, labelOf, labels, nextRedraw, requestsOf, setConnections } from './vscodeHelpers';

type Api = Awaited<ReturnType<typeof activateExtension>>['api'];

async function child(api: Api, parent: ExplorerNode, label: string): Promise<ExplorerNode> {
  const found = (await api.explorer.getChildren(parent)).find((n) => labelOf(api, n) === label);
  assert.ok(found, `${label} under ${labelOf(api, parent)}`);
  return found;
}

/** Resolves once a tab with this label is open in the editor area. */
function tabOpened(label: string): Promise<void> {
  const open = (): boolean => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label === label));
  return new Promise((resolve) => {
    if (open()) return resolve();
    const listener = vscode.window.tabGroups.onDidChangeTabs(() => {
      if (!open()) return;
      listener.dispose();
      resolve();
    });
  });
}

function tooltipText(item: vscode.TreeItem): string {
  const tip = item.tooltip;
  return tip instanceof vscode.MarkdownString ? tip.value : String(tip ?? '');
}

describe('Schemas in the explorer', () => {
  let emulator: RunningEmulator;
  const catalog = new SampleCatalog();

  before(async () => {
    emulator = await startEmulator({ port: 0 });
  });
  after(async () => {
    await setConnections(undefined);
    await emulator.close();
  });

  async function connectionNode(api: Api, name: string): Promise<ExplorerNode> {
    await setConnections([]);
    await addEmulatorConnection(emulator, name, { namespaces: ['canvas', 'new_quizzes'] });
    const [connection] = await api.explorer.getChildren();
    return connection;
  }

  it('expands a table into its columns: keys first with the key icon, marks, Markdown tooltips, nested members, the version', async () => {
    const { api } = await activateExtension();
    const connection = await connectionNode(api, 'Columns');
    const canvas = await child(api, connection, 'canvas');
    const enrollments = await child(api, canvas, 'enrollments');
    const columns = await api.explorer.getChildren(enrollments);
    const keys = catalog.table('canvas', 'enrollments')!.key.map((k) => k.name);
    assert.deepEqual(labels(api, columns.slice(0, keys.length)), keys, 'key columns first');
    for (const key of columns.slice(0, keys.length)) {
      const item = api.explorer.getTreeItem(key);
      assert.equal((item.iconPath as vscode.ThemeIcon).id, 'key');
      assert.match(String(item.description), /^int64 · key · required$/);
    }
    assert.ok(columns.slice(keys.length).every((c) => c.kind === 'column' && c.column.part === 'value'));
    assert.equal(api.explorer.getTreeItem(enrollments).description, `v${catalog.table('canvas', 'enrollments')!.version}`);

    const type = api.explorer.getTreeItem(await child(api, enrollments, 'type'));
    assert.equal(type.description, 'enum · required');
    assert.match(tooltipText(type), /Values: "StudentEnrollment", "TeacherEnrollment"/);

    const users = await child(api, canvas, 'users');
    const locale = api.explorer.getTreeItem(await child(api, users, 'locale'));
    assert.match(tooltipText(locale), /Preferred language; null means the account default/);
    const preferences = await child(api, users, 'preferences');
    assert.equal(api.explorer.getTreeItem(preferences).collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    assert.deepEqual(labels(api, await api.explorer.getChildren(preferences)), ['high_contrast', 'font_size', 'theme']);
  });

  it('runs the schema commands on a table: the page, column names and CREATE TABLE', async () => {
    const { api } = await activateExtension();
    await connectionNode(api, 'Commands');
    const args = { connection: 'Commands', namespace: 'canvas', table: 'users' };
    const page = tabOpened('Schema: canvas.users');
    const shown = (await vscode.commands.executeCommand('dataQuery.showSchema', args)) as { version: number };
    assert.equal(shown.version, catalog.table('canvas', 'users')!.version);
    await page;
    const names = (await vscode.commands.executeCommand('dataQuery.copyColumns', args)) as string;
    assert.equal(await vscode.env.clipboard.readText(), names);
    assert.ok(names.startsWith('id\n') && names.includes('\npreferences.theme\n'), names);
    const sql = (await vscode.commands.executeCommand('dataQuery.copyCreateTable', args)) as string;
    assert.equal(await vscode.env.clipboard.readText(), sql);
    assert.match(sql, /CREATE TABLE "canvas"\."users" \(/);
    assert.match(sql, /PRIMARY KEY \("id"\)/);
    // the table a sync to PostgreSQL creates (test/integration/sync/postgresSync.test.ts runs this text)
    const users = catalog.table('canvas', 'users')!;
    assert.equal(sql, createTableScript(targetTableOf('canvas', 'users', { version: users.version, schema: tableSchema(users) })));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('finds a column across the namespaces of a connection, reading each schema once', async () => {
    const { api } = await activateExtension();
    await connectionNode(api, 'Finder');
    const before = requestsOf(emulator, 'getSchema');
    const find = async () =>
      (await vscode.commands.executeCommand('dataQuery.findColumn', { connection: 'Finder', text: 'user_id' })) as { matches: { name: string }[] };
    const first = await find();
    const namespaces = new Set(first.matches.map((m) => m.name.split('.')[0]));
    assert.deepEqual([...namespaces].sort(), ['canvas', 'new_quizzes']);
    assert.ok(first.matches.some((m) => m.name === 'canvas.enrollments.user_id'));
    const tables = catalog.tables('canvas')!.length + catalog.tables('new_quizzes')!.length;
    assert.equal(requestsOf(emulator, 'getSchema') - before, tables);
    assert.deepEqual(await find(), first);
    assert.equal(requestsOf(emulator, 'getSchema') - before, tables, 'the second search reads nothing');
  });

  it('reads a schema again when a job reports a newer version than the one kept, and shows it on the table', async () => {
    const { api } = await activateExtension();
    const connection = (await connectionNode(api, 'Versions')) as ConnectionNode;
    const canvas = await child(api, connection, 'canvas');
    const users = await child(api, canvas, 'users');
    const current = await api.schemas.schema(connection.connection, 'canvas', 'users');
    // the copy kept from before the table's last schema change
    await api.schemas.saveSchema(connection.connection, 'canvas', 'users', { ...current.value, version: current.value.version - 1 });
    const args = { connection: 'Versions', namespace: 'canvas', table: 'users' };
    const shown = (await vscode.commands.executeCommand('dataQuery.showSchema', args)) as { version: number };
    assert.equal(shown.version, current.value.version - 1);
    assert.equal(api.explorer.getTreeItem(users).description, `v${current.value.version - 1}`);

    const reads = requestsOf(emulator, 'getSchema');
    await vscode.commands.executeCommand('dataQuery.queryTable', { ...args, format: 'jsonl', download: false });
    while (api.explorer.getTreeItem(users).description !== `v${current.value.version}`) await nextRedraw(api, users);
    assert.equal(requestsOf(emulator, 'getSchema') - reads, 1, 'the newer schema was read once');
    assert.equal(((await vscode.commands.executeCommand('dataQuery.showSchema', args)) as { version: number }).version, current.value.version);
    assert.equal(requestsOf(emulator, 'getSchema') - reads, 1, 'and is kept');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('redraws an open schema page when the service changes the table: a job reports the new version and the page shows the new column', async () => {
    const { api } = await activateExtension();
    await connectionNode(api, 'Changing');
    const ref = { connection: 'Changing', namespace: 'new_quizzes', table: 'quiz_sessions' };
    await vscode.commands.executeCommand('dataQuery.showSchema', ref);
    const before = api.schemaPages.versionShown(ref) as number;
    assert.ok(before > 0, 'the page is open');
    const version = emulator.evolveTable(ref.namespace, ref.table, 'addColumn');
    const column = `added_in_v${version}`;
    assert.doesNotMatch(api.schemaPages.pageHtml(ref) ?? '', new RegExp(column));

    await vscode.commands.executeCommand('dataQuery.queryTable', { ...ref, format: 'jsonl', download: false });
    const deadline = Date.now() + 30_000;
    while (api.schemaPages.versionShown(ref) !== version) {
      assert.ok(Date.now() < deadline, `the page still shows version ${api.schemaPages.versionShown(ref)}, not ${version}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const html = api.schemaPages.pageHtml(ref) ?? '';
    assert.match(html, new RegExp(`schema version ${version}<`));
    assert.match(html, new RegExp(column), 'the page lists the added column');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('says a table that disappeared no longer exists, and offers Refresh of its namespace', async () => {
    const { api } = await activateExtension();
    const connection = await connectionNode(api, 'Gone');
    const canvas = (await child(api, connection, 'canvas')) as NamespaceNode;
    await api.explorer.getChildren(canvas);
    const gone: TableNode = { kind: 'table', id: `${canvas.id}/t/dropped`, connection: canvas.connection, namespace: 'canvas', table: 'dropped' };
    const [node] = await api.explorer.getChildren(gone);
    const item = api.explorer.getTreeItem(node);
    assert.equal(item.label, 'canvas.dropped no longer exists: refresh canvas to list its tables again.');
    assert.equal(item.command?.command, 'dataQuery.refresh');
    assert.deepEqual(item.command?.arguments, [canvas]);
  });
});

describe('The schema cache', () => {
  let emulator: RunningEmulator;
  let pool: ClientPool;

  beforeEach(async () => {
    emulator = await startEmulator({ port: 0 });
    pool = emulatorClientPool(emulator, 'schemas-test');
  });
  afterEach(async () => {
    await pool.dispose();
    await emulator.close();
  });

  it('keeps table lists and schemas across a reload, and reads them again after 4 hours while showing the stale copy', async () => {
    const clock = new FakeClock(Date.now());
    const storage = new MemoryStorage();
    const connection: Connection = { kind: 'remote', name: 'Cached', baseUrl: emulator.baseUrl, dataPrefix: emulator.dataPrefix, namespaces: ['canvas'], allowInsecureHttp: false };
    const store = { read: () => ({ connections: [connection], problems: [] }), getCredentials: async () => undefined } as unknown as ConnectionStore;
    const reload = () => new ExplorerTreeProvider(store, pool, nullLogger, new SchemaModel(storage, pool, clock), clock);
    const namespace = (): NamespaceNode => ({ kind: 'namespace', id: 'c/Cached/n/canvas', connection, namespace: 'canvas' });
    const usersOf = (nodes: ExplorerNode[]) => nodes.find((n) => n.kind === 'table' && n.table === 'users') as TableNode;

    const first = reload();
    const tables = await first.getChildren(namespace());
    await first.getChildren(usersOf(tables));
    assert.equal(requestsOf(emulator, 'listTables'), 1);
    assert.equal(requestsOf(emulator, 'getSchema'), 1);

    const second = reload();
    const again = await second.getChildren(namespace());
    assert.deepEqual(again.map((n) => n.id), tables.map((n) => n.id));
    const users = usersOf(again);
    assert.equal(second.getTreeItem(users).description, 'v3', 'the version shows before the table is expanded');
    const columns = (await second.getChildren(users)) as ColumnNode[];
    assert.equal(columns[0].column.name, 'id');
    assert.equal(requestsOf(emulator, 'listTables'), 1, 'no listing after the reload');
    assert.equal(requestsOf(emulator, 'getSchema'), 1, 'no schema read after the reload');

    await clock.advance(STALE_AFTER_MS);
    const third = reload();
    const node = namespace();
    const redrawn = new Promise<void>((resolve) => third.onDidChangeTreeData((changed) => changed === node && resolve()));
    const stale = await third.getChildren(node);
    assert.deepEqual(stale.map((n) => n.id), tables.map((n) => n.id), 'the stale list shows meanwhile');
    assert.equal(third.getTreeItem(usersOf(stale)).description, 'v3 (stale)');
    await redrawn;
    assert.equal(requestsOf(emulator, 'listTables'), 2, 'the stale list was read again');
    const staleUsers = usersOf(await third.getChildren(node));
    const schemaRedrawn = new Promise<void>((resolve) => third.onDidChangeTreeData((changed) => changed === staleUsers && resolve()));
    assert.equal((await third.getChildren(staleUsers)).length, columns.length, 'the stale columns show meanwhile');
    await schemaRedrawn;
    await flushMicrotasks();
    assert.equal(requestsOf(emulator, 'getSchema'), 2, 'the stale schema was read again');
    await third.getChildren(staleUsers);
    assert.equal(third.getTreeItem(staleUsers).description, 'v3');
    assert.equal(requestsOf(emulator, 'getSchema'), 2);

    await third.refresh(staleUsers);
    await third.getChildren(staleUsers);
    assert.equal(requestsOf(emulator, 'getSchema'), 3, 'Refresh on a table reads its schema again');
    assert.equal(requestsOf(emulator, 'listTables'), 2, 'and nothing else');
  });

  it('reads a list or schema again when its node is expanded again past 4 hours, and tells its age as of the hover', async () => {
    const clock = new FakeClock(Date.now());
    const connection: Connection = { kind: 'remote', name: 'Expanded', baseUrl: emulator.baseUrl, dataPrefix: emulator.dataPrefix, namespaces: ['canvas'], allowInsecureHttp: false };
    const store = { read: () => ({ connections: [connection], problems: [] }), getCredentials: async () => undefined } as unknown as ConnectionStore;
    // a synced users table: its mark's paragraph joins the hover too
    const marks: TableMarks = {
      markOf: (_c, _n, table) => (table === 'users' ? { description: 'synced', tooltip: 'Synced to the test database.', syncing: false } : undefined),
      onDidChangeMarks: () => ({ dispose: () => undefined }),
    };
    const explorer = new ExplorerTreeProvider(store, pool, nullLogger, new SchemaModel(new MemoryStorage(), pool, clock), clock, marks);
    // VS Code keeps the children it drew and only says that a node was expanded again
    const expansions = new vscode.EventEmitter<vscode.TreeViewExpansionEvent<ExplorerNode>>();
    const following = explorer.followExpansion({ onDidExpandElement: expansions.event });
    const redrawOf = (node: ExplorerNode) => new Promise<void>((resolve) => explorer.onDidChangeTreeData((changed) => changed === node && resolve()));
    try {
      const canvas: NamespaceNode = { kind: 'namespace', id: 'c/Expanded/n/canvas', connection, namespace: 'canvas' };
      const users = (await explorer.getChildren(canvas)).find((n) => n.kind === 'table' && n.table === 'users') as TableNode;
      await explorer.getChildren(users);
      assert.equal(requestsOf(emulator, 'listTables'), 1);
      assert.equal(requestsOf(emulator, 'getSchema'), 1);

      const drawn = explorer.getTreeItem(users);
      await clock.advance(2 * 60 * 60 * 1000);
      assert.match(tooltipText(explorer.resolveTreeItem(drawn, users)), /Schema version 3, read 2 h ago\.\n\nSynced to the test database\.$/, 'the age as of the hover, not of the drawing');
      assert.equal(explorer.getTreeItem(users).tooltip, undefined, 'left out of the item: VS Code asks only for a tooltip the item lacks');
      expansions.fire({ element: users });
      expansions.fire({ element: canvas });
      await flushMicrotasks();
      assert.equal(requestsOf(emulator, 'listTables') + requestsOf(emulator, 'getSchema'), 2, 'nothing is read again within 4 hours');

      await clock.advance(STALE_AFTER_MS - 2 * 60 * 60 * 1000);
      assert.match(tooltipText(explorer.resolveTreeItem(explorer.getTreeItem(canvas), canvas)), /Tables listed 4 h ago: older than the service's 4-hour refresh/);
      const listed = redrawOf(canvas);
      expansions.fire({ element: canvas });
      await listed;
      assert.equal(requestsOf(emulator, 'listTables'), 2, 'expanding the namespace again read its stale list again');
      await explorer.getChildren(canvas); // as VS Code does after the redraw
      assert.match(tooltipText(explorer.resolveTreeItem(explorer.getTreeItem(canvas), canvas)), /Tables listed just now\.$/);

      const read = redrawOf(users);
      expansions.fire({ element: users });
      await read;
      assert.equal(requestsOf(emulator, 'getSchema'), 2, 'expanding the table again read its stale schema again');
      await explorer.getChildren(users);
      assert.equal(explorer.getTreeItem(users).description, 'v3 · synced', 'no longer marked stale');
      assert.match(tooltipText(explorer.resolveTreeItem(explorer.getTreeItem(users), users)), /Schema version 3, read just now\.\n\nSynced/);
    } finally {
      following.dispose();
      expansions.dispose();
      explorer.dispose();
    }
  });
});
