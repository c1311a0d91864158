// The editor's sync process against a real PostgreSQL server: the target is a postgresql://
// URL without a password (as the dataQuery.sync.target setting must be), and the password
// comes from PGPASSWORD in the environment the editor runs in, which the sync process
// inherits. It never shows in a log line, a report or an error, right or wrong.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isDqError } from '../../../src/client/errors';
import { SyncHostClient } from '../../../src/sync/syncHostClient';
import type { SyncRunRequest } from '../../../src/sync/syncProtocol';
import { startPostgres, type PostgresServer } from '../../support/postgresServer';
import { hostServiceOf, LogLines, SyncFixture } from './syncFixture';

const HOST_SCRIPT = path.resolve(__dirname, '../../../src/sync/syncHost.js');

describe('sync host: a PostgreSQL target, its password from the environment', function () {
  this.timeout(120_000);
  let pg: PostgresServer;
  let fixture: SyncFixture;
  let service: SyncRunRequest['service'];
  const log = new LogLines();
  let host: SyncHostClient;
  const savedPassword = process.env.PGPASSWORD;

  const request = (tables: string[]): SyncRunRequest => ({
    service,
    target: pg.urlWithoutPassword,
    namespace: 'canvas',
    tables,
    resnapshot: false,
    workDir: path.join(fixture.dir, 'work'),
  });

  before(async () => {
    [pg, fixture] = await Promise.all([startPostgres(), SyncFixture.start()]);
    service = await hostServiceOf(fixture.emulator);
    host = new SyncHostClient({ hostScript: HOST_SCRIPT, logger: log });
  });

  afterEach(() => {
    if (savedPassword === undefined) delete process.env.PGPASSWORD;
    else process.env.PGPASSWORD = savedPassword;
  });

  after(async () => {
    host?.dispose();
    await fixture?.close();
    await pg?.stop();
  });

  it('syncs a table with the password from PGPASSWORD, and reads its state back', async () => {
    process.env.PGPASSWORD = pg.password;
    const reports = await host.run(request(['users', 'courses']));
    assert.deepEqual(reports.map((r) => [r.table, r.outcome]), [['users', 'synced'], ['courses', 'synced']]);
    const [{ n }] = await pg.admin<{ n: string }>('SELECT count(*) AS n FROM canvas.users');
    assert.equal(Number(n), reports[0].rows);
    const states = await host.listStates(pg.urlWithoutPassword);
    assert.deepEqual(states.map((s) => [s.namespace, s.table, s.rows]), [['canvas', 'courses', reports[1].rows], ['canvas', 'users', reports[0].rows]]);
    const everything = JSON.stringify(reports) + JSON.stringify(states) + log.lines.join('\n');
    assert.ok(!everything.includes(pg.password), 'the password is in no report, state or log line');
  });

  it('says the password in PGPASSWORD was refused, without repeating it', async () => {
    const wrong = 'not-the-password-7731';
    process.env.PGPASSWORD = wrong;
    const err = await host.run(request(['users'])).then(
      () => assert.fail('the password is wrong'),
      (e: unknown) => e,
    );
    assert.ok(isDqError(err), String(err));
    const text = `${err.message} ${err.hint ?? ''}`;
    assert.match(text, /PGPASSWORD/);
    assert.ok(!text.includes(wrong) && !log.lines.join('\n').includes(wrong), text);
  });
});
