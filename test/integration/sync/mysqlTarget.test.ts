// The MySQL sync target against a real MariaDB server (Debian's package, started by the test in
// a temporary folder): snapshots and change sets written as the service writes result objects
// (gzip JSONL), values MySQL must keep exactly (64-bit integers, microseconds, text with tabs,
// backslashes and emoji), schema growth, and what must never happen: a half-applied run after
// a bad record, an abort or a connection killed in the middle of a load, two syncs on one table,
// names MySQL cannot take reaching a job, the database password in a label, an error or a log.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { tableLockName } from '../../../src/sync/mysqlSql';
import { dqRejection } from '../../support/dqRejection';
import { tablesOf } from './mysqlRows';
import { errorTexts, line, mysqlTargetSuite, plan, serverTargetCases, usersTable, type RecordSpec, type Row } from './serverTargetSuite';
import { renamingClient, SyncFixture, sourceOf, syncInto, writeGzJsonl } from './syncFixture';

describe('sync: MySQL target (real MariaDB server)', function () {
  this.timeout(120_000);
  const suite = mysqlTargetSuite();
  const { target, gzFile, users, until, seeded } = suite;

  // the change-set cases every server target passes alike, here with a point in fractions of a second
  serverTargetCases(suite, '2026-11-20T12:00:00.25Z');

  /** The connection id of the dq_sync session running a statement like `pattern`, once there is one. */
  async function runningStatement(pattern: string): Promise<number> {
    let id = 0;
    await until(`a statement like ${pattern}`, async () => {
      const rows = await suite.server.admin<{ id: number }>(`SELECT ID AS id FROM information_schema.PROCESSLIST WHERE USER = 'dq_sync' AND INFO LIKE ?`, [pattern]);
      id = Number(rows[0]?.id ?? 0);
      return id > 0;
    });
    return id;
  }

  it('opens with a meta table and a label without the password; opened read-only, creates nothing', async () => {
    const reader = target({ readOnly: true });
    await reader.open();
    assert.deepEqual(await reader.listStates(), []);
    assert.deepEqual(await reader.syncedTables(), []);
    assert.deepEqual(await tablesOf(suite.server), [], 'read-only: no meta table made');
    const t = target();
    await t.open();
    assert.equal(t.label, suite.server.urlWithoutPassword);
    assert.deepEqual(await tablesOf(suite.server), ['dq_sync_state']);
    assert.deepEqual(await t.listStates(), []);
  });

  it('loads a snapshot with typed and nested columns, exactly; of repeated keys the newest record wins, then the later one', async () => {
    const t = target();
    await t.open();
    const big = '9223372036854775807';
    const first = await writeGzJsonl(suite.tmp, [
      line({
        ts: '2026-11-19T08:00:00Z',
        key: { id: 1 },
        value: { name: 'Ada 😀', score: 9.5, active: true, level: 3, created_at: '2020-01-02T03:04:05.678901+02:00', birthday: '1990-12-10', address: { city: 'Oslo' }, tags: ['a', 'b'] },
      }),
      line({ ts: '2026-11-19T09:00:00Z', key: { id: 2 }, value: { name: 'Bo (newest)' } }),
      line({ ts: '2026-11-19T08:00:00Z', key: { id: 3 }, value: { name: 'Cy (first)' } }),
      // a 64-bit id a JS number cannot hold, nested in JSON too
      `{"meta":{"action":"U","ts":"2026-11-19T08:00:00Z"},"key":{"id":${big}},"value":{"name":"Max","tags":{"ids":[${big},9007199254740993]}}}`,
    ]);
    const second = await gzFile([
      { ts: '2026-11-19T07:00:00Z', key: { id: 2 }, value: { name: 'Bo (older, later file)' } },
      { ts: '2026-11-19T08:00:00Z', key: { id: 3 }, value: { name: 'Cy (same time, later)' } },
      { ts: '2026-11-19T08:00:00Z', key: { id: 4 }, value: { name: 'Di "quoted" \\N back\\slash, comma\ttab\nline', tags: { nested: { deep: [1, null] } } } },
    ]);
    const result = await t.apply(plan('snapshot', [first, second], '2026-11-20T08:00:00Z'));
    assert.deepEqual(result, { upserted: 5, deleted: 0, rows: 5 });

    const rows = await suite.server.admin<Row>(
      `SELECT CAST(id AS CHAR) AS id, name, score, active, level, CAST(created_at AS CHAR) AS created_at, CAST(birthday AS CHAR) AS birthday, \`address.city\` AS city, CAST(tags AS CHAR) AS tags
        FROM canvas__users ORDER BY id`,
    );
    assert.deepEqual(
      rows.map((r) => [r.id, r.name]),
      [
        ['1', 'Ada 😀'],
        ['2', 'Bo (newest)'],
        ['3', 'Cy (same time, later)'],
        ['4', 'Di "quoted" \\N back\\slash, comma\ttab\nline'],
        [big, 'Max'],
      ],
    );
    const ada = rows[0];
    assert.deepEqual([ada.score, ada.active, ada.level, ada.created_at, ada.birthday, ada.city], [9.5, 1, 3, '2020-01-02 01:04:05.678901', '1990-12-10', 'Oslo']);
    assert.deepEqual(JSON.parse(String(ada.tags)), ['a', 'b']);
    assert.match(String(rows[4].tags), new RegExp(`\\[${big}, ?9007199254740993\\]`), 'the JSON keeps every digit');
    assert.equal(rows[1].score, null);

    const state = await t.readState('canvas', 'users');
    assert.equal(JSON.stringify(state?.schema), JSON.stringify(usersTable().schema), 'the schema as written, members in order');
    assert.deepEqual(state, { namespace: 'canvas', table: 'users', point: '2026-11-20T08:00:00Z', schemaVersion: 1, schema: usersTable().schema, rows: 5, ranAt: '2026-11-20T09:00:00Z' });
    assert.deepEqual(await t.listStates(), [state]);
    assert.ok(!JSON.stringify(await suite.server.admin('SELECT * FROM dq_sync_state')).includes(suite.server.password), 'the meta table holds no password');
  });

  it('a server that requires a primary key on every table (innodb_force_primary_key) gets one from the start: the same rows, repeated keys merged', async () => {
    await suite.server.admin('SET GLOBAL innodb_force_primary_key = 1');
    try {
      const t = target();
      await t.open();
      const file = await gzFile([
        { ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'Ada (older)' } },
        { ts: '2026-11-19T09:00:00Z', key: { id: 1 }, value: { name: 'Ada' } },
        { ts: '2026-11-19T08:00:00Z', key: { id: 2 }, value: { name: 'Bo' } },
      ]);
      assert.deepEqual(await t.apply(plan('snapshot', [file], '2026-11-20T08:00:00Z')), { upserted: 2, deleted: 0, rows: 2 });
      const changes = await gzFile([
        { ts: '2026-11-20T09:00:00Z', action: 'D', key: { id: 2 } },
        { ts: '2026-11-20T09:00:00Z', key: { id: 3 }, value: { name: 'Cy' } },
      ]);
      assert.deepEqual(await t.apply(plan('changes', [changes], '2026-11-20T12:00:00Z')), { upserted: 1, deleted: 1, rows: 2 });
      assert.deepEqual((await users()).map((r) => [String(r.id), r.name]), [['1', 'Ada'], ['3', 'Cy']]);
    } finally {
      await suite.server.admin('SET GLOBAL innodb_force_primary_key = 0');
    }
  });

  it('a value that does not fit its column fails naming the file, line and column, and keeps the table and meta row as they were', async () => {
    const { t, keptLastRun } = await seeded();
    const cases: [RecordSpec, RegExp][] = [
      [{ ts: '2026-11-20T09:00:00Z', key: { id: 4 }, value: { level: 2 ** 31 } }, /the value of "level" is not a 32-bit integer/],
      [{ ts: '2026-11-20T09:00:00Z', key: { id: 4 }, value: { created_at: 'yesterday' } }, /the value of "created_at" is not a date and time/],
      [{ ts: '2026-11-20T09:00:00Z', key: {}, value: { name: 'no key' } }, /it has no value for the key column "id"/],
    ];
    for (const [bad, said] of cases) {
      const file = await gzFile([{ ts: '2026-11-20T09:00:00Z', action: 'D', key: { id: 1 } }, bad]);
      for (const kind of ['changes', 'snapshot'] as const) {
        const err = await dqRejection(t.apply(plan(kind, [file], '2026-11-20T12:00:00Z')));
        assert.equal(err.kind, 'invalidResponse', err.describe());
        assert.match(err.message, new RegExp(`^Line 2 of ${path.basename(file).replace(/\./g, '\\.')}, a result file of canvas\\.users, cannot be loaded`));
        assert.match(err.message, said);
        await keptLastRun(`${kind}: ${said}`);
      }
    }
  });

  it('loads a record of 15 MiB whole, in packets under the server\'s max_allowed_packet', async () => {
    await seeded();
    const big = 'x'.repeat(15 * 1024 * 1024);
    const file = await gzFile([{ ts: '2026-11-20T09:00:00Z', key: { id: 9 }, value: { name: big } }]);
    // the rows go in packets well under the server's max_allowed_packet, however long a record
    await suite.server.admin('SET GLOBAL max_allowed_packet = 8388608');
    try {
      await target().apply(plan('changes', [file], '2026-11-20T12:00:00Z'));
    } finally {
      await suite.server.admin('SET GLOBAL max_allowed_packet = 16777216');
    }
    const [{ length }] = await suite.server.admin<{ length: unknown }>('SELECT LENGTH(name) AS length FROM canvas__users WHERE id = 9');
    assert.equal(Number(length), big.length);
  });

  it('a connection killed in the middle of a load (KILL from another session) fails as network, and the table keeps its last run', async () => {
    const { t, keptLastRun } = await seeded();
    const good = await gzFile([{ ts: '2026-11-20T09:00:00Z', key: { id: 1 }, value: { name: 'changed' } }]);
    for (const kind of ['snapshot', 'changes'] as const) {
      const err = await suite.stalledApply(
        t,
        (fifo) => plan(kind, [good, fifo], '2026-11-20T12:00:00Z'),
        async () => {
          const id = await runningStatement('LOAD DATA LOCAL INFILE%');
          await suite.server.admin(`KILL ${id}`);
        },
      );
      assert.equal(err.kind, 'network', err.describe());
      assert.match(err.message, /keeps its last complete run/);
      await keptLastRun(kind);
    }
    // the lock died with its session: the table is free, and the next run applies
    const result = await t.apply(plan('changes', [good], '2026-11-20T12:00:00Z'));
    assert.equal(result.upserted, 1);
    assert.deepEqual((await tablesOf(suite.server)).filter((n) => n.startsWith('dq_') && n !== 'dq_sync_state' && !n.startsWith('dq_new_')), []);
  });

  it('rolls back when aborted in the middle of a file, and lets go of the table', async () => {
    const { t, keptLastRun } = await seeded();
    const good = await gzFile([{ ts: '2026-11-20T09:00:00Z', key: { id: 1 }, value: { name: 'changed' } }]);
    const abort = new AbortController();
    const err = await suite.stalledApply(
      t,
      (fifo) => plan('changes', [good, fifo], '2026-11-20T12:00:00Z', { signal: abort.signal }),
      async () => {
        await runningStatement('LOAD DATA LOCAL INFILE%');
        abort.abort();
      },
    );
    assert.equal(err.kind, 'cancelled', err.describe());
    assert.match(err.message, /keeps its last complete run/);
    await keptLastRun();
    const release = await target({ lockWaitMs: 0 }).lockTable('canvas', 'users');
    await release();
  });

  it('keeps a second sync off a table until the first lets go, saying once that it waits and naming the holder; other tables stay free', async () => {
    const first = target();
    const second = target({ lockWaitMs: 300 });
    await first.open();
    await second.open();
    const release = await first.lockTable('canvas', 'users');
    const err = await dqRejection(second.lockTable('canvas', 'users'));
    assert.equal(err.kind, 'io', err.describe());
    assert.match(err.message, /^Another sync \(connection \d+, dq_sync@127\.0\.0\.1:\d+\) is applying canvas\.users in MySQL at mysql:\/\/dq_sync@127\.0\.0\.1:\d+\/dq_test; waited 0\.\d s\.$/);
    assert.equal(suite.log.lines.filter((l) => l.startsWith('waiting up to')).length, 1, 'one warning');
    // a name MySQL may hold as the same table (on systems without case) shares the lock
    await dqRejection(second.lockTable('canvas', 'USERS'));
    const other = await second.lockTable('canvas', 'courses');
    await other();

    const patient = target({ lockWaitMs: 20_000 });
    await patient.open();
    const waiting = patient.lockTable('canvas', 'users');
    await until('the second sync to wait', () => suite.log.lines.filter((l) => l.startsWith('waiting up to')).length === 3);
    await release();
    const got = await waiting;
    await got();
    await got(); // twice is safe
  });

  it('refuses, before any job, a table whose MySQL name would be longer than 64 characters, and columns MySQL cannot take, naming them', async () => {
    const fixture = await SyncFixture.start({ rows: 50 });
    try {
      const long = `t${'x'.repeat(60)}`; // canvas__ + 61 = 69 characters
      const client = renamingClient(fixture.client, { tables: { [long]: 'users', courses: 'courses' } });
      const reports = await syncInto(target(), { client, source: sourceOf(fixture.client), namespace: 'canvas', tables: 'all', logger: suite.log });
      assert.deepEqual(reports.map((r) => [r.table, r.outcome]), [[long, 'failed'], ['courses', 'synced']]);
      assert.equal(reports[0].error?.kind, 'usage');
      assert.equal(reports[0].error?.message, `"canvas.${long}" would be the MySQL table "canvas__${long}", which is 69 characters long, and MySQL takes names of at most 64. It was not synced.`);
      assert.equal(client.jobs, 1, 'a job for courses only');

      const columns = { name: `n${'a'.repeat(64)}`, sortable_name: 'sortable 😀', locale: 'trailing ' };
      const named = renamingClient(fixture.client, { tables: { users: 'users' }, columns });
      const [r] = await syncInto(target(), { client: named, source: sourceOf(fixture.client), namespace: 'canvas', tables: ['users'], logger: suite.log });
      assert.equal(r.outcome, 'failed');
      assert.equal(r.error?.kind, 'usage');
      assert.ok(r.error?.message.startsWith(`The schema of canvas.users names columns the target ${suite.server.urlWithoutPassword} cannot take: `), r.error?.message);
      for (const said of [`"n${'a'.repeat(64)}" is 65 characters long`, '"sortable 😀" holds a character outside the Basic Multilingual Plane', '"trailing " ends with a space']) {
        assert.ok(r.error?.message.includes(said), `${said} in ${r.error?.message}`);
      }
      const cased = renamingClient(fixture.client, { tables: { users: 'users' }, columns: { name: 'Name', sortable_name: 'name' } });
      const [c] = await syncInto(target(), { client: cased, source: sourceOf(fixture.client), namespace: 'canvas', tables: ['users'], logger: suite.log });
      assert.match(c.error?.message ?? '', /columns that would be one column in mysql:.*"Name" and "name" \(MySQL does not tell upper from lower case apart/);
      assert.equal(named.jobs + cased.jobs, 0, 'no job was made');
      assert.ok(!(await tablesOf(suite.server)).some((n) => n.includes('users')));
    } finally {
      await fixture.close();
    }
  });

  it('refuses a table of another namespace that would share a MySQL table with one already synced', async () => {
    const { t } = await seeded();
    const err = await dqRejection(t.lockTable('CANVAS', 'users'));
    assert.equal(err.kind, 'usage');
    assert.equal(err.message, `"CANVAS.users" would be the MySQL table "CANVAS__users", which "canvas.users" already fills in ${suite.server.urlWithoutPassword}. It was not synced.`);
    // `a__b` + `c` and `a` + `b__c` are one name
    const file = await gzFile([{ ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'Ada' } }]);
    await t.apply(plan('snapshot', [file], '2026-11-20T08:00:00Z', { table: { ...usersTable(), namespace: 'a__b', table: 'c' } }));
    const prefixed = await dqRejection(t.lockTable('a', 'b__c'));
    assert.match(prefixed.message, /^"a\.b__c" would be the MySQL table "a__b__c", which "a__b\.c" already fills/);
  });

  it('never shows the password: a wrong one fails as auth, naming where it came from; MYSQL_PWD and ~/.my.cnf are read, a file anyone may change is not', async () => {
    const wrong = 'wrong-pw-5b1d';
    const bad = target({ url: suite.server.url.replace(suite.server.password, wrong) });
    const err = await dqRejection(bad.open());
    assert.equal(err.kind, 'auth', err.describe());
    assert.match(err.message, /refused the login .* using the password in the URL/);
    assert.ok(!errorTexts(err).includes(wrong) && !bad.label.includes(wrong));

    const none = await dqRejection(target({ url: suite.server.urlWithoutPassword }).open());
    assert.equal(none.kind, 'auth', none.describe());
    assert.match(none.hint ?? '', /MYSQL_PWD or in the \[client\] group of ~\/\.my\.cnf/);

    await target({ url: suite.server.urlWithoutPassword, env: { MYSQL_PWD: suite.server.password } }).open();
    const home = await fs.mkdtemp(path.join(suite.tmp, 'home-'));
    const cnf = path.join(home, '.my.cnf');
    await fs.writeFile(cnf, `[client]\npassword=${suite.server.password}\n`, { mode: 0o600 });
    await target({ url: suite.server.urlWithoutPassword, homeDir: home }).open();
    await fs.chmod(cnf, 0o666);
    const open = await dqRejection(target({ url: suite.server.urlWithoutPassword, homeDir: home }).open());
    assert.equal(open.kind, 'auth', open.describe());
    assert.ok(suite.log.lines.some((l) => l.includes(`ignoring the option file ${cnf}: anyone may change it`)));
    for (const l of suite.log.lines) assert.ok(!l.includes(wrong));
  });

  it('holds no lock another sync must wait for after a run, and lets another process take the table', async () => {
    const { t } = await seeded();
    const name = tableLockName(suite.server.database, 'canvas', 'users');
    const [{ used }] = await suite.server.admin<{ used: unknown }>('SELECT IS_USED_LOCK(?) AS used', [name]);
    assert.equal(used, null, 'no session holds the lock after the apply');
    await t.close();
  });
});
