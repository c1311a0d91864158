// Syncing the emulator's tables into a real MariaDB server (Debian's package, started by the test
// in a temporary folder), as a person relies on it: after a snapshot at an older point and
// incrementals to newer ones (upserts and deletes, a logs table delivered with some records
// twice), every table equals the emulator's own snapshot at the point reached, row for row, and
// the meta table says so. Schema changes: an added column in place, a changed type by
// --resnapshot. `dq sync` killed with SIGKILL in the middle of applying (its rows written, its
// meta row not yet) leaves every table and meta row at the last complete run, for a change set
// and for a snapshot, and the next `dq sync` ends equal. A server that forbids LOCAL INFILE says
// so once and syncs by INSERTs to the same rows. The password, from MYSQL_PWD or the URL, never
// shows in what dq prints.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { metaLockName, tableLockName } from '../../../src/sync/mysqlSql';
import { MysqlTarget } from '../../../src/sync/mysqlTarget';
import type { TableSyncReport } from '../../../src/sync/syncReport';
import type { SyncState } from '../../../src/sync/syncTarget';
import { runDq } from '../../support/cliHarness';
import { requireMariadb, startMariadb, type MariadbServer } from '../../support/mariadbServer';
import { dqSync, type DqSyncProcess, type FinishedDq } from './dqSyncProcess';
import { emptyDatabase, mysqlRows, mysqlTable, quote, RAW_META, tablesOf, type RawMetaRow } from './mysqlRows';
import { assertSameRows, dqEnvOf, LogLines, SyncFixture, syncInto, walkPoints, walkSchemaChanges, withTarget, type SyncOptions, type TableRows } from './syncFixture';

const ROWS = 3000;

