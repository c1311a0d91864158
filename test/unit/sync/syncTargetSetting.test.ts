import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isDqError } from '../../../src/client/errors';
import { parseSyncTarget } from '../../../src/extension/sync/syncTargetSetting';

const PLACES = { globalStorage: path.resolve('/storage/ext'), workspaceFolder: path.resolve('/work/project'), home: path.resolve('/home/ana') };

function refusal(raw: unknown): string {
  try {
    parseSyncTarget(raw, PLACES);
  } catch (err) {
    assert.ok(isDqError(err) && err.kind === 'usage', String(err));
    return `${err.message} ${err.hint ?? ''}`;
  }
  return assert.fail(`${String(raw)} should be refused`);
}

describe('the dataQuery.sync.target setting', () => {
  it('means the local database in the extension\'s storage when empty', () => {
    for (const raw of [undefined, null, '', '   ']) {
      const target = parseSyncTarget(raw, PLACES);
      assert.deepEqual(target, { kind: 'duckdb', path: path.join(PLACES.globalStorage, 'sync.duckdb'), spec: path.join(PLACES.globalStorage, 'sync.duckdb'), label: path.join(PLACES.globalStorage, 'sync.duckdb'), local: true });
    }
  });

  it('takes a DuckDB file as a path or duckdb:PATH, relative to the workspace folder, ~ for home', () => {
    assert.equal(parseSyncTarget('/data/school.duckdb', PLACES).spec, path.resolve('/data/school.duckdb'));
    assert.equal(parseSyncTarget('duckdb:/data/school.duckdb', PLACES).spec, path.resolve('/data/school.duckdb'));
    assert.equal(parseSyncTarget('db/school.duckdb', PLACES).spec, path.join(PLACES.workspaceFolder, 'db', 'school.duckdb'));
    assert.equal(parseSyncTarget('~/sync/school.duckdb', PLACES).spec, path.join(PLACES.home, 'sync', 'school.duckdb'));
    assert.equal(parseSyncTarget('school.duckdb', { globalStorage: PLACES.globalStorage }).spec, path.join(PLACES.globalStorage, 'school.duckdb'), 'no folder open: from the storage');
    assert.equal(parseSyncTarget('db/school.duckdb', PLACES).local, false);
  });

  it('takes an s3://bucket/prefix URL, and refuses one with credentials naming the setting, never repeating them', () => {
    assert.deepEqual(parseSyncTarget('s3://dq-lake/warehouse/', PLACES), { kind: 'lake', spec: 's3://dq-lake/warehouse', label: 's3://dq-lake/warehouse', local: false });
    const text = refusal('s3://AKIAKEY:wJalr-secret@dq-lake/warehouse');
    assert.match(text, /dataQuery\.sync\.target is not a usable s3:\/\/bucket\/prefix URL/);
    assert.match(text, /AWS_PROFILE/);
    assert.ok(!text.includes('wJalr-secret'));
    assert.match(refusal('s3://Dq_Lake/x'), /bucket name "Dq_Lake"/);
  });

  it('takes a postgresql:// URL without a password, shown without its query', () => {
    const target = parseSyncTarget('postgresql://sync@db.school.edu:5432/warehouse?sslmode=require', PLACES);
    assert.deepEqual(target, { kind: 'postgresql', spec: 'postgresql://sync@db.school.edu:5432/warehouse?sslmode=require', label: 'postgresql://sync@db.school.edu:5432/warehouse', local: false });
    assert.equal(parseSyncTarget('postgres://db.school.edu/warehouse', PLACES).kind, 'postgresql');
    // a Unix socket, as `dq sync --to` takes it
    assert.equal(parseSyncTarget('postgresql:///warehouse?host=/var/run/postgresql', PLACES).label, 'postgresql:///warehouse');
  });

  it('takes a mysql:// or mariadb:// URL without a password, shown without its query; refuses one with a password, or without a database', () => {
    const target = parseSyncTarget('mysql://sync@db.school.edu:3306/warehouse?ssl-mode=REQUIRED', PLACES);
    assert.deepEqual(target, { kind: 'mysql', spec: 'mysql://sync@db.school.edu:3306/warehouse?ssl-mode=REQUIRED', label: 'mysql://sync@db.school.edu:3306/warehouse', local: false });
    assert.equal(parseSyncTarget('mariadb://sync@db.school.edu/warehouse', PLACES).label, 'mariadb://sync@db.school.edu/warehouse');
    for (const raw of ['mysql://sync:s3cret-pw@db.school.edu/warehouse', 'mysql://sync@db.school.edu/warehouse?password=s3cret-pw']) {
      const text = refusal(raw);
      assert.match(text, /contains a password/);
      assert.match(text, /MYSQL_PWD.*~\/\.my\.cnf/);
      assert.ok(!text.includes('s3cret-pw'), text);
    }
    assert.match(refusal('mysql://sync@db.school.edu'), /names no database\. Write it as mysql:\/\/user@host:3306\/database/);
    assert.match(refusal('mysql://sync@db.school.edu/warehouse?sslmod=DISABLED'), /not a valid mysql:\/\/ URL.*the parameter "sslmod" this target does not know/);
    const broken = refusal('mysql://sync:s3cret/pw@db.school.edu/warehouse');
    assert.match(broken, /not a valid mysql:\/\/ URL/);
    assert.ok(!broken.includes('s3cret'));
  });

  it('refuses a password in the setting, in the URL or its query, and never repeats it', () => {
    for (const raw of ['postgresql://sync:s3cret-pw@db.school.edu/warehouse', 'postgresql://sync@db.school.edu/warehouse?password=s3cret-pw', 'postgresql://sync@db.school.edu/warehouse?sslpassword=s3cret-pw']) {
      const text = refusal(raw);
      assert.match(text, /contains a password/);
      assert.match(text, /PGPASSWORD.*~\/\.pgpass/);
      assert.ok(!text.includes('s3cret-pw'), text);
    }
    const broken = refusal('postgresql://sync:s3cret-pw@[not a host/warehouse');
    assert.match(broken, /not a valid postgresql:\/\/ URL/);
    assert.ok(!broken.includes('s3cret-pw'));
  });

  it('says what to write for other databases, an empty duckdb: and a value that is not text', () => {
    assert.match(refusal('sqlserver://root@localhost/school'), /cannot be synced to.*DuckDB file path.*postgresql:\/\/.*mysql:\/\//);
    assert.match(refusal('duckdb:'), /without a file/);
    assert.match(refusal(42), /must be text/);
  });
});
