// Where the PostgreSQL target finds its password, as PostgreSQL's own tools do: the URL,
// PGPASSWORD, then a password file whose lines match host, port, database and user (with
// `*` and backslash escapes). A file others can read is ignored. Real files, no server.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { postgresLabel } from '../../../src/sync/postgresConnection';
import { findPassword, matchPasswordFile } from '../../../src/sync/postgresPassword';

const want = { host: 'db.example.org', port: 5432, database: 'canvas', user: 'sync' };

describe('sync: PostgreSQL password lookup', () => {
  let home: string;
  before(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-pgpass-'));
  });
  after(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  it('takes the first line that matches host, port, database and user, with wildcards', () => {
    const text = [
      '# comments and blank lines are skipped',
      '',
      'db.example.org:5432:other:sync:wrong-database',
      'db.example.org:5433:*:sync:wrong-port',
      'db.example.org:*:canvas:sync:first-match',
      '*:*:*:*:catch-all',
    ].join('\n');
    assert.equal(matchPasswordFile(text, want), 'first-match');
    assert.equal(matchPasswordFile('*:*:*:*:catch-all\n', want), 'catch-all');
    assert.equal(matchPasswordFile('elsewhere:5432:canvas:sync:x\n', want), undefined);
  });

  it('reads escaped colons and backslashes, and a socket connection as localhost', () => {
    assert.equal(matchPasswordFile('db.example.org:5432:canvas:sync:pa\\:ss\\\\word\n', want), 'pa:ss\\word');
    assert.equal(matchPasswordFile('localhost:5432:canvas:sync:via-socket\r\n', { ...want, host: '/var/run/postgresql' }), 'via-socket');
  });

  it('prefers the URL, then PGPASSWORD, then the file; ignores a file others can read', async () => {
    const file = path.join(home, '.pgpass');
    await fs.writeFile(file, '*:*:*:*:from-file\n');
    await fs.chmod(file, 0o600);
    assert.deepEqual(await findPassword(want, { fromUrl: 'from-url', env: { PGPASSWORD: 'from-env' }, homeDir: home }), { password: 'from-url', origin: 'url' });
    assert.deepEqual(await findPassword(want, { env: { PGPASSWORD: 'from-env' }, homeDir: home }), { password: 'from-env', origin: 'PGPASSWORD' });
    assert.deepEqual(await findPassword(want, { env: {}, homeDir: home }), { password: 'from-file', origin: 'pgpass', file });
    const elsewhere = path.join(home, 'other-pgpass');
    await fs.writeFile(elsewhere, '*:*:*:*:from-pgpassfile\n', { mode: 0o600 });
    assert.equal((await findPassword(want, { env: { PGPASSFILE: elsewhere }, homeDir: home })).password, 'from-pgpassfile');
    await fs.chmod(file, 0o640);
    const warnings: string[] = [];
    const logger = { trace() {}, debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} };
    assert.deepEqual(await findPassword(want, { env: {}, homeDir: home, logger }), { origin: 'none', file });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /chmod 600/);
    assert.ok(!warnings[0].includes('from-file'));
    assert.deepEqual(await findPassword(want, { env: {}, homeDir: path.join(home, 'nobody-home') }), { origin: 'none' });
  });

  it('shows a URL without its password, in the user part or the query', () => {
    assert.equal(postgresLabel('postgresql://sync:s3cret@db.example.org:5432/canvas'), 'postgresql://sync@db.example.org:5432/canvas');
    assert.equal(postgresLabel('postgres://sync@db.example.org/canvas?sslmode=require&password=s3cret&sslkey=/k'), 'postgres://sync@db.example.org/canvas?sslmode=require');
    assert.equal(postgresLabel('postgresql:///canvas?host=%2Fvar%2Frun%2Fpostgresql'), 'postgresql:///canvas?host=/var/run/postgresql');
    assert.equal(postgresLabel('postgresql://sync%40school:p%40ss@db/canvas'), 'postgresql://sync@school@db/canvas');
  });
});