describe('sync to MySQL from the emulator (real MariaDB server)', function () {
  this.timeout(180_000);
  let db: MariadbServer;
  let fixture: SyncFixture;
  const log = new LogLines();

  before(async function () {
    requireMariadb(this);
    // web_logs as the service delivers logs: at least once, some records twice
    [db, fixture] = await Promise.all([startMariadb(), SyncFixture.start({ rows: ROWS, duplicates: 0.02 })]);
  });
  after(async () => {
    await fixture?.close();
    await db?.stop();
  });

  function target(logger = log): MysqlTarget {
    return new MysqlTarget({ url: db.url, logger, env: {}, homeDir: fixture.dir });
  }

  function sync(options: SyncOptions, logger = log): Promise<TableSyncReport[]> {
    return syncInto(target(logger), { ...options, logger });
  }

  function states(): Promise<SyncState[]> {
    const reader = new MysqlTarget({ url: db.urlWithoutPassword, logger: log, env: { MYSQL_PWD: db.password }, homeDir: fixture.dir, readOnly: true });
    return withTarget(reader, (t) => t.listStates());
  }

  const rows = (namespace: string, table: string): Promise<TableRows> => mysqlRows(db, namespace, table);

  /** `dq sync ...` as a child process with the emulator's credentials and MYSQL_PWD in its environment. */
  const dq = (args: string[], tmpDir: string): DqSyncProcess => dqSync(fixture, args, { tmpDir, password: { variable: 'MYSQL_PWD', value: db.password } });

  it("a snapshot at an older point, then three incrementals: every table equals the emulator's snapshot at each point, and the meta rows say so", async () => {
    await emptyDatabase(db);
    let nulls = 0;
    await walkPoints(fixture, { sync, rows, states }, async (until, references) => {
      for (const expected of references) for (const row of expected.rows.values()) nulls += row.filter((v) => v === null).length;
      // as stored: each row names the database and the table it fills, its point as a DATETIME in UTC
      for (const m of await db.admin<RawMetaRow>(RAW_META)) {
        assert.deepEqual([m.target_schema, m.target_table, m.point], [db.database, mysqlTable(m.namespace, m.table), until]);
        const [{ n }] = await db.admin<{ n: string }>(`SELECT CAST(COUNT(*) AS CHAR) AS n FROM ${quote(m.target_table)}`);
        assert.equal(m.row_count, n, `${m.table} row_count`);
      }
    });
    assert.ok(nulls > 0, "the emulator's rows have null columns, so SQL NULLs were compared too");
    for (const l of log.lines) assert.ok(!l.includes(db.password), `a log line holds the password: ${l}`);
    const types = await db.admin<{ name: string; type: string; nullable: string }>(
      `SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'canvas__users' ORDER BY ORDINAL_POSITION`,
    );
    assert.deepEqual(Object.fromEntries(types.map((t) => [t.name, `${t.type}${t.nullable === 'NO' ? ' NOT NULL' : ''}`])), {
      id: 'bigint(20) NOT NULL',
      name: 'longtext',
      sortable_name: 'longtext',
      workflow_state: 'longtext',
      time_zone: 'longtext',
      locale: 'longtext',
      public: 'tinyint(1)',
      avatar_image_url: 'longtext',
      login_count: 'int(11)',
      'preferences.high_contrast': 'tinyint(1)',
      'preferences.font_size': 'int(11)',
      'preferences.theme': 'longtext',
      created_at: 'datetime(6)',
      updated_at: 'datetime(6)',
    });
    const charsets = await db.admin<{ charset: string }>(
      `SELECT DISTINCT CHARACTER_SET_NAME AS charset FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND CHARACTER_SET_NAME IS NOT NULL`,
    );
    assert.deepEqual(charsets.map((c) => c.charset), ['utf8mb4'], 'every text column is utf8mb4');
    const [pk] = await db.admin<{ columns: string }>(
      `SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS columns FROM information_schema.STATISTICS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'canvas__submissions' AND INDEX_NAME = 'PRIMARY'`,
    );
    assert.equal(pk.columns, 'id');
    assert.deepEqual((await tablesOf(db)).filter((t) => t.startsWith('dq_') && t !== 'dq_sync_state'), [], 'nothing left behind');
  });

  it('follows the schema changes the service makes: an added column and one made optional in place, a changed type by --resnapshot', async () => {
    const own = await SyncFixture.start({ rows: ROWS });
    try {
      await walkSchemaChanges(own, { sync: (o) => sync(o), rows, states }, 'new_quizzes', 'quiz_sessions');
    } finally {
      await own.close();
    }
  });

  it('dq sync killed with SIGKILL while it applies (rows written, meta rows not yet) keeps the last run, for changes and for a snapshot; the next dq sync ends equal', async () => {
    await emptyDatabase(db);
    const tables = ['submissions', 'users', 'enrollments'];
    const [early, late] = [fixture.point(5), fixture.point(1)];
    const work = path.join(fixture.dir, 'killed-work');
    await fs.mkdir(work, { recursive: true });
    const atEarly = new Map<string, TableRows>();
    const atLate = new Map<string, TableRows>();
    for (const t of tables) {
      atEarly.set(t, await fixture.reference('canvas', t, early));
      atLate.set(t, await fixture.reference('canvas', t, late));
    }

    // the first sync, with the password in the URL: dq warns, and shows the URL without it
    const seed = await dq(['canvas', ...tables, '--to', db.url, '--until', early, '--json'], work).done;
    assert.equal(seed.code, 0, seed.stderr);
    assert.match(seed.stderr, /password in the target URL is visible/);
    const seeded = JSON.parse(seed.stdout) as { target: string; tables: TableSyncReport[] };
    assert.equal(seeded.target, db.urlWithoutPassword);
    assert.deepEqual(seeded.tables.map((r) => [r.table, r.outcome, r.kind]), tables.map((t) => [t, 'synced', 'snapshot']));
    for (const t of tables) assertSameRows(await rows('canvas', t), atEarly.get(t)!, t);
    const metaBefore = await db.admin<RawMetaRow>(RAW_META);

    /** Runs dq sync with the meta table's lock held, kills it once every table waits for that lock, and lets go. */
    const killWhileApplying = async (argv: string[]): Promise<FinishedDq> => {
      const holder = await db.adminConnection();
      const [{ got }] = await holder.query<{ got: number }>('SELECT GET_LOCK(?, 0) AS got', [metaLockName(db.database)]);
      assert.equal(Number(got), 1);
      const run = dq([...argv, '--progress'], work);
      let exited = false;
      void run.done.then(() => (exited = true), () => (exited = true));
      try {
        for (;;) {
          const [{ n }] = await db.admin<{ n: number }>(
            `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = 'dq_sync' AND INFO LIKE 'SELECT GET_LOCK(''dq_sync_meta:%'`,
          );
          if (Number(n) === tables.length) break;
          if (exited) assert.fail(`dq sync ended before it applied: ${(await run.done).stderr}`);
          await new Promise((r) => setTimeout(r, 25));
        }
        run.child.kill('SIGKILL');
        return await run.done;
      } finally {
        if (!exited) run.child.kill('SIGKILL');
        await holder.end();
        // the killed run's sessions, freed from the wait, find their client gone and end, rolling back
        for (;;) {
          const [{ n }] = await db.admin<{ n: number }>(`SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = 'dq_sync'`);
          if (Number(n) === 0) break;
          await new Promise((r) => setTimeout(r, 25));
        }
      }
    };

    const changesArgv = ['canvas', ...tables, '--to', db.urlWithoutPassword, '--until', late, '--lock-wait', '60'];
    const killed = await killWhileApplying(changesArgv);
    assert.equal(killed.signal, 'SIGKILL');
    assert.match(killed.stderr, /canvas\.submissions: applying/);
    assert.deepEqual(await db.admin<RawMetaRow>(RAW_META), metaBefore);
    for (const t of tables) assertSameRows(await rows('canvas', t), atEarly.get(t)!, `${t} after the kill`);

    const rerun = await dq([...changesArgv, '--json'], work).done;
    assert.equal(rerun.code, 0, rerun.stderr);
    const { tables: reports } = JSON.parse(rerun.stdout) as { tables: TableSyncReport[] };
    assert.deepEqual(reports.map((r) => [r.table, r.outcome, r.kind, r.point]), tables.map((t) => [t, 'synced', 'changes', late]));
    assert.ok(reports.some((r) => r.deleted > 0), 'the changes deleted rows');
    for (const t of tables) assertSameRows(await rows('canvas', t), atLate.get(t)!, t);
    const metaLate = await db.admin<RawMetaRow>(RAW_META);
    assert.deepEqual(metaLate.map((m) => [m.table, m.point, Number(m.row_count)]), tables.map((t) => [t, late, atLate.get(t)!.rows.size]).sort());

    // a snapshot killed before its swap: the loaded tables wait beside, nothing anyone reads changed
    const now = fixture.point(0);
    const snapshotArgv = ['canvas', ...tables, '--to', db.urlWithoutPassword, '--until', now, '--resnapshot', '--lock-wait', '60'];
    await killWhileApplying(snapshotArgv);
    assert.deepEqual(await db.admin<RawMetaRow>(RAW_META), metaLate);
    for (const t of tables) assertSameRows(await rows('canvas', t), atLate.get(t)!, `${t} after the killed snapshot`);
    assert.equal((await tablesOf(db)).filter((n) => n.startsWith('dq_new_')).length, tables.length, 'the loaded tables were left beside');

    const again = await dq([...snapshotArgv, '--json'], work).done;
    assert.equal(again.code, 0, again.stderr);
    for (const t of tables) assertSameRows(await rows('canvas', t), await fixture.reference('canvas', t, now), t);
    assert.deepEqual((await db.admin<RawMetaRow>(RAW_META)).map((m) => [m.table, m.point]), tables.map((t) => [t, now]).sort());
    assert.deepEqual((await tablesOf(db)).filter((n) => n.startsWith('dq_') && n !== 'dq_sync_state'), [], 'the next snapshot cleared what the killed one left');
    assert.deepEqual(await fs.readdir(work), [], 'the abandoned downloads are gone');
  });

  it('a server that forbids LOCAL INFILE: one warning at once, and the same rows by INSERTs, snapshot and changes', async () => {
    await emptyDatabase(db);
    await db.admin('SET GLOBAL local_infile = 0');
    const lines = new LogLines();
    try {
      const [p0, p1] = [fixture.point(3), fixture.point(0)];
      const first = await sync({ client: fixture.client, namespace: 'canvas', tables: ['users', 'submissions'], until: p0 }, lines);
      assert.ok(first.every((r) => r.outcome === 'synced' && r.kind === 'snapshot'), JSON.stringify(first));
      const logs = await sync({ client: fixture.client, namespace: 'canvas_logs', tables: ['web_logs'], until: p1 }, lines);
      assert.deepEqual(logs.map((r) => [r.outcome, r.kind]), [['synced', 'snapshot']], JSON.stringify(logs));
      const second = await sync({ client: fixture.client, namespace: 'canvas', tables: ['users', 'submissions'], until: p1 }, lines);
      assert.ok(second.every((r) => r.outcome === 'synced' && r.kind === 'changes'), JSON.stringify(second));
      for (const t of ['users', 'submissions']) assertSameRows(await rows('canvas', t), await fixture.reference('canvas', t, p1), t);
      assertSameRows(await rows('canvas_logs', 'web_logs'), await fixture.reference('canvas_logs', 'web_logs', p1), 'web_logs');
      const warnings = lines.lines.filter((l) => /does not allow LOAD DATA LOCAL INFILE/.test(l));
      // one per run (each opens the target anew), said as the target opens, before any table
      assert.equal(warnings.length, 3, warnings.join('\n'));
      assert.match(warnings[0], /^MySQL at mysql:\/\/dq_sync@127\.0\.0\.1:\d+\/dq_test does not allow LOAD DATA LOCAL INFILE \(local_infile is OFF\): loading by multi-row INSERTs instead/);
    } finally {
      await db.admin('SET GLOBAL local_infile = 1');
    }
  });

  it('dq sync-status on a database never synced to says so, and creates nothing there; the password comes from ~/.my.cnf', async () => {
    await emptyDatabase(db);
    const home = await fs.mkdtemp(path.join(fixture.dir, 'home-'));
    await fs.writeFile(path.join(home, '.my.cnf'), `# the client's options\n[mysql]\npassword = not-this-one\n[client]\nuser = someone\npassword = "${db.password}"  # the test's\n`, { mode: 0o600 });
    const run = await runDq(['sync-status', '--to', db.urlWithoutPassword], { env: { HOME: home, TMPDIR: fixture.dir } });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, `dq: no table has been synced to ${db.urlWithoutPassword} yet.\n`);
    assert.deepEqual(await tablesOf(db), []);
  });

  it('dq sync says at once that it waits for a table another session holds, naming that session, then gives up after --lock-wait', async () => {
    const holder = await db.adminConnection();
    try {
      await holder.query('SELECT GET_LOCK(?, 0)', [tableLockName(db.database, 'canvas', 'accounts')]);
      const env = { ...dqEnvOf(fixture.emulator), HOME: fixture.dir, TMPDIR: fixture.dir, MYSQL_PWD: db.password };
      const run = await runDq(['sync', 'canvas', 'accounts', '--to', db.urlWithoutPassword, '--lock-wait', '1'], { env });
      assert.ok(!run.stderr.includes(db.password) && !run.stdout.includes(db.password), 'the password is never printed');
      assert.equal(run.code, 8, run.stderr);
      const lines = run.stderr.split('\n');
      const waiting = lines.filter((l) => l.startsWith('dq: warning: waiting'));
      // a holder of another user: its connection id only (the user sees no one else's sessions)
      assert.deepEqual(waiting, [`dq: warning: waiting up to 1 s for canvas.accounts in MySQL at ${db.urlWithoutPassword}: another sync (connection ${holder.threadId}) is applying it.`]);
      assert.match(run.stdout, new RegExp(`^canvas\\.accounts\\s+failed\\s+io: Another sync \\(connection ${holder.threadId}\\) is applying canvas\\.accounts`, 'm'));
    } finally {
      await holder.end();
    }
  });
});
