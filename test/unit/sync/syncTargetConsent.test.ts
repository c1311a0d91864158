// A PostgreSQL server that a workspace's settings name as the sync target: the first sync to
// it asks (a modal naming the server, never a password), the answer is remembered per URL,
// a run by argument object is refused until the server was allowed, and the server's meta
// table is not read before. User settings, DuckDB files and the local database ask nothing.
// The modal itself is VS Code's; here its answers are given by the test.

import * as assert from 'node:assert/strict';
import { isDqError } from '../../../src/client/errors';
import type { Logger } from '../../../src/core/logger';
import { SyncedTablesModel, type OriginMemento } from '../../../src/extension/sync/syncedTablesModel';
import { SyncService } from '../../../src/extension/sync/syncService';
import { settingOrigin, SyncTargetConsent, type ConsentAnswer, type ConsentQuestion, type SettingOrigin } from '../../../src/extension/sync/syncTargetConsent';
import { parseSyncTarget, type SyncTargetChoice } from '../../../src/extension/sync/syncTargetSetting';
import type { SyncHostClient } from '../../../src/sync/syncHostClient';
import type { SyncRunRequest, SyncServiceConfig } from '../../../src/sync/syncProtocol';
import type { TableSyncReport } from '../../../src/sync/syncReport';
import { FakeClock } from '../../support/fakeClock';

const PLACES = { globalStorage: '/tmp/dq-consent-storage', home: '/home/ada' };
const WAREHOUSE = 'postgresql://etl@db.school.edu:5432/warehouse';
const SERVICE: SyncServiceConfig = { baseUrl: 'http://127.0.0.1:1', dataPrefix: 'dap', allowInsecureHttp: false, clientId: 'id', clientSecret: 'x', proxy: {}, rateLimits: {}, userAgent: 't' };

function memento(): OriginMemento & { values: Map<string, unknown> } {
  const values = new Map<string, unknown>();
  return { values, get: <T>(k: string) => values.get(k) as T | undefined, update: async (k, v) => void values.set(k, v) };
}

/** A modal whose answers the test gives in turn; it keeps what it was asked. */
class Dialog {
  readonly asked: ConsentQuestion[] = [];
  constructor(private readonly answers: ConsentAnswer[]) {}
  readonly ask = (question: ConsentQuestion): Promise<ConsentAnswer> => {
    this.asked.push(question);
    return Promise.resolve(this.answers.shift());
  };
}

/** A sync host that records what it is asked to do and answers at once. */
class RecordingHost implements Pick<SyncHostClient, 'run' | 'listStates'> {
  readonly runs: SyncRunRequest[] = [];
  readonly listed: string[] = [];
  async run(request: SyncRunRequest): Promise<TableSyncReport[]> {
    this.runs.push(request);
    return [{ namespace: 'canvas', table: 'users', outcome: 'synced', kind: 'snapshot', upserted: 1, deleted: 0, rows: 1, point: '2026-11-24T08:00:00Z', seconds: 1 }];
  }
  async listStates(target: string): Promise<[]> {
    this.listed.push(target);
    return [];
  }
}

