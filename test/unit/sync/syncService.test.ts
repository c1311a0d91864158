import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DqError, isDqError } from '../../../src/client/errors';
import type { Logger } from '../../../src/core/logger';
import { SyncedTablesModel, type OriginMemento } from '../../../src/extension/sync/syncedTablesModel';
import { SyncService } from '../../../src/extension/sync/syncService';
import { parseSyncTarget, type SyncTargetChoice } from '../../../src/extension/sync/syncTargetSetting';
import type { SyncHostClient } from '../../../src/sync/syncHostClient';
import type { SyncRunRequest, SyncServiceConfig, SyncStateSummary } from '../../../src/sync/syncProtocol';
import type { SyncProgress, TableSyncReport } from '../../../src/sync/syncReport';
import { FakeClock, flushMicrotasks } from '../../support/fakeClock';

/** A sync host whose runs end when the test says so; a finished run's tables are in its meta table. */
class HeldHost implements Pick<SyncHostClient, 'run' | 'listStates'> {
  readonly started: SyncRunRequest[] = [];
  readonly finish: ((reports: TableSyncReport[]) => void)[] = [];
  states: SyncStateSummary[] = [];
  listed = 0;
  private readonly waiters: { condition: () => boolean; resolve: () => void }[] = [];

  /** Resolves when the host has started `n` runs and answered `listed` readings of the meta table. */
  reached(n: number, listed = 0): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ condition: () => this.started.length >= n && this.listed >= listed, resolve });
      this.wake();
    });
  }

  run(request: SyncRunRequest, onProgress?: (p: SyncProgress) => void): Promise<TableSyncReport[]> {
    this.started.push(request);
    this.wake();
    for (const table of request.tables === 'all' ? [] : request.tables) onProgress?.({ namespace: request.namespace, table, stage: 'querying' });
    return new Promise<TableSyncReport[]>((resolve) => this.finish.push(resolve)).then(async (reports) => {
      await fs.writeFile(request.target, '');
      for (const r of reports) {
        if (r.outcome !== 'synced' || r.point === undefined || r.rows === undefined) continue;
        this.states = [...this.states.filter((s) => s.table !== r.table), { namespace: r.namespace, table: r.table, rows: r.rows, point: r.point, schemaVersion: 1, ranAt: r.point }];
      }
      return reports;
    });
  }

  async listStates(): Promise<SyncStateSummary[]> {
    this.listed++;
    setImmediate(() => this.wake());
    return this.states;
  }

  private wake(): void {
    for (const w of this.waiters.filter((w) => w.condition())) {
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve();
    }
  }
}

const SERVICE: SyncServiceConfig = { baseUrl: 'http://127.0.0.1:1', dataPrefix: 'dap', allowInsecureHttp: false, clientId: 'id', clientSecret: 'not-to-be-logged', proxy: {}, rateLimits: {}, userAgent: 't' };

function synced(table: string, rows: number): TableSyncReport {
  return { namespace: 'canvas', table, outcome: 'synced', kind: 'snapshot', upserted: rows, deleted: 0, rows, point: '2026-11-24T08:00:00Z', seconds: 1 };
}

