import * as assert from 'node:assert/strict';
import { SyncedTablesModel, type OriginMemento, type SyncedChange } from '../../../src/extension/sync/syncedTablesModel';
import type { TableSyncReport } from '../../../src/sync/syncReport';
import type { SyncStateSummary } from '../../../src/sync/syncProtocol';
import { FakeClock } from '../../support/fakeClock';

class MapMemento implements OriginMemento {
  private readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  update(key: string, value: unknown): Thenable<void> {
    this.values.set(key, JSON.parse(JSON.stringify(value)));
    return Promise.resolve();
  }
}

const DB = '/data/sync.duckdb';

function row(namespace: string, table: string, rows: number, point = '2026-11-24T04:00:00Z'): SyncStateSummary {
  return { namespace, table, rows, point, schemaVersion: 2, ranAt: '2026-11-24T05:00:00Z' };
}

function report(table: string, outcome: TableSyncReport['outcome'], more: Partial<TableSyncReport> = {}): TableSyncReport {
  return { namespace: 'canvas', table, outcome, upserted: 0, deleted: 0, seconds: 1, ...more };
}

describe('synced tables model', () => {
  let memento: MapMemento;
  let model: SyncedTablesModel;
  let changes: SyncedChange[];

  beforeEach(() => {
    memento = new MapMemento();
    model = new SyncedTablesModel(memento, new FakeClock(Date.parse('2026-11-24T09:00:00Z')));
    changes = [];
    model.onDidChange((c) => changes.push(c));
    model.useTarget(DB, DB);
  });

  it('holds the meta table\'s rows; a table synced elsewhere is marked under every connection', () => {
    model.replaceStates(DB, [row('catalog', 'orders', 600), row('canvas', 'users', 373)]);
    model.replaceStates(DB, [row('catalog', 'orders', 600), row('canvas', 'users', 380)]);
    assert.deepEqual(changes.at(-1), { tables: [{ namespace: 'canvas', table: 'users' }] }, 'a reading redraws the tables whose row changed');
    const seen = changes.length;
    model.replaceStates(DB, [row('catalog', 'orders', 600), row('canvas', 'users', 380)]);
    assert.equal(changes.length, seen, 'and nothing when none did');
    model.replaceStates(DB, [row('catalog', 'orders', 600), row('canvas', 'users', 373)]);
    assert.deepEqual(model.list().map((s) => `${s.namespace}.${s.table}`), ['canvas.users', 'catalog.orders']);
    assert.equal(model.stateOf('Sample data', 'canvas', 'users')?.rows, 373);
    assert.equal(model.stateOf('Production', 'canvas', 'users')?.rows, 373);
    assert.equal(model.stateOf('Sample data', 'canvas', 'courses'), undefined);
    model.replaceStates('/elsewhere.duckdb', [row('canvas', 'courses', 1)]);
    assert.equal(model.stateOf('Sample data', 'canvas', 'courses'), undefined, 'rows of another target are ignored');
  });

  it('marks a table a run synced at once, under its connection only, and keeps the last run\'s state when a run fails or is cancelled', async () => {
    model.replaceStates(DB, [row('canvas', 'users', 373)]);
    await model.applyReports(DB, 'Sample data', [report('users', 'synced', { kind: 'changes', rows: 380, point: '2026-11-24T08:00:00Z', schemaVersion: 3 })]);
    assert.deepEqual(model.stateOf('Sample data', 'canvas', 'users'), { namespace: 'canvas', table: 'users', rows: 380, point: '2026-11-24T08:00:00Z', schemaVersion: 3, ranAt: '2026-11-24T09:00:00.000Z' });
    assert.equal(model.stateOf('Production', 'canvas', 'users'), undefined, 'another connection\'s node is not marked');
    assert.deepEqual(changes.at(-1), { tables: [{ namespace: 'canvas', table: 'users' }] });

    await model.applyReports(DB, 'Sample data', [report('users', 'failed', { rows: 380, point: '2026-11-24T08:00:00Z', error: { kind: 'io', message: 'disk full' } }), report('courses', 'cancelled')]);
    assert.equal(model.stateOf('Sample data', 'canvas', 'users')?.rows, 380);
    assert.equal(model.stateOf('Sample data', 'canvas', 'courses'), undefined);

    const reloaded = new SyncedTablesModel(memento, new FakeClock(0));
    reloaded.useTarget(DB, DB);
    reloaded.replaceStates(DB, [row('canvas', 'users', 380)]);
    assert.equal(reloaded.stateOf('Production', 'canvas', 'users'), undefined, 'which connection synced it survives a reload');
    assert.equal(reloaded.stateOf('Sample data', 'canvas', 'users')?.rows, 380);
  });

  it('marks a table that records its source under the connections that reach that service, whoever synced it', async () => {
    const sources: Record<string, string> = { 'Sample data': 'sample data', Production: 'https://api.example.com/dap', Staging: 'https://staging.example.com/dap' };
    model.useSourceOf((connection) => sources[connection]);
    model.replaceStates(DB, [
      { ...row('canvas', 'users', 373), source: 'https://api.example.com/dap' },
      { ...row('canvas', 'courses', 55), source: 'https://elsewhere.example.com/dap' },
      row('canvas', 'quizzes', 9),
    ]);
    assert.equal(model.stateOf('Production', 'canvas', 'users')?.rows, 373, 'synced by dq sync from the service Production reaches');
    assert.equal(model.stateOf('Sample data', 'canvas', 'users'), undefined, 'the sample data would not go on from its point');
    assert.equal(model.stateOf('Staging', 'canvas', 'users'), undefined);
    assert.equal(model.stateOf('Production', 'canvas', 'courses'), undefined, 'from a service no connection reaches: under none');
    assert.equal(model.stateOf('No longer in the settings', 'canvas', 'users'), undefined);
    assert.equal(model.stateOf('Staging', 'canvas', 'quizzes')?.rows, 9, 'a row from before sources were recorded: under every connection, as before');

    // a run of the sample data replaced Production's rows (a resnapshot): the marks move with the source
    await model.applyReports(DB, 'Sample data', [report('users', 'synced', { kind: 'snapshot', rows: 381, point: '2026-11-24T08:00:00Z', schemaVersion: 2 })]);
    assert.equal(model.stateOf('Sample data', 'canvas', 'users')?.rows, 381);
    assert.equal(model.stateOf('Production', 'canvas', 'users'), undefined);
    model.replaceStates(DB, [{ ...row('canvas', 'users', 381), source: 'sample data' }]);
    assert.equal(model.stateOf('Sample data', 'canvas', 'users')?.source, 'sample data');
    assert.equal(model.stateOf('Production', 'canvas', 'users'), undefined, 'the memory of who synced it never outweighs the recorded source');
  });

  it('marks a table synced with credentials under the connections of that service; once a connection ran here, only under those with its credentials', async () => {
    const A_TAG = '3f2a9c01b7e4';
    const B_TAG = '9d04be51c7a2';
    // the explorer knows each connection's service, not its client ID
    const sources: Record<string, string> = { 'Institution A': 'https://gateway.example.edu/dap', 'Institution B': 'https://gateway.example.edu/dap', Elsewhere: 'https://api.example.com/dap' };
    model.useSourceOf((connection) => sources[connection]);
    model.replaceStates(DB, [
      { ...row('canvas', 'users', 373), source: `https://gateway.example.edu/dap?client=${A_TAG}` },
      { ...row('canvas', 'courses', 55), source: 'https://gateway.example.edu/dap' },
    ]);
    for (const connection of ['Institution A', 'Institution B']) {
      assert.equal(model.stateOf(connection, 'canvas', 'users')?.rows, 373, `${connection}: the service decides while the credentials are not known`);
      assert.equal(model.stateOf(connection, 'canvas', 'courses')?.rows, 55, `${connection}: a source from before client tags, adopted by the next sync`);
    }
    assert.equal(model.stateOf('Elsewhere', 'canvas', 'users'), undefined);

    // runs here say which credentials each connection uses
    await model.applyReports(DB, 'Institution B', [report('quizzes', 'failed', { error: { kind: 'snapshotRequired', message: 'other credentials', reason: 'otherCredentials' } })], `https://gateway.example.edu/dap?client=${B_TAG}`);
    await model.applyReports(DB, 'Institution A', [report('users', 'unchanged', { kind: 'changes', rows: 373, point: '2026-11-24T04:00:00Z' })], `https://gateway.example.edu/dap?client=${A_TAG}`);
    assert.equal(model.stateOf('Institution A', 'canvas', 'users')?.source, `https://gateway.example.edu/dap?client=${A_TAG}`);
    assert.equal(model.stateOf('Institution B', 'canvas', 'users'), undefined, 'another account\'s table: a sync from B would be refused');
    assert.equal(model.stateOf('Institution B', 'canvas', 'courses')?.rows, 55, 'a row without client tag is still B\'s to adopt');

    // the connection now names another gateway: what its run said no longer counts
    sources['Institution B'] = 'https://api.example.com/dap';
    assert.equal(model.stateOf('Institution B', 'canvas', 'courses'), undefined);
    sources['Institution B'] = 'https://gateway.example.edu/dap';
    assert.equal(model.stateOf('Institution B', 'canvas', 'users'), undefined);
  });

  it('forgets the tables of the old target when the setting names another', () => {
    model.replaceStates(DB, [row('canvas', 'users', 373)]);
    model.useTarget('postgresql://sync@db/school', 'postgresql://sync@db/school');
    assert.deepEqual(model.list(), []);
    assert.equal(model.targetLabel, 'postgresql://sync@db/school');
    assert.deepEqual(changes.at(-1), { tables: [{ namespace: 'canvas', table: 'users' }] }, 'only the tables that were marked are redrawn');
  });

  it('follows the stage of the tables being synced until they are done or the run ends', () => {
    model.progress('Sample data', { namespace: 'canvas', table: 'users', stage: 'downloading', bytes: 10 });
    model.progress('Sample data', { namespace: 'canvas', table: 'courses', stage: 'queued' });
    assert.equal(model.activityOf('Sample data', 'canvas', 'users')?.stage, 'downloading');
    assert.equal(model.activityOf('Production', 'canvas', 'users'), undefined);
    model.progress('Sample data', { namespace: 'canvas', table: 'users', stage: 'done' });
    assert.equal(model.activityOf('Sample data', 'canvas', 'users'), undefined);
    model.endActivity('Sample data', 'canvas');
    assert.equal(model.activityOf('Sample data', 'canvas', 'courses'), undefined);
    assert.deepEqual(changes.at(-1), { tables: [{ namespace: 'canvas', table: 'courses' }] });
  });
});