describe('sync target consent: a PostgreSQL server a workspace names', () => {
  let memory: ReturnType<typeof memento>;
  let origin: SettingOrigin;
  let consent: SyncTargetConsent;
  const pg = (value = WAREHOUSE): SyncTargetChoice => parseSyncTarget(value, PLACES);

  beforeEach(() => {
    memory = memento();
    origin = 'workspace';
    consent = new SyncTargetConsent(memory, () => origin, {});
  });

  it('tells where the setting comes from: folder, then workspace, then user', () => {
    assert.equal(settingOrigin(undefined), 'default');
    assert.equal(settingOrigin({ globalValue: WAREHOUSE }), 'user');
    assert.equal(settingOrigin({ globalValue: '', workspaceValue: WAREHOUSE }), 'workspace');
    assert.equal(settingOrigin({ workspaceValue: WAREHOUSE, workspaceFolderValue: WAREHOUSE }), 'workspaceFolder');
  });

  it('asks once, naming the server (with host= and sslmode, never a password), and remembers "allow" for that URL', async () => {
    const target = pg(`${WAREHOUSE}?host=db2.school.edu&sslmode=disable`);
    const dialog = new Dialog(['allow']);
    await consent.confirm(target, dialog.ask);
    await consent.confirm(target, dialog.ask);
    assert.equal(dialog.asked.length, 1, 'asked once');
    const [q] = dialog.asked;
    assert.equal(q.message, 'Sync to the PostgreSQL server postgresql://etl@db.school.edu:5432/warehouse?host=db2.school.edu&sslmode=disable?');
    assert.match(q.detail, /This workspace's settings set dataQuery\.sync\.target to postgresql:\/\/etl@db\.school\.edu:5432\/warehouse\?host=db2\.school\.edu&sslmode=disable\./);
    assert.match(q.detail, /PGPASSWORD or ~\/\.pgpass/);
    assert.match(q.detail, /travel unencrypted/);
    assert.equal(consent.state(target), 'allowed');
    assert.ok(consent.mayConnect(target));

    // another URL, even on the same server, is another target
    const other = pg(`${WAREHOUSE}?sslmode=require`);
    assert.equal(consent.state(other), 'unasked');
    await assert.rejects(consent.confirm(other), (err: unknown) => isDqError(err) && err.kind === 'usage' && /not confirmed yet/.test(err.message) && /Sync Table/.test(err.hint ?? ''));

    // remembered in the memento, so a new window does not ask again
    const later = new SyncTargetConsent(memory, () => 'workspace', {});
    await later.confirm(target, new Dialog([]).ask);
    assert.equal(later.state(target), 'allowed');
  });

  it('remembers "don\'t sync" and refuses from then on without asking; a dismissed dialog is no answer', async () => {
    const target = pg();
    await assert.rejects(consent.confirm(target, new Dialog([undefined]).ask), (err: unknown) => isDqError(err) && err.kind === 'cancelled');
    assert.equal(consent.state(target), 'unasked');

    const dialog = new Dialog(['decline']);
    await assert.rejects(consent.confirm(target, dialog.ask), (err: unknown) => isDqError(err) && err.kind === 'usage' && /You chose not to sync to postgresql:\/\/etl@db\.school\.edu:5432\/warehouse/.test(err.message));
    await assert.rejects(consent.confirm(target, dialog.ask), (err: unknown) => isDqError(err) && err.details?.problem === 'targetDeclined');
    assert.equal(dialog.asked.length, 1);
    assert.doesNotMatch(dialog.asked[0].detail, /unencrypted/);

    await consent.forget(target);
    await consent.confirm(target, new Dialog(['allow']).ask);
    assert.equal(consent.state(target), 'allowed');
  });

  it('asks nothing for user settings, a DuckDB file or the local database', async () => {
    const never = new Dialog([]);
    origin = 'user';
    await consent.confirm(pg(), never.ask);
    await consent.confirm(pg());
    origin = 'workspace';
    await consent.confirm(parseSyncTarget('~/sync.duckdb', PLACES));
    await consent.confirm(parseSyncTarget('', PLACES));
    origin = 'workspaceFolder';
    assert.equal(consent.state(pg()), 'unasked');
    assert.equal(never.asked.length, 0);
  });

  it('asks the same for a MySQL server, naming MYSQL_PWD and ~/.my.cnf, and says when ssl-mode=DISABLED sends it unencrypted', async () => {
    const mysql = parseSyncTarget('mysql://etl@db.school.edu:3306/warehouse?ssl-mode=DISABLED', PLACES);
    assert.equal(consent.state(mysql), 'unasked');
    await assert.rejects(consent.confirm(mysql), (err: unknown) => isDqError(err) && /a MySQL server not confirmed yet/.test(err.message));
    const dialog = new Dialog(['allow']);
    await consent.confirm(mysql, dialog.ask);
    const [q] = dialog.asked;
    assert.equal(q.message, 'Sync to the MySQL server mysql://etl@db.school.edu:3306/warehouse?ssl-mode=DISABLED?');
    assert.match(q.detail, /signs in there with your MySQL password \(MYSQL_PWD or ~\/\.my\.cnf\)/);
    assert.match(q.detail, /ssl-mode=DISABLED: the password and the data travel unencrypted/);
    assert.equal(consent.state(mysql), 'allowed');
    const local = new Dialog(['allow']);
    await consent.confirm(parseSyncTarget('mysql://etl@127.0.0.1/warehouse?ssl-mode=DISABLED', PLACES), local.ask);
    assert.doesNotMatch(local.asked[0].detail, /unencrypted/, 'this machine: nothing travels');
  });

  it('asks for an s3:// object store a workspace names, naming the AWS credentials it signs in with', async () => {
    const lake = parseSyncTarget('s3://dq-lake/warehouse', PLACES);
    assert.equal(consent.state(lake), 'unasked');
    await assert.rejects(consent.confirm(lake), (err: unknown) => isDqError(err) && /an object store not confirmed yet/.test(err.message));
    const dialog = new Dialog(['decline']);
    await assert.rejects(consent.confirm(lake, dialog.ask), (err: unknown) => isDqError(err) && /chose not to sync to s3:\/\/dq-lake\/warehouse/.test(err.message));
    const [q] = dialog.asked;
    assert.equal(q.message, 'Sync to the object store s3://dq-lake/warehouse?');
    assert.match(q.detail, /your AWS credentials \(AWS_PROFILE, AWS_ACCESS_KEY_ID or ~\/\.aws\) and writes the synced tables there as Parquet files/);
    assert.equal(consent.state(lake), 'declined');
  });

  it('two syncs started together ask once', async () => {
    let answer!: (a: ConsentAnswer) => void;
    let asked = 0;
    const ask = (): Promise<ConsentAnswer> => {
      asked++;
      return new Promise((resolve) => (answer = resolve));
    };
    const both = Promise.all([consent.confirm(pg(), ask), consent.confirm(pg(), ask)]);
    await new Promise((resolve) => setImmediate(resolve));
    answer('allow');
    await both;
    assert.equal(asked, 1);
  });

  describe('in the sync service', () => {
    let host: RecordingHost;
    let service: SyncService;
    let lines: string[];

    beforeEach(() => {
      host = new RecordingHost();
      lines = [];
      const add = (m: string): void => void lines.push(m);
      const logger: Logger = { trace: add, debug: add, info: add, warn: add, error: add };
      const model = new SyncedTablesModel(memento(), new FakeClock(0));
      service = new SyncService({ host, model, target: () => pg(), workDir: '/tmp/dq-consent-work', logger, consent, serviceFor: async () => SERVICE });
    });

    const request = { connection: 'School', namespace: 'canvas', tables: ['users'], resnapshot: false };

    it('never reads the meta table of a server not allowed yet, and refuses a run that cannot ask, before the host is reached', async () => {
      await service.refresh();
      assert.deepEqual(host.listed, []);
      assert.ok(lines.some((l) => /are read once a sync to it is allowed/.test(l)), lines.join('\n'));
      await assert.rejects(service.run(request), (err: unknown) => isDqError(err) && err.kind === 'usage' && /argument object asks nothing/.test(err.message));
      assert.deepEqual(host.runs, []);
    });

    it('runs once the user allows the server, and reads its meta table from then on', async () => {
      const dialog = new Dialog(['allow']);
      await service.run(request, { ask: dialog.ask });
      assert.equal(dialog.asked.length, 1);
      assert.deepEqual(host.runs.map((r) => r.target), [WAREHOUSE]);
      await service.run(request);
      assert.equal(host.runs.length, 2, 'a run by argument object goes on once allowed');
      await service.refresh();
      assert.ok(host.listed.includes(WAREHOUSE));
    });
  });
});