describe('sync service: runs take turns on a target', () => {
  let dir: string;
  let host: HeldHost;
  let model: SyncedTablesModel;
  let lines: string[];
  let target: () => SyncTargetChoice;
  let service: SyncService;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-sync-service-'));
    host = new HeldHost();
    const memento = new Map<string, unknown>();
    const origins: OriginMemento = { get: <T>(k: string) => memento.get(k) as T | undefined, update: async (k, v) => void memento.set(k, v) };
    model = new SyncedTablesModel(origins, new FakeClock(0));
    lines = [];
    const add = (m: string): void => void lines.push(m);
    const logger: Logger = { trace: add, debug: add, info: add, warn: add, error: add };
    target = () => parseSyncTarget('', { globalStorage: path.join(dir, 'storage') });
    service = new SyncService({ host, model, target: () => target(), workDir: path.join(dir, 'work'), logger, serviceFor: async () => SERVICE });
  });

  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('starts a second run of the same database only when the first has ended, saying it waits', async () => {
    let waited = false;
    const first = service.run({ connection: 'Sample data', namespace: 'canvas', tables: ['users'], resnapshot: false });
    const second = service.run({ connection: 'Sample data', namespace: 'canvas', tables: ['courses'], resnapshot: false }, { onWaiting: () => (waited = true) });
    await host.reached(1);
    await flushMicrotasks();
    assert.deepEqual(host.started.map((r) => r.tables), [['users']]);
    assert.ok(waited);
    assert.equal(model.activityOf('Sample data', 'canvas', 'users')?.stage, 'querying', 'the tree shows the stage meanwhile');
    await fs.access(path.join(dir, 'storage')); // the local database's folder is made before the run

    host.finish[0]([synced('users', 5)]);
    const { reports } = await first;
    assert.deepEqual(reports.map((r) => r.outcome), ['synced']);
    assert.equal(model.stateOf('Sample data', 'canvas', 'users')?.rows, 5);
    assert.equal(model.activityOf('Sample data', 'canvas', 'users'), undefined);
    await host.reached(2);
    assert.deepEqual(host.started.map((r) => r.tables), [['users'], ['courses']]);
    host.finish[1]([{ ...synced('courses', 0), outcome: 'failed', error: { kind: 'jobFailed', message: 'The job failed', uuid: 'u-1' } }]);
    await second;
    await host.reached(2, 2);
    assert.equal(host.listed, 2, 'the meta table is read again after each run, in turn');
    assert.equal(model.stateOf('Sample data', 'canvas', 'users')?.rows, 5, 'as the meta table says');
    assert.ok(lines.some((l) => /Sync of canvas\.courses to .*sync\.duckdb failed: The job failed\. \(uuid u-1\)/.test(l)), lines.join('\n'));
    assert.ok(lines.every((l) => !l.includes(SERVICE.clientSecret)));
  });

  it('gives up waiting when cancelled, without starting the run', async () => {
    const first = service.run({ connection: 'Sample data', namespace: 'canvas', tables: ['users'], resnapshot: false });
    const stop = new AbortController();
    const second = service.run({ connection: 'Sample data', namespace: 'canvas', tables: ['courses'], resnapshot: false }, { signal: stop.signal });
    await host.reached(1);
    stop.abort();
    await assert.rejects(second, (err: unknown) => isDqError(err) && err.kind === 'cancelled');
    host.finish[0]([synced('users', 5)]);
    await first;
    await flushMicrotasks();
    assert.equal(host.started.length, 1);
  });

  it('reads the synced tables only when the database exists, and keeps a bad setting to a log line', async () => {
    await service.refresh();
    assert.equal(host.listed, 0, 'a missing local database is not opened (nor made)');
    await fs.mkdir(path.join(dir, 'storage'), { recursive: true });
    await fs.writeFile(path.join(dir, 'storage', 'sync.duckdb'), '');
    host.states = [{ namespace: 'canvas', table: 'users', rows: 9, point: '2026-11-24T08:00:00Z', schemaVersion: 1, ranAt: '2026-11-24T08:01:00Z' }];
    await service.refresh();
    assert.equal(model.stateOf('Sample data', 'canvas', 'users')?.rows, 9);

    target = () => {
      throw new DqError('usage', 'The setting dataQuery.sync.target contains a password.');
    };
    await service.refresh();
    assert.ok(lines.some((l) => /Synced tables are not shown: usage: The setting dataQuery\.sync\.target contains a password/.test(l)));
    await assert.rejects(service.run({ connection: 'Sample data', namespace: 'canvas', tables: ['users'], resnapshot: false }), /contains a password/);
  });
});
