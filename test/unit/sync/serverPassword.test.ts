// The password files of the two server targets side by side, each read by its own server's
// rules: PostgreSQL passes over a ~/.pgpass that others may read, MySQL only a ~/.my.cnf that
// anyone may change (one others may read is MySQL's usual), and an empty MySQL password is none.
// The warning names the file and never the password. Real files in a temporary home.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findMysqlPassword } from '../../../src/sync/mysqlPassword';
import { findPassword } from '../../../src/sync/postgresPassword';
import { MemoryLogger } from '../client/clientFixture';

const want = { host: 'db.example.org', port: 5432, database: 'canvas', user: 'sync' };

describe('sync: each server target reads its password file by its own rules', () => {
  let home: string;
  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-password-files-'));
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  it('PostgreSQL passes over a password file others may read, MySQL over an option file anyone may change', async () => {
    const pgpass = path.join(home, '.pgpass');
    const mycnf = path.join(home, '.my.cnf');
    await fs.writeFile(pgpass, '*:*:*:*:pg-secret\n');
    await fs.writeFile(mycnf, '[client]\npassword=my-secret\n');

    // readable by others, written only by the owner: MySQL reads it, PostgreSQL does not
    await fs.chmod(pgpass, 0o644);
    await fs.chmod(mycnf, 0o644);
    const pg = new MemoryLogger();
    assert.deepEqual(await findPassword(want, { env: {}, homeDir: home, logger: pg }), { origin: 'none', file: pgpass });
    assert.deepEqual(await findMysqlPassword({ env: {}, homeDir: home }), { password: 'my-secret', origin: 'optionFile', file: mycnf });
    assert.deepEqual(pg.lines.map((l) => l.split(' ')[0]), ['warn']);
    assert.ok(pg.lines[0].includes(pgpass) && !pg.lines[0].includes('pg-secret'), pg.lines[0]);

    // anyone may change it: MySQL passes over it too, and says so
    await fs.chmod(mycnf, 0o666);
    const my = new MemoryLogger();
    assert.deepEqual(await findMysqlPassword({ env: {}, homeDir: home, logger: my }), { origin: 'none', file: mycnf });
    assert.deepEqual(my.lines.map((l) => l.split(' ')[0]), ['warn']);
    assert.ok(my.lines[0].includes(mycnf) && !my.lines[0].includes('my-secret'), my.lines[0]);
    assert.match(my.lines[0], /chmod 600/);
  });

  it('takes an empty password in the MySQL option file as none', async () => {
    await fs.writeFile(path.join(home, '.my.cnf'), '[client]\npassword=\n', { mode: 0o600 });
    assert.deepEqual(await findMysqlPassword({ env: {}, homeDir: home }), { origin: 'none', file: path.join(home, '.my.cnf') });
  });
});
