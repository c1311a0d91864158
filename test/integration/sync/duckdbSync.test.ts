// Syncing the emulator's tables into a DuckDB file, as a person relies on it: after a snapshot
// at an older point and incrementals to newer ones, every table equals the emulator's own
// snapshot at the point reached, row for row (deletes gone, updates applied), and the meta
// table says so; a failed job, an abort in the middle of an apply or an incompatible schema
// change leaves the table and its meta row at the last complete run, and the next run resumes.
// Changes from another service, or from another account's credentials on the same gateway,
// are never applied on top of a table's rows.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import type { SchemaEnvelope } from '../../../src/core/contract';
import { DuckdbTarget } from '../../../src/sync/duckdbTarget';
import type { SyncProgress, TableSyncReport } from '../../../src/sync/syncReport';
import { clientTagOfSource, serviceOfSource, sourceIdentity } from '../../../src/sync/syncSource';
import type { SyncState } from '../../../src/sync/syncTarget';
import { FakeClock } from '../../support/fakeClock';
import {
  alterDatabase,
  assertSameRows,
  clientFor,
  columnTypes,
  keyCountOf,
  LogLines,
  renamingClient,
  sourceOf,
  syncedRows,
  SyncFixture,
  syncInto,
  walkPoints,
  walkSchemaChanges,
  withDatabase,
  withTarget,
  type SyncOptions,
  type TableRows,
} from './syncFixture';

/** One sync into the database file. */
function sync(file: string, options: SyncOptions): Promise<TableSyncReport[]> {
  return syncInto(new DuckdbTarget({ path: file }), options);
}

function states(file: string): Promise<SyncState[]> {
  return withTarget(new DuckdbTarget({ path: file, readOnly: true }), (t) => t.listStates());
}

/** Another institution's credentials on the emulator's gateway (the same data, another account as far as the sync can tell). */
const OTHER_ACCOUNT = { clientId: 'institution-b-client', clientSecret: 'institution-b-secret-5c2d' };

function byTable(reports: TableSyncReport[]): Record<string, TableSyncReport> {
  return Object.fromEntries(reports.map((r) => [r.table, r]));
}

/** The synced table equals the reference: same columns, same keys, same values. */
async function assertEqualTables(file: string, namespace: string, table: string, expected: TableRows): Promise<void> {
  assertSameRows(await syncedRows(file, namespace, table, keyCountOf(namespace, table)), expected, `${namespace}.${table}`);
}

