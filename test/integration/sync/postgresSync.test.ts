// Syncing the emulator's tables into a real PostgreSQL server (Debian's package, started by the
// test in a temporary folder), as a person relies on it: after a snapshot at an older point
// and incrementals to newer ones (upserts and deletes), every table equals the emulator's own
// snapshot at the point reached, row for row, and the meta table says so. `dq sync` killed
// with SIGKILL in the middle of applying (its rows written, its meta row not yet) leaves every
// table and meta row at the last complete run, and the next `dq sync` ends equal. The
// database password, from PGPASSWORD or the URL, never shows in what dq prints. Copy CREATE
// TABLE's text makes the very table a sync makes. A server that closes idle sessions
// (idle_session_timeout) does not fail a sync whose download outlasts it, and a sync that finds
// its table held says so at once, naming the holder.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { SampleCatalog } from '../../../src/emulator/sampleData/sampleCatalog';
import { createTableScript, LOCK_KEYS } from '../../../src/sync/postgresSql';
import { PostgresTarget } from '../../../src/sync/postgresTarget';
import { targetTableOf } from '../../../src/sync/syncColumns';
import type { TableSyncReport } from '../../../src/sync/syncReport';
import type { SyncState } from '../../../src/sync/syncTarget';
import { runDq } from '../../support/cliHarness';
import { FakeClock } from '../../support/fakeClock';
import { startPostgres, type PostgresServer } from '../../support/postgresServer';
import { dqSync, type DqSyncProcess, type FinishedDq } from './dqSyncProcess';
import { assertSameRows, dqEnvOf, keyCountOf, LogLines, renamingClient, sourceOf, SyncFixture, syncInto, walkPoints, walkSchemaChanges, withTarget, type TableRows, type SyncOptions } from './syncFixture';

const ROWS = 3000;
const CANVAS = new SampleCatalog({ canvasTables: 'core' }).tables('canvas')!;

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * A synced table's rows, each value in the form the fixture's reference holds it: bigint as
 * its decimal text (no rounding through a JS number), timestamptz as milliseconds since the
 * epoch (computed by the server, so a stray microsecond shows as a fraction), jsonb parsed,
 * SQL NULL as null and an empty string as ''. A type the sample data never needs fails.
 */
