// The editor's sync process against a real MariaDB server: the target is a mysql:// URL without a
// password (as the dataQuery.sync.target setting must be), and the password comes from
// MYSQL_PWD in the environment the editor runs in, which the sync process inherits. It never
// shows in a log line, a report or an error, right or wrong.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isDqError } from '../../../src/client/errors';
import { parseSyncTarget } from '../../../src/extension/sync/syncTargetSetting';
import { SyncHostClient } from '../../../src/sync/syncHostClient';
import type { SyncRunRequest } from '../../../src/sync/syncProtocol';
import { requireMariadb, startMariadb, type MariadbServer } from '../../support/mariadbServer';
import { hostServiceOf, LogLines, SyncFixture } from './syncFixture';

const HOST_SCRIPT = path.resolve(__dirname, '../../../src/sync/syncHost.js');

describe('sync host: a MySQL target, its password from the environment', function () {
  this.timeout(120_000);
  let db: MariadbServer;
  let fixture: SyncFixture;
  let service: SyncRunRequest['service'];
  const log = new LogLines();
  let host: SyncHostClient;
  const savedPassword = process.env.MYSQL_PWD;

  const request = (tables: string[]): SyncRunRequest => ({
    // the target as the setting gives it to the sync process
    service,
    target: parseSyncTarget(db.urlWithoutPassword, { globalStorage: fixture.dir }).spec,
    namespace: 'canvas',
    tables,
    resnapshot: false,
    workDir: path.join(fixture.dir, 'work'),
  });

  before(async function () {
    requireMariadb(this);
    [db, fixture] = await Promise.all([startMariadb(), SyncFixture.start()]);
    service = await hostServiceOf(fixture.emulator);
    host = new SyncHostClient({ hostScript: HOST_SCRIPT, logger: log });
  });

  afterEach(() => {
    if (savedPassword === undefined) delete process.env.MYSQL_PWD;
    else process.env.MYSQL_PWD = savedPassword;
  });

  after(async () => {
    host?.dispose();
    await fixture?.close();
    await db?.stop();
  });

  it('syncs tables with the password from MYSQL_PWD, and reads their state back', async () => {
    process.env.MYSQL_PWD = db.password;
    const reports = await host.run(request(['users', 'courses']));
    assert.deepEqual(reports.map((r) => [r.table, r.outcome]), [['users', 'synced'], ['courses', 'synced']]);
    const [{ n }] = await db.admin<{ n: unknown }>('SELECT COUNT(*) AS n FROM canvas__users');
    assert.equal(Number(n), reports[0].rows);
    const states = await host.listStates(db.urlWithoutPassword);
    assert.deepEqual(states.map((s) => [s.namespace, s.table, s.rows]), [['canvas', 'courses', reports[1].rows], ['canvas', 'users', reports[0].rows]]);
    const everything = JSON.stringify(reports) + JSON.stringify(states) + log.lines.join('\n');
    assert.ok(!everything.includes(db.password), 'the password is in no report, state or log line');
  });

  it('says the password in MYSQL_PWD was refused, without repeating it', async () => {
    const wrong = 'not-the-password-4410';
    process.env.MYSQL_PWD = wrong;
    const err = await host.run(request(['users'])).then(
      () => assert.fail('the password is wrong'),
      (e: unknown) => e,
    );
    assert.ok(isDqError(err), String(err));
    const text = `${err.message} ${err.hint ?? ''}`;
    assert.match(text, /refused the login .* using the password in MYSQL_PWD/);
    assert.ok(!text.includes(wrong) && !log.lines.join('\n').includes(wrong), text);
  });
});