describe('sync to a DuckDB file from the emulator', function () {
  this.timeout(180_000);
  let fixture: SyncFixture;

  before(async () => {
    // web_logs as the service delivers logs: at least once, some records twice
    fixture = await SyncFixture.start({ rows: 3000, duplicates: 0.02, extraCredentials: [OTHER_ACCOUNT] });
  });
  after(async () => {
    await fixture?.close();
  });

  it('a snapshot at an older point, then three incrementals: every table equals the emulator\'s snapshot at each point, and the meta rows say so', async () => {
    const file = path.join(fixture.dir, 'steps.duckdb');
    await walkPoints(fixture, {
      sync: (options) => sync(file, options),
      rows: (namespace, table) => syncedRows(file, namespace, table, keyCountOf(namespace, table)),
      states: () => states(file),
    });
    assert.deepEqual(await columnTypes(file, 'canvas', 'users'), {
      id: 'BIGINT',
      name: 'VARCHAR',
      sortable_name: 'VARCHAR',
      workflow_state: 'VARCHAR',
      time_zone: 'VARCHAR',
      locale: 'VARCHAR',
      public: 'BOOLEAN',
      avatar_image_url: 'VARCHAR',
      login_count: 'INTEGER',
      'preferences.high_contrast': 'BOOLEAN',
      'preferences.font_size': 'INTEGER',
      'preferences.theme': 'VARCHAR',
      created_at: 'TIMESTAMP WITH TIME ZONE',
      updated_at: 'TIMESTAMP WITH TIME ZONE',
    });
  });

  it('follows the schema changes the service makes: an added column and one made optional in place, a changed type by --resnapshot', async () => {
    const own = await SyncFixture.start({ rows: 3000 });
    try {
      const file = path.join(own.dir, 'evolving.duckdb');
      await walkSchemaChanges(own, {
        sync: (options) => sync(file, options),
        rows: (namespace, table) => syncedRows(file, namespace, table, keyCountOf(namespace, table)),
        states: () => states(file),
      }, 'new_quizzes', 'quiz_sessions');
    } finally {
      await own.close();
    }
  });

  it('reports a table already at the point asked as unchanged, without creating a job', async () => {
    const file = path.join(fixture.dir, 'unchanged.duckdb');
    const until = fixture.point(1);
    await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['quizzes'], until });
    const jobsBefore = fixture.emulator.requestLog.entries().filter((e) => e.operation === 'createJob').length;
    const [again] = await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['quizzes'], until });
    assert.equal(again.outcome, 'unchanged');
    assert.equal(again.point, until);
    assert.equal(fixture.emulator.requestLog.entries().filter((e) => e.operation === 'createJob').length, jobsBefore);
  });

  it('a failed job leaves the table and its meta row at the last run, and the next run resumes from there', async () => {
    const file = path.join(fixture.dir, 'failed-job.duckdb');
    const [p0, p1] = [fixture.point(3), fixture.point(1)];
    await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users', 'enrollments'], until: p0 });
    const metaBefore = await states(file);
    // on a fake clock, the failed jobs' status checks come at once instead of a second later
    const clock = new FakeClock(fixture.clock.now());
    const failing = await fixture.sibling({ faults: 'jobFail=1', clock });
    try {
      // the same service (same history) behind another address: recorded as the first one
      const reports = byTable(await clock.run(sync(file, { client: failing.client, source: sourceOf(fixture.client), namespace: 'canvas', tables: ['users', 'enrollments'], until: p1 })));
      for (const r of Object.values(reports)) {
        assert.equal(r.outcome, 'failed');
        assert.equal(r.error?.kind, 'jobFailed');
        assert.equal(r.point, p0, 'the report names the point kept');
        assert.ok(!r.needsResnapshot);
      }
    } finally {
      await failing.close();
    }
    assert.deepEqual(await states(file), metaBefore);
    await assertEqualTables(file, 'canvas', 'users', await fixture.reference('canvas', 'users', p0));
    const resumed = byTable(await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users', 'enrollments'], until: p1 }));
    assert.equal(resumed.users.kind, 'changes');
    for (const table of ['users', 'enrollments']) await assertEqualTables(file, 'canvas', table, await fixture.reference('canvas', table, p1));
  });

  it('an incompatible schema change stops that table with needsResnapshot while the others sync; --resnapshot brings it back', async () => {
    const file = path.join(fixture.dir, 'schema-change.duckdb');
    const [p0, p1] = [fixture.point(3), fixture.point(1)];
    await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users', 'courses'], until: p0 });
    // as if users had been synced when login_count was text: the service now says int32
    const stored = (await states(file)).find((s) => s.table === 'users')!;
    const older = JSON.parse(JSON.stringify(stored.schema)) as SchemaEnvelope['schema'];
    older.properties!.value.properties!.login_count = { type: 'string' };
    await alterDatabase(file, `UPDATE main.dq_sync_state SET "schema" = CAST($1 AS JSON) WHERE "table" = 'users'`, [JSON.stringify(older)]);
    const metaBefore = await states(file);

    const reports = byTable(await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users', 'courses'], until: p1 }));
    assert.equal(reports.users.outcome, 'failed');
    assert.equal(reports.users.needsResnapshot, true);
    assert.equal(reports.users.error?.kind, 'snapshotRequired');
    assert.match(reports.users.error?.message ?? '', /"login_count" changed type from text to integer/);
    assert.match(reports.users.error?.hint ?? '', /--resnapshot/);
    assert.equal(reports.users.point, p0);
    assert.equal(reports.courses.outcome, 'synced');
    assert.equal(reports.courses.point, p1);
    assert.deepEqual((await states(file)).find((s) => s.table === 'users'), metaBefore.find((s) => s.table === 'users'));
    await assertEqualTables(file, 'canvas', 'courses', await fixture.reference('canvas', 'courses', p1));

    const [fresh] = await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users'], until: p1, resnapshot: true });
    assert.equal(fresh.outcome, 'synced');
    assert.equal(fresh.kind, 'snapshot');
    await assertEqualTables(file, 'canvas', 'users', await fixture.reference('canvas', 'users', p1));
  });

  it('a point older than the history the service keeps stops the table with needsResnapshot', async () => {
    const file = path.join(fixture.dir, 'too-old.duckdb');
    const p0 = fixture.point(1);
    await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['quizzes'], until: p0 });
    await alterDatabase(file, `UPDATE main.dq_sync_state SET point = TIMESTAMPTZ '2020-01-01 00:00:00+00'`);
    const [report] = await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['quizzes'] });
    assert.equal(report.outcome, 'failed');
    assert.equal(report.needsResnapshot, true);
    assert.match(report.error?.message ?? '', /reached 2020-01-01T00:00:00Z, which is older than the history the service keeps \(it keeps changes from /);
    assert.equal((await states(file))[0].point, '2020-01-01T00:00:00Z');
  });

  it('refuses the changes of another service on top of a table synced from one, before any job; --resnapshot takes that service\'s rows instead', async () => {
    const file = path.join(fixture.dir, 'two-services.duckdb');
    const [p0, p1] = [fixture.point(3), fixture.point(1)];
    await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users', 'courses'], until: p0 });
    const first = sourceOf(fixture.client);
    assert.deepEqual((await states(file)).map((s) => [s.table, s.source]), [['courses', first], ['users', first]]);
    const usersBefore = await syncedRows(file, 'canvas', 'users', 1);
    const metaBefore = await states(file);

    // another service: other credentials' data, at another address (the sample data, then a real one)
    const other = await SyncFixture.start({ rows: 3000, seed: 99 });
    try {
      const second = sourceOf(other.client);
      const [refused] = await sync(file, { client: other.client, namespace: 'canvas', tables: ['users'], until: p1 });
      assert.equal(refused.outcome, 'failed', JSON.stringify(refused));
      assert.equal(refused.needsResnapshot, true);
      assert.equal(refused.error?.kind, 'snapshotRequired');
      assert.equal(refused.error?.reason, 'otherSource');
      assert.equal(
        refused.error?.message,
        `canvas.users in ${file} was synced from ${first}, not from ${second}: the changes of one service cannot be applied to the rows of another.`,
      );
      assert.match(refused.error?.hint ?? '', /--resnapshot \(dq sync canvas users --resnapshot\); or sync to another target \(--to\)/);
      assert.equal(refused.point, p0, 'the report names the point kept');
      assert.equal(other.emulator.requestLog.entries().filter((e) => e.operation === 'createJob').length, 0, 'no job was made');
      assert.deepEqual(await syncedRows(file, 'canvas', 'users', 1), usersBefore);
      assert.deepEqual(await states(file), metaBefore);

      const [fresh] = await sync(file, { client: other.client, namespace: 'canvas', tables: ['users'], until: p1, resnapshot: true });
      assert.deepEqual([fresh.outcome, fresh.kind], ['synced', 'snapshot']);
      await assertEqualTables(file, 'canvas', 'users', await other.reference('canvas', 'users', p1));
      assert.deepEqual((await states(file)).map((s) => [s.table, s.source]), [['courses', first], ['users', second]]);

      // from now on the first service's changes are the ones refused for users, not for courses
      const back = byTable(await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users', 'courses'] }));
      assert.equal(back.users.error?.reason, 'otherSource', JSON.stringify(back.users));
      assert.deepEqual([back.courses.outcome, back.courses.kind], ['synced', 'changes']);
    } finally {
      await other.close();
    }
  });

  it('tells apart two accounts on one gateway by their credentials: the other\'s changes are refused naming client tags, never IDs; --resnapshot takes its rows', async () => {
    const file = path.join(fixture.dir, 'two-accounts.duckdb');
    const [p0, p1] = [fixture.point(3), fixture.point(1)];
    await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users', 'courses'], until: p0 });
    const mine = sourceOf(fixture.client);
    assert.match(mine, /^http:\/\/127\.0\.0\.1:\d+\/dap\?client=[0-9a-f]{12}$/);
    assert.deepEqual((await states(file)).map((s) => [s.table, s.source]), [['courses', mine], ['users', mine]]);
    const usersBefore = await syncedRows(file, 'canvas', 'users', 1);
    const metaBefore = await states(file);
    const jobs = (): number => fixture.emulator.requestLog.entries().filter((e) => e.operation === 'createJob').length;

    // the same gateway and data prefix, no scope: only the credentials differ
    const otherAccount = clientFor(fixture.emulator, OTHER_ACCOUNT);
    const log = new LogLines();
    try {
      const theirs = sourceOf(otherAccount);
      assert.equal(serviceOfSource(theirs), serviceOfSource(mine));
      assert.notEqual(theirs, mine);
      const jobsBefore = jobs();
      const [refused] = await sync(file, { client: otherAccount, namespace: 'canvas', tables: ['users'], until: p1, logger: log });
      assert.deepEqual(
        [refused.outcome, refused.needsResnapshot, refused.error?.kind, refused.error?.reason, refused.point],
        ['failed', true, 'snapshotRequired', 'otherCredentials', p0],
        JSON.stringify(refused),
      );
      assert.equal(
        refused.error?.message,
        `canvas.users in ${file} was synced from ${serviceOfSource(mine)} with other credentials (client ${clientTagOfSource(mine)}, not client ${clientTagOfSource(theirs)}): ` +
          'the changes one account sees cannot be applied to the rows of another.',
      );
      assert.equal(
        refused.error?.hint,
        'If these are new credentials for the same account, take a fresh snapshot, which replaces the table: sync it with --resnapshot (dq sync canvas users --resnapshot). ' +
          "If they are another account's, sync to another target (--to).",
      );
      assert.equal(jobs(), jobsBefore, 'no job was made');
      assert.deepEqual(await syncedRows(file, 'canvas', 'users', 1), usersBefore, 'the rows were left as they were');
      assert.deepEqual(await states(file), metaBefore);

      // new credentials of the same account: a fresh snapshot, then their changes go on from it
      const [fresh] = await sync(file, { client: otherAccount, namespace: 'canvas', tables: ['users'], until: p1, resnapshot: true, logger: log });
      assert.deepEqual([fresh.outcome, fresh.kind], ['synced', 'snapshot']);
      assert.deepEqual((await states(file)).map((s) => [s.table, s.source]), [['courses', mine], ['users', theirs]]);
      const [next] = await sync(file, { client: otherAccount, namespace: 'canvas', tables: ['users'], logger: log });
      assert.deepEqual([next.outcome, next.kind], ['synced', 'changes'], JSON.stringify(next));
      const back = byTable(await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users', 'courses'], logger: log }));
      assert.equal(back.users.error?.reason, 'otherCredentials', JSON.stringify(back.users));
      assert.deepEqual([back.courses.outcome, back.courses.kind], ['synced', 'changes']);

      // what is stored, reported and logged holds a tag of each client ID, never the ID or the secret
      const said = [JSON.stringify(await states(file)), JSON.stringify([refused, back.users]), ...log.lines].join('\n');
      for (const secret of [fixture.emulator.clientId, fixture.emulator.clientSecret, OTHER_ACCOUNT.clientId, OTHER_ACCOUNT.clientSecret]) {
        assert.ok(!said.includes(secret), `${secret} in:\n${said}`);
      }
    } finally {
      await otherAccount.close();
    }
  });

  it('a source recorded before client tags were is taken for this run\'s credentials and rewritten with their tag; another service\'s is not', async () => {
    const file = path.join(fixture.dir, 'untagged.duckdb');
    const [p0, p1] = [fixture.point(3), fixture.point(1)];
    await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users', 'quizzes', 'courses'], until: p0 });
    const mine = sourceOf(fixture.client);
    const service = serviceOfSource(mine);
    // as the version before client tags left it; courses came from another gateway
    await alterDatabase(file, `UPDATE main.dq_sync_state SET source = '${service}'`);
    await alterDatabase(file, `UPDATE main.dq_sync_state SET source = 'https://elsewhere.example.com/dap' WHERE "table" = 'courses'`);
    assert.deepEqual((await states(file)).map((s) => [s.table, s.source]), [['courses', 'https://elsewhere.example.com/dap'], ['quizzes', service], ['users', service]]);

    const adopted = byTable([
      ...(await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users', 'courses'], until: p1 })),
      // already past the point asked for: nothing is applied, the tag is recorded all the same
      ...(await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['quizzes'], until: fixture.point(4) })),
    ]);
    assert.deepEqual([adopted.users.outcome, adopted.users.kind], ['synced', 'changes']);
    assert.equal(adopted.quizzes.outcome, 'unchanged');
    assert.equal(adopted.courses.error?.reason, 'otherSource', 'a source without tag is adopted only by its own service');
    await assertEqualTables(file, 'canvas', 'users', await fixture.reference('canvas', 'users', p1));
    assert.deepEqual((await states(file)).map((s) => [s.table, s.source]), [['courses', 'https://elsewhere.example.com/dap'], ['quizzes', mine], ['users', mine]]);

    // adopted once: from then on other credentials are refused
    const otherAccount = clientFor(fixture.emulator, OTHER_ACCOUNT);
    try {
      const [refused] = await sync(file, { client: otherAccount, namespace: 'canvas', tables: ['quizzes'] });
      assert.equal(refused.error?.reason, 'otherCredentials', JSON.stringify(refused));
    } finally {
      await otherAccount.close();
    }
  });

  it('a meta table from before sources were recorded is read as it is, and each table\'s next sync records its source', async () => {
    const file = path.join(fixture.dir, 'older.duckdb');
    const [p0, p1] = [fixture.point(3), fixture.point(1)];
    await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users', 'quizzes'], until: p0 });
    // as an older version of dq left it
    await alterDatabase(file, 'ALTER TABLE main.dq_sync_state DROP COLUMN source');
    const metaColumns = (): Promise<string[]> =>
      withDatabase(file, async (db) => {
        const conn = await db.connect();
        const reader = await conn.runAndReadAll("SELECT column_name FROM duckdb_columns() WHERE table_name = 'dq_sync_state' ORDER BY column_index");
        conn.closeSync();
        return reader.getRowsJson().map(([name]) => String(name));
      });
    const older = await states(file);
    assert.deepEqual(older.map((s) => [s.table, s.point, s.source]), [['quizzes', p0, undefined], ['users', p0, undefined]]);
    assert.ok(!(await metaColumns()).includes('source'), 'reading changes nothing');

    const adopted = byTable([
      ...(await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users'], until: p1 })),
      // already past the point asked for: nothing is applied, the source is recorded all the same
      ...(await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['quizzes'], until: fixture.point(4) })),
    ]);
    assert.deepEqual([adopted.users.outcome, adopted.users.kind], ['synced', 'changes']);
    assert.equal(adopted.quizzes.outcome, 'unchanged');
    await assertEqualTables(file, 'canvas', 'users', await fixture.reference('canvas', 'users', p1));
    assert.deepEqual((await states(file)).map((s) => [s.table, s.source]), [['quizzes', sourceOf(fixture.client)], ['users', sourceOf(fixture.client)]]);
    assert.equal((await metaColumns()).at(-1), 'source');
  });

  it('syncs into a file named like the namespace (Canvas.duckdb), which DuckDB also gives the database as its name', async () => {
    const file = path.join(fixture.dir, 'Canvas.duckdb');
    const [p0, p1] = [fixture.point(3), fixture.point(1)];
    const first = byTable(await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users', 'courses'], until: p0 }));
    assert.deepEqual(Object.values(first).map((r) => [r.table, r.outcome, r.kind, r.error?.message]), [['users', 'synced', 'snapshot', undefined], ['courses', 'synced', 'snapshot', undefined]]);
    const next = byTable(await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users', 'courses'], until: p1 }));
    assert.deepEqual(Object.values(next).map((r) => [r.table, r.outcome, r.kind]), [['users', 'synced', 'changes'], ['courses', 'synced', 'changes']]);
    for (const table of ['users', 'courses']) await assertEqualTables(file, 'canvas', table, await fixture.reference('canvas', table, p1));
    assert.deepEqual((await states(file)).map((s) => [s.table, s.point]), [['courses', p1], ['users', p1]]);
  });

  it('a table dropped from the file while its meta row stayed gets a fresh snapshot, with one job and a warning', async () => {
    const file = path.join(fixture.dir, 'dropped.duckdb');
    const [p0, p1] = [fixture.point(3), fixture.point(1)];
    await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users'], until: p0 });
    await alterDatabase(file, 'DROP TABLE canvas.users');
    const jobs = (): number => fixture.emulator.requestLog.entries().filter((e) => e.operation === 'createJob').length;
    const jobsBefore = jobs();
    const log = new LogLines();
    const [report] = await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['users'], until: p1, logger: log });
    assert.deepEqual([report.outcome, report.kind, report.point], ['synced', 'snapshot', p1], JSON.stringify(report));
    assert.equal(jobs() - jobsBefore, 1, 'one job: the snapshot');
    assert.ok(
      log.lines.some((l) => l === `canvas.users: the table is missing from ${file}, though the meta table records its last sync (to ${p0}); taking a fresh snapshot.`),
      log.lines.join('\n'),
    );
    await assertEqualTables(file, 'canvas', 'users', await fixture.reference('canvas', 'users', p1));
  });

  it('keeps within the create-job budget: tables wait their turn, reported as queued, and the service never answers 429', async () => {
    // one fake clock runs the service's window and the waits for it: tables wait their turn in no real time
    const clock = new FakeClock(fixture.clock.now());
    const limited = await fixture.sibling({ limits: { createJob: 2 }, limitWindowSec: 2, clock });
    const client = new DataQueryClient({
      baseUrl: limited.emulator.baseUrl,
      dataPrefix: limited.emulator.dataPrefix,
      credentials: async () => ({ clientId: limited.emulator.clientId, clientSecret: limited.emulator.clientSecret }),
      rateLimits: { createJob: 2 },
      rateWindowMs: 2000,
      clock,
    });
    const progress: SyncProgress[] = [];
    try {
      const synced = sync(path.join(fixture.dir, 'budget.duckdb'), {
        client,
        source: sourceIdentity({ baseUrl: limited.emulator.baseUrl, dataPrefix: limited.emulator.dataPrefix, clientId: limited.emulator.clientId }),
        namespace: 'canvas',
        tables: ['accounts', 'courses', 'quizzes', 'users', 'assignments'],
        concurrency: 4,
        onProgress: (p) => progress.push(p),
        clock,
      });
      // the loads are real work, many of the clock's steps: the test's timeout bounds them
      const reports = await clock.run(synced, 1_000_000);
      assert.deepEqual(reports.map((r) => r.outcome), ['synced', 'synced', 'synced', 'synced', 'synced']);
    } finally {
      await client.close();
      await limited.close();
    }
    const waited = progress.filter((p) => p.stage === 'queued' && p.startsAt !== undefined);
    assert.ok(waited.length >= 1, 'some tables were held back');
    for (const p of waited) assert.ok(progress.some((q) => q.table === p.table && q.stage === 'done'));
    const statuses = limited.emulator.requestLog.entries().filter((e) => e.operation === 'createJob').map((e) => e.status);
    assert.equal(statuses.length, 5);
    assert.ok(statuses.every((s) => s === 200 || s === 202), statuses.join(','));
  });

  it('leaves no download behind in its work folder, whatever the outcome', async () => {
    const work = path.join(fixture.dir, 'work');
    const clock = new FakeClock(fixture.clock.now());
    const failing = await fixture.sibling({ faults: 'jobFail=1', clock });
    try {
      await sync(path.join(fixture.dir, 'work.duckdb'), { client: fixture.client, namespace: 'canvas', tables: ['quizzes'], workDir: work });
      await clock.run(sync(path.join(fixture.dir, 'work.duckdb'), { client: failing.client, namespace: 'canvas', tables: ['quizzes'], workDir: work, resnapshot: true }));
    } finally {
      await failing.close();
    }
    assert.deepEqual(await fs.readdir(work), []);
  });

  describe('names the service sends that DuckDB cannot keep apart', () => {
    /** The tables' rows as synced, read with every name quoted whatever it holds. */
    async function tableInfo(file: string, table: string): Promise<{ columns: string[]; rows: number }> {
      return withDatabase(file, async (db) => {
        const conn = await db.connect();
        try {
          const q = (n: string): string => `"${n.replace(/"/g, '""')}"`;
          const info = await conn.runAndReadAll('SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position', ['canvas', table]);
          const count = await conn.runAndReadAll(`SELECT count(*) FROM canvas.${q(table)}`);
          return { columns: info.getRowsJson().map(([n]) => String(n)), rows: Number(count.getRowsJson()[0][0]) };
        } finally {
          conn.closeSync();
        }
      });
    }

    it('refuses two tables whose names differ in case only, naming both; once one is synced it syncs on and the other is refused', async () => {
      const file = path.join(fixture.dir, 'case-tables.duckdb');
      const source = sourceOf(fixture.client);
      const both = renamingClient(fixture.client, { tables: { t1: 'users', T1: 'accounts' } });
      const refused = await sync(file, { client: both, source, namespace: 'canvas', tables: 'all' });
      assert.deepEqual(refused.map((r) => [r.table, r.outcome]), [['t1', 'failed'], ['T1', 'failed']]);
      for (const r of refused) {
        assert.match(r.error?.message ?? '', /"canvas\.(t1|T1)" and "canvas\.(t1|T1)" would be one table in .*: DuckDB does not tell upper from lower case apart/);
        assert.match(r.error?.hint ?? '', /different targets/);
      }
      assert.equal(both.jobs, 0);
      assert.deepEqual(await states(file), []);

      const [first] = await sync(file, { client: renamingClient(fixture.client, { tables: { t1: 'users' } }), source, namespace: 'canvas', tables: ['t1'] });
      assert.equal(first.outcome, 'synced', JSON.stringify(first));
      const again = await sync(file, { client: renamingClient(fixture.client, { tables: { t1: 'users', T1: 'accounts' } }), source, namespace: 'canvas', tables: 'all', resnapshot: true });
      const [t1, T1] = again;
      assert.equal(t1.outcome, 'synced', JSON.stringify(t1));
      assert.equal(T1.outcome, 'failed');
      assert.match(T1.error?.message ?? '', /^"canvas\.T1" would be stored as the table "canvas\.t1" already synced in .*DuckDB does not tell upper from lower case apart.*the rows of "canvas\.t1" stay as they are/);
      assert.deepEqual((await states(file)).map((s) => s.table), ['t1']);
      const users = await fixture.reference('canvas', 'users', t1.point!);
      assert.equal((await tableInfo(file, 't1')).rows, users.rows.size, 't1 holds the users, not the accounts');
    });

    it('refuses a table whose columns DuckDB takes for one (name, NAME) or cannot hold (a NUL), naming them, before any job', async () => {
      const file = path.join(fixture.dir, 'case-columns.duckdb');
      const source = sourceOf(fixture.client);
      for (const [columns, said] of [
        [{ sortable_name: 'NAME' }, /^The schema of canvas\.users has columns that would be one column in .*: "name" and "NAME" \(DuckDB does not tell upper from lower case apart/],
        [{ locale: 'loc\u0000ale' }, /^The schema of canvas\.users names columns no database can hold: "loc\\u0000ale" holds a NUL character/],
      ] as const) {
        const client = renamingClient(fixture.client, { tables: { users: 'users' }, columns });
        const [r] = await sync(file, { client, source, namespace: 'canvas', tables: ['users'] });
        assert.equal(r.outcome, 'failed');
        assert.equal(r.error?.kind, 'invalidResponse');
        assert.match(r.error?.message ?? '', said);
        assert.match(r.error?.hint ?? '', /Report the table/);
        assert.equal(client.jobs, 0);
      }
      assert.deepEqual(await states(file), []);
    });

    it('syncs tables and columns named with quotes, semicolons and full-width letters intact', async () => {
      const file = path.join(fixture.dir, 'odd-names.duckdb');
      const table = 'we"ird; DROP TABLE x;--Ｕｓｅｒｓ';
      const client = renamingClient(fixture.client, { tables: { [table]: 'users' }, columns: { name: 'na"me; --', sortable_name: 'Ｓｏｒｔａｂｌｅ\'s' } });
      const [r] = await sync(file, { client, source: sourceOf(fixture.client), namespace: 'canvas', tables: [table] });
      assert.equal(r.outcome, 'synced', JSON.stringify(r));
      const info = await tableInfo(file, table);
      assert.ok(info.columns.includes('na"me; --') && info.columns.includes('Ｓｏｒｔａｂｌｅ\'s'), info.columns.join(', '));
      assert.equal(info.rows, (await fixture.reference('canvas', 'users', r.point!)).rows.size);
      assert.deepEqual((await states(file)).map((s) => s.table), [table]);
    });
  });
});