async function pgRows(pg: PostgresServer, namespace: string, table: string): Promise<TableRows> {
  const described = await pg.admin<{ name: string; type: string }>(
    `SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
    [namespace, table],
  );
  assert.ok(described.length > 0, `${namespace}.${table} exists in PostgreSQL`);
  const read: Record<string, { sql: (id: string) => string; value: (v: unknown) => unknown }> = {
    bigint: { sql: (id) => `${id}::text`, value: (v) => v },
    integer: { sql: (id) => id, value: (v) => v },
    'double precision': { sql: (id) => id, value: (v) => v },
    boolean: { sql: (id) => id, value: (v) => v },
    text: { sql: (id) => id, value: (v) => v },
    'timestamp with time zone': { sql: (id) => `(extract(epoch FROM ${id}) * 1000)::text`, value: (v) => Number(v) },
    jsonb: { sql: (id) => `${id}::text`, value: (v) => JSON.parse(String(v)) },
  };
  const readers = described.map(({ name, type }) => {
    const reader = read[type];
    assert.ok(reader, `${namespace}.${table}.${name} has the type ${type}, which this comparison does not read`);
    return reader;
  });
  const select = described.map(({ name }, i) => `${readers[i].sql(quote(name))} AS c${i}`);
  const raw = await pg.admin<Record<string, unknown>>(`SELECT ${select.join(', ')} FROM ${quote(namespace)}.${quote(table)}`);
  const keyCount = keyCountOf(namespace, table);
  const rows = new Map<string, unknown[]>();
  for (const r of raw) {
    const values = described.map((_, i) => (r[`c${i}`] === null ? null : readers[i].value(r[`c${i}`])));
    const key = JSON.stringify(values.slice(0, keyCount));
    assert.ok(!rows.has(key), `${namespace}.${table} holds the key ${key} twice`);
    rows.set(key, values);
  }
  return { columns: described.map((c) => c.name), rows };
}

/** The synced table equals the reference: same columns, same keys, same values. */
async function assertEqualTables(pg: PostgresServer, namespace: string, table: string, expected: TableRows): Promise<void> {
  assertSameRows(await pgRows(pg, namespace, table), expected, `${namespace}.${table}`);
}

/**
 * The tables of a schema as the server holds them: each column's name, type (as format_type
 * names it, with any length) and NOT NULL, in order, and the primary key.
 */
async function tableShapes(pg: PostgresServer, namespace: string): Promise<Record<string, { columns: string[]; primaryKey: string }>> {
  const columns = await pg.admin<{ table: string; name: string; type: string; not_null: boolean }>(
    `SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum`,
    [namespace],
  );
  const keys = await pg.admin<{ table: string; def: string }>(
    `SELECT c.relname AS table, pg_get_constraintdef(k.oid) AS def FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND k.contype = 'p'`,
    [namespace],
  );
  const shapes: Record<string, { columns: string[]; primaryKey: string }> = {};
  for (const c of columns) (shapes[c.table] ??= { columns: [], primaryKey: '' }).columns.push(`${c.name} ${c.type}${c.not_null ? ' NOT NULL' : ''}`);
  for (const k of keys) shapes[k.table].primaryKey = k.def;
  return shapes;
}

/** The meta table as stored, read behind the target's back. */
interface RawMetaRow {
  namespace: string;
  table: string;
  target_schema: string;
  target_table: string;
  point: string;
  schema_version: number;
  row_count: string;
  ran_at: string;
}
const RAW_META = `SELECT namespace, "table", target_schema, target_table, to_char(point AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS point,
    schema_version, row_count::text AS row_count, ran_at::text AS ran_at FROM public.dq_sync_state ORDER BY namespace, "table"`;

describe('sync to PostgreSQL from the emulator (real server)', function () {
  this.timeout(120_000);
  let pg: PostgresServer;
  let fixture: SyncFixture;
  const log = new LogLines();

  before(async () => {
    // web_logs as the service delivers logs: at least once, some records twice
    [pg, fixture] = await Promise.all([startPostgres(), SyncFixture.start({ rows: ROWS, duplicates: 0.02 })]);
  });
  after(async () => {
    await fixture?.close();
    await pg?.stop();
  });

  /** One sync into the server. */
  function sync(options: SyncOptions): Promise<TableSyncReport[]> {
    return syncInto(new PostgresTarget({ url: pg.url, logger: log, env: {}, homeDir: fixture.dir }), { ...options, logger: log });
  }

  function states(): Promise<SyncState[]> {
    const target = new PostgresTarget({ url: pg.urlWithoutPassword, logger: log, env: { PGPASSWORD: pg.password }, homeDir: fixture.dir });
    return withTarget(target, (t) => t.listStates());
  }

  /** `dq sync ...` as a child process with the emulator's credentials and PGPASSWORD in its environment. */
  const dq = (args: string[], tmpDir: string): DqSyncProcess => dqSync(fixture, args, { tmpDir, password: { variable: 'PGPASSWORD', value: pg.password } });

  it('a snapshot at an older point, then three incrementals: every table equals the emulator\'s snapshot at each point, and the meta rows say so', async () => {
    let nulls = 0;
    await walkPoints(fixture, { sync, rows: (namespace, table) => pgRows(pg, namespace, table), states }, async (until, references) => {
      for (const expected of references) for (const row of expected.rows.values()) nulls += row.filter((v) => v === null).length;
      // as stored: each row names the schema and table it fills, its point as a timestamptz
      for (const m of await pg.admin<RawMetaRow>(RAW_META)) {
        assert.deepEqual([m.target_schema, m.target_table, m.point], [m.namespace, m.table, until]);
        const [{ n }] = await pg.admin<{ n: string }>(`SELECT count(*)::text AS n FROM ${quote(m.namespace)}.${quote(m.table)}`);
        assert.equal(m.row_count, n, `${m.table} row_count`);
      }
    });
    assert.ok(nulls > 0, 'the emulator\'s rows have null columns, so SQL NULLs were compared too');
    for (const l of log.lines) assert.ok(!l.includes(pg.password), `a log line holds the password: ${l}`);
    const types = await pg.admin<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'canvas' AND table_name = 'users' ORDER BY ordinal_position`,
    );
    assert.deepEqual(Object.fromEntries(types.map((t) => [t.column_name, t.data_type])), {
      id: 'bigint',
      name: 'text',
      sortable_name: 'text',
      workflow_state: 'text',
      time_zone: 'text',
      locale: 'text',
      public: 'boolean',
      avatar_image_url: 'text',
      login_count: 'integer',
      'preferences.high_contrast': 'boolean',
      'preferences.font_size': 'integer',
      'preferences.theme': 'text',
      created_at: 'timestamp with time zone',
      updated_at: 'timestamp with time zone',
    });
    const [pk] = await pg.admin<{ def: string }>(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'canvas.submissions'::regclass AND contype = 'p'`);
    assert.equal(pk.def, 'PRIMARY KEY (id)');
  });

  it('follows the schema changes the service makes: an added column and one made optional in place, a changed type by --resnapshot', async () => {
    const own = await SyncFixture.start({ rows: ROWS });
    try {
      await walkSchemaChanges(own, { sync, rows: (namespace, table) => pgRows(pg, namespace, table), states }, 'new_quizzes', 'quiz_sessions');
    } finally {
      await own.close();
    }
  });

  it('dq sync killed with SIGKILL while it applies (rows written, meta rows not yet) keeps the last run; the next dq sync ends equal', async () => {
    await pg.admin(`DROP SCHEMA IF EXISTS canvas CASCADE; DROP TABLE IF EXISTS public.dq_sync_state`);
    const tables = ['submissions', 'users', 'enrollments'];
    const [early, late] = [fixture.point(5), fixture.point(1)];
    const work = path.join(fixture.dir, 'killed-work');
    await fs.mkdir(work);
    const atEarly = new Map<string, TableRows>();
    const atLate = new Map<string, TableRows>();
    for (const t of tables) {
      atEarly.set(t, await fixture.reference('canvas', t, early));
      atLate.set(t, await fixture.reference('canvas', t, late));
    }
    const changed = tables.filter((t) => JSON.stringify([...atEarly.get(t)!.rows]) !== JSON.stringify([...atLate.get(t)!.rows]));
    assert.deepEqual(changed, tables, 'every table changes between the two points');

    // the first sync, with the password in the URL: dq warns, and shows the URL without it
    const seed = await dq(['canvas', ...tables, '--to', pg.url, '--until', early, '--json'], work).done;
    assert.equal(seed.code, 0, seed.stderr);
    assert.match(seed.stderr, /password in the target URL is visible/);
    const seeded = JSON.parse(seed.stdout) as { target: string; tables: TableSyncReport[] };
    assert.equal(seeded.target, pg.urlWithoutPassword);
    assert.deepEqual(seeded.tables.map((r) => [r.table, r.outcome, r.kind]), tables.map((t) => [t, 'synced', 'snapshot']));
    for (const t of tables) await assertEqualTables(pg, 'canvas', t, atEarly.get(t)!);
    const metaBefore = await pg.admin<RawMetaRow>(RAW_META);
    assert.deepEqual(metaBefore.map((m) => [m.table, m.point]), tables.map((t) => [t, early]).sort());

    // hold the meta rows: each table's apply gets as far as writing its meta row, and waits there
    const holder = await pg.adminClient();
    const argv = ['canvas', ...tables, '--to', pg.urlWithoutPassword, '--until', late, '--lock-wait', '60'];
    await holder.query(`BEGIN; SELECT 1 FROM public.dq_sync_state FOR UPDATE`);
    const run = dq([...argv, '--progress'], work);
    let exited = false;
    void run.done.then(
      () => (exited = true),
      () => (exited = true),
    );
    let killed: FinishedDq;
    try {
      const waiting = `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE application_name LIKE 'dq sync (pid ${run.child.pid} %' AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO public.dq_sync_state%'`;
      for (;;) {
        const [{ n }] = await pg.admin<{ n: number }>(waiting);
        if (n === tables.length) break;
        if (exited) assert.fail(`dq sync ended before it applied: ${(await run.done).stderr}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      run.child.kill('SIGKILL');
      killed = await run.done;
    } finally {
      if (!exited) run.child.kill('SIGKILL');
      await holder.query('ROLLBACK');
      await holder.end();
    }
    assert.equal(killed.signal, 'SIGKILL');
    assert.match(killed.stderr, /canvas\.submissions: applying/);
    assert.equal((await fs.readdir(work)).filter((n) => n.startsWith(`dq-sync-${killed.pid}-`)).length, tables.length, 'the killed run left its downloads, a folder a table');
    // the killed run's sessions, freed from the lock, find their client gone and roll back
    for (;;) {
      const [{ n }] = await pg.admin<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'dq sync%'`);
      if (n === 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.deepEqual(await pg.admin<RawMetaRow>(RAW_META), metaBefore);
    for (const t of tables) await assertEqualTables(pg, 'canvas', t, atEarly.get(t)!);

    const rerun = await dq([...argv, '--json'], work).done;
    assert.equal(rerun.code, 0, rerun.stderr);
    const { tables: reports } = JSON.parse(rerun.stdout) as { tables: TableSyncReport[] };
    assert.deepEqual(reports.map((r) => [r.table, r.outcome, r.kind, r.point]), tables.map((t) => [t, 'synced', 'changes', late]));
    assert.ok(reports.some((r) => r.deleted > 0), 'the changes deleted rows');
    assert.deepEqual(await fs.readdir(work), [], 'the abandoned downloads are gone');
    for (const t of tables) await assertEqualTables(pg, 'canvas', t, atLate.get(t)!);
    const metaAfter = await pg.admin<RawMetaRow>(RAW_META);
    assert.deepEqual(
      metaAfter.map((m) => [m.table, m.point, Number(m.row_count)]),
      tables.map((t) => [t, late, atLate.get(t)!.rows.size]).sort(),
    );
  });

  it('Copy CREATE TABLE\'s text runs as it is and makes the table a sync makes: columns, types, NOT NULL, primary key', async () => {
    await pg.admin(`DROP SCHEMA IF EXISTS canvas CASCADE; DROP TABLE IF EXISTS public.dq_sync_state`);
    // the text the command copies, from the schema as the service serves it
    for (const table of CANVAS) await pg.admin(createTableScript(targetTableOf('canvas', table, await fixture.client.getSchema('canvas', table))));
    const copied = await tableShapes(pg, 'canvas');
    assert.deepEqual(Object.keys(copied).sort(), [...CANVAS].sort());
    assert.ok(Object.values(copied).every((t) => t.primaryKey.startsWith('PRIMARY KEY (')), JSON.stringify(copied));

    await pg.admin(`DROP SCHEMA canvas CASCADE`);
    const reports = await sync({ client: fixture.client, namespace: 'canvas', tables: 'all', until: fixture.point(0) });
    assert.ok(reports.every((r) => r.outcome === 'synced'), JSON.stringify(reports));
    assert.deepEqual(await tableShapes(pg, 'canvas'), copied);
  });

  it('a server that closes idle sessions (idle_session_timeout) does not stop a sync whose job and download outlast it', async () => {
    await pg.admin(`ALTER ROLE dq_sync SET idle_session_timeout = '1500ms'`);
    // web_logs is one object of about 200 KB: some 5 s to download at this pace
    const paced = await fixture.sibling({ objectBytesPerSecond: 40_000 });
    // an idle session of the same role beside the sync, to show that the sync outlasted the timeout
    const beside = new Client({ connectionString: pg.url });
    let besideClosed: string | undefined;
    beside.on('error', (err: Error & { code?: string }) => (besideClosed ??= err.code ?? err.message));
    try {
      await beside.connect();
      const until = fixture.point(0);
      const [report] = await sync({ client: paced.client, namespace: 'canvas_logs', tables: ['web_logs'], until, resnapshot: true });
      assert.deepEqual([report.outcome, report.kind, report.point], ['synced', 'snapshot', until], JSON.stringify(report));
      assert.equal(besideClosed, '57P05', 'the server closed the idle session beside the sync (idle_session_timeout)');
      await assertEqualTables(pg, 'canvas_logs', 'web_logs', await fixture.reference('canvas_logs', 'web_logs', until));
      const [meta] = await pg.admin<RawMetaRow>(`${RAW_META.replace('ORDER BY', `WHERE "table" = 'web_logs' ORDER BY`)}`);
      assert.equal(meta.point, until);
    } finally {
      await beside.end().catch(() => undefined);
      await paced.close();
      await pg.admin(`ALTER ROLE dq_sync RESET idle_session_timeout`);
    }
  });

  it('refuses the changes of another service on top of a table from one, before any job; a table dropped behind its meta row gets a snapshot', async () => {
    await pg.admin(`DROP SCHEMA IF EXISTS canvas CASCADE; DROP TABLE IF EXISTS public.dq_sync_state`);
    const [p0, p1] = [fixture.point(3), fixture.point(1)];
    await sync({ client: fixture.client, namespace: 'canvas', tables: ['users', 'courses'], until: p0 });
    const first = sourceOf(fixture.client);
    assert.deepEqual((await states()).map((s) => [s.table, s.source]), [['courses', first], ['users', first]]);
    const other = await SyncFixture.start({ rows: ROWS, seed: 99 });
    try {
      const [refused] = await sync({ client: other.client, namespace: 'canvas', tables: ['users'], until: p1 });
      assert.deepEqual([refused.outcome, refused.needsResnapshot, refused.error?.reason, refused.point], ['failed', true, 'otherSource', p0], JSON.stringify(refused));
      assert.equal(
        refused.error?.message,
        `canvas.users in ${pg.urlWithoutPassword} was synced from ${first}, not from ${sourceOf(other.client)}: the changes of one service cannot be applied to the rows of another.`,
      );
      assert.equal(other.emulator.requestLog.entries().filter((e) => e.operation === 'createJob').length, 0, 'no job was made');
      await assertEqualTables(pg, 'canvas', 'users', await fixture.reference('canvas', 'users', p0));

      const [fresh] = await sync({ client: other.client, namespace: 'canvas', tables: ['users'], until: p1, resnapshot: true });
      assert.deepEqual([fresh.outcome, fresh.kind], ['synced', 'snapshot']);
      await assertEqualTables(pg, 'canvas', 'users', await other.reference('canvas', 'users', p1));
      assert.deepEqual((await states()).map((s) => [s.table, s.source]), [['courses', first], ['users', sourceOf(other.client)]]);
    } finally {
      await other.close();
    }

    await pg.admin(`DROP TABLE canvas.courses`);
    const [again] = await sync({ client: fixture.client, namespace: 'canvas', tables: ['courses'], until: p1 });
    assert.deepEqual([again.outcome, again.kind, again.point], ['synced', 'snapshot', p1], JSON.stringify(again));
    await assertEqualTables(pg, 'canvas', 'courses', await fixture.reference('canvas', 'courses', p1));
  });

  it('a downloaded result file that is not whole gzip fails the table, found by the load itself, and the table keeps its last run', async () => {
    await pg.admin(`DROP SCHEMA IF EXISTS canvas_logs CASCADE; DROP TABLE IF EXISTS public.dq_sync_state`);
    const p0 = fixture.point(3);
    await sync({ client: fixture.client, namespace: 'canvas_logs', tables: ['web_logs'], until: p0 });
    // a download that ends early, as a disk that filled up or a copy cut short would leave it
    const cutShort: SyncOptions['client'] = {
      listTables: (...a) => fixture.client.listTables(...a),
      getSchema: (...a) => fixture.client.getSchema(...a),
      runJob: (...a) => fixture.client.runJob(...a),
      async downloadJob(job, opts) {
        const files = await fixture.client.downloadJob(job, opts);
        const last = files[files.length - 1].path;
        const bytes = await fs.readFile(last);
        await fs.writeFile(last, bytes.subarray(0, bytes.length - 20));
        return files;
      },
    };
    const [report] = await sync({ client: cutShort, source: sourceOf(fixture.client), namespace: 'canvas_logs', tables: ['web_logs'], until: fixture.point(1), resnapshot: true });
    assert.deepEqual([report.outcome, report.error?.kind], ['failed', 'invalidResponse'], JSON.stringify(report));
    assert.match(report.error?.message ?? '', /not valid gzip .*keeps its last complete run/);
    assert.equal((await states()).find((s) => s.table === 'web_logs')?.point, p0);
    await assertEqualTables(pg, 'canvas_logs', 'web_logs', await fixture.reference('canvas_logs', 'web_logs', p0));
  });

  it('dq sync-status on a database never synced to says so, and creates nothing there', async () => {
    await pg.admin(`DROP SCHEMA IF EXISTS canvas CASCADE; DROP TABLE IF EXISTS public.dq_sync_state`);
    const run = await runDq(['sync-status', '--to', pg.urlWithoutPassword], { env: { HOME: fixture.dir, TMPDIR: fixture.dir, PGPASSWORD: pg.password } });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, `dq: no table has been synced to ${pg.urlWithoutPassword} yet.\n`);
    const [{ found }] = await pg.admin<{ found: boolean }>(`SELECT to_regclass('public.dq_sync_state') IS NOT NULL AS found`);
    assert.equal(found, false);
  });

  it('dq sync-status finds the password in the ~/.pgpass of the HOME it was given', async () => {
    const home = await fs.mkdtemp(path.join(fixture.dir, 'home-'));
    const { hostname, port, pathname, username } = new URL(pg.urlWithoutPassword);
    await fs.writeFile(path.join(home, '.pgpass'), `${hostname}:${port}:${pathname.slice(1)}:${username}:${pg.password}\n`, { mode: 0o600 });
    const run = await runDq(['sync-status', '--to', pg.urlWithoutPassword, '--json'], { env: { HOME: home, TMPDIR: fixture.dir } });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).target, pg.urlWithoutPassword);
  });

  it('dq sync says at once that it waits for a table another session holds, naming that session, then gives up after --lock-wait', async () => {
    const holder = await pg.adminClient();
    try {
      const [{ pid }] = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
      await holder.query(`SELECT pg_advisory_lock(${LOCK_KEYS})`, ['canvas.accounts']);
      // the password only in dq's own environment, as a shell would pass it
      assert.equal(process.env.PGPASSWORD, undefined, 'this process has no PGPASSWORD of its own');
      const env = { ...dqEnvOf(fixture.emulator), HOME: fixture.dir, TMPDIR: fixture.dir, PGPASSWORD: pg.password };
      const run = await runDq(['sync', 'canvas', 'accounts', '--to', pg.urlWithoutPassword, '--lock-wait', '1'], { env });
      assert.ok(!run.stderr.includes(pg.password) && !run.stdout.includes(pg.password), 'the password is never printed');
      assert.equal(run.code, 8, run.stderr);
      assert.doesNotMatch(run.stderr, /password/i, 'PGPASSWORD was found, and no warning speaks of a password in the URL');
      const lines = run.stderr.split('\n');
      const waiting = lines.findIndex((l) => l.startsWith('dq: warning: waiting'));
      assert.ok(waiting >= 0, `no line says the sync waits:\n${run.stderr}`);
      assert.equal(
        lines[waiting],
        `dq: warning: waiting up to 1 s for canvas.accounts in PostgreSQL at ${pg.urlWithoutPassword}: another sync (server process ${pid}) is applying it.`,
      );
      assert.match(run.stdout, new RegExp(`^canvas\\.accounts\\s+failed\\s+io: Another sync \\(server process ${pid}\\) is applying canvas\\.accounts`, 'm'));
    } finally {
      await holder.end();
    }
  });

  describe('names the service sends that PostgreSQL cannot keep apart', () => {
    // 62 bytes of é, then a character of 2 (é) or 3 (€) bytes: PostgreSQL keeps 63 bytes without
    // cutting a character, so both are the same 62 bytes there (a cut by bytes alone would differ)
    const stem = 'é'.repeat(31);
    const [A, B] = [`${stem}é_users`, `${stem}€_accounts`];

    async function tablesIn(namespace: string): Promise<string[]> {
      return (await pg.admin<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY 1`, [namespace])).map((r) => r.name);
    }

    it('refuses two tables whose names share their first 63 bytes, naming both; once one is synced it syncs on and the other is refused', async () => {
      await pg.admin(`DROP SCHEMA IF EXISTS canvas CASCADE; DELETE FROM public.dq_sync_state WHERE namespace = 'canvas'`).catch(() => undefined);
      const source = sourceOf(fixture.client);
      const both = renamingClient(fixture.client, { tables: { [A]: 'users', [B]: 'accounts' } });
      const refused = await sync({ client: both, source, namespace: 'canvas', tables: 'all' });
      assert.deepEqual(refused.map((r) => r.outcome), ['failed', 'failed']);
      for (const r of refused) {
        assert.ok(r.error?.message.includes(JSON.stringify(`canvas.${A}`)) && r.error.message.includes(JSON.stringify(`canvas.${B}`)), r.error?.message);
        assert.match(r.error?.message ?? '', /would be one table in .*PostgreSQL keeps only the first 63 bytes of a name/);
      }
      assert.equal(both.jobs, 0);
      assert.deepEqual(await tablesIn('canvas'), []);

      const [first] = await sync({ client: renamingClient(fixture.client, { tables: { [A]: 'users' } }), source, namespace: 'canvas', tables: [A] });
      assert.equal(first.outcome, 'synced', JSON.stringify(first));
      const [a, b] = await sync({ client: renamingClient(fixture.client, { tables: { [A]: 'users', [B]: 'accounts' } }), source, namespace: 'canvas', tables: 'all', resnapshot: true });
      assert.equal(a.outcome, 'synced', JSON.stringify(a));
      assert.equal(b.outcome, 'failed');
      assert.ok(b.error?.message.startsWith(`${JSON.stringify(`canvas.${B}`)} would be stored as the table ${JSON.stringify(`canvas.${A}`)} already synced`), b.error?.message);
      assert.deepEqual((await states()).filter((s) => s.namespace === 'canvas').map((s) => s.table), [A]);
      assert.deepEqual(await tablesIn('canvas'), [stem]);
      const [{ n }] = await pg.admin<{ n: string }>(`SELECT count(*)::text AS n FROM canvas.${quote(stem)}`);
      assert.equal(Number(n), (await fixture.reference('canvas', 'users', a.point!)).rows.size, 'the table holds the users, not the accounts');
    });

    it('one lock for the names of one table: a second sync of the other name waits for the first', async () => {
      const first = new PostgresTarget({ url: pg.url, logger: log, env: {}, homeDir: fixture.dir });
      const clock = new FakeClock();
      const second = new PostgresTarget({ url: pg.url, logger: log, env: {}, homeDir: fixture.dir, lockWaitMs: 200, clock });
      await withTarget(first, async () => {
        const release = await first.lockTable('canvas', A);
        try {
          await withTarget(second, async () => {
            const started = clock.now();
            await assert.rejects(clock.run(second.lockTable('canvas', B)), (err: Error & { kind?: string }) => {
              assert.equal(err.kind, 'io');
              assert.match(err.message, /Another sync .* is applying canvas\./);
              return true;
            });
            assert.equal(clock.now() - started, 200, 'it waited for the first, then gave up');
          });
        } finally {
          await release();
        }
      });
    });

    it('refuses a table whose columns share their first 63 bytes or hold a NUL, naming them, before any job (not as a network error)', async () => {
      await pg.admin(`DROP SCHEMA IF EXISTS canvas CASCADE; DELETE FROM public.dq_sync_state WHERE namespace = 'canvas'`).catch(() => undefined);
      const long = 'x'.repeat(63);
      for (const [columns, said] of [
        [{ name: `${long}_name`, sortable_name: `${long}_sortable` }, 'The schema of canvas.users has columns that would be one column in postgresql://'],
        [{ locale: 'loc\u0000ale' }, 'The schema of canvas.users names columns no database can hold: "loc\\u0000ale" holds a NUL character'],
      ] as const) {
        const client = renamingClient(fixture.client, { tables: { users: 'users' }, columns });
        const [r] = await sync({ client, source: sourceOf(fixture.client), namespace: 'canvas', tables: ['users'] });
        assert.equal(r.outcome, 'failed');
        assert.equal(r.error?.kind, 'invalidResponse', JSON.stringify(r.error));
        assert.ok(r.error?.message.startsWith(said), r.error?.message);
        if ('name' in columns) assert.ok(r.error?.message.includes(`${JSON.stringify(`${long}_name`)} and ${JSON.stringify(`${long}_sortable`)} (PostgreSQL keeps only the first 63 bytes of a name)`), r.error?.message);
        assert.equal(client.jobs, 0);
      }
      assert.deepEqual(await tablesIn('canvas'), []);
    });

    it('syncs tables and columns named with quotes, semicolons and full-width letters intact', async () => {
      const table = 'we"ird; DROP TABLE x;--Ｕｓｅｒｓ';
      const client = renamingClient(fixture.client, { tables: { [table]: 'users' }, columns: { name: 'na"me; --', sortable_name: 'Ｓｏｒｔａｂｌｅ\'s' } });
      const [r] = await sync({ client, source: sourceOf(fixture.client), namespace: 'canvas', tables: [table] });
      assert.equal(r.outcome, 'synced', JSON.stringify(r));
      const columns = (await pg.admin<{ name: string }>(`SELECT column_name AS name FROM information_schema.columns WHERE table_schema = 'canvas' AND table_name = $1`, [table])).map((c) => c.name);
      assert.ok(columns.includes('na"me; --') && columns.includes('Ｓｏｒｔａｂｌｅ\'s'), columns.join(', '));
      const [{ n }] = await pg.admin<{ n: string }>(`SELECT count(*)::text AS n FROM canvas.${quote(table)}`);
      assert.equal(Number(n), (await fixture.reference('canvas', 'users', r.point!)).rows.size);
    });
  });
});
