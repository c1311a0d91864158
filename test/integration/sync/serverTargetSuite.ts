// What the tests of the targets on a database server (MySQL, PostgreSQL) share: records written
// as the service writes them, the users table they load, a plan for it, how a failure and every
// text it carries are caught, and a suite. The suite starts a real server once (test/support),
// gives each test targets of its own on it and a fresh log, empties the database before each
// test, closes the test's targets after it and checks that no log line holds the password.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DqError } from '../../../src/client/errors';
import { MysqlTarget, type MysqlTargetOptions } from '../../../src/sync/mysqlTarget';
import { PostgresTarget, type PostgresTargetOptions } from '../../../src/sync/postgresTarget';
import type { ApplyPlan, SyncTarget, TargetColumn, TargetTable } from '../../../src/sync/syncTarget';
import { dqRejection } from '../../support/dqRejection';
import { requireMariadb, startMariadb, type MariadbServer } from '../../support/mariadbServer';
import { startPostgres, type PostgresServer } from '../../support/postgresServer';
import type { TestServer } from '../../support/serverProcess';
import { emptyDatabase } from './mysqlRows';
import { LogLines, writeGzJsonl } from './syncFixture';

export type Row = Record<string, unknown>;

/** A record of a result file; `value` only for an upsert (the default action). */
export interface RecordSpec {
  action?: 'U' | 'D';
  ts: string;
  key: Row;
  value?: Row;
}

/** The record as a line of a result file. */
export function line(r: RecordSpec): string {
  const rec: Row = { meta: { action: r.action ?? 'U', ts: r.ts }, key: r.key };
  if ((r.action ?? 'U') === 'U') rec.value = r.value ?? {};
  return JSON.stringify(rec);
}

export const col = (name: string, pathParts: string[], type: TargetColumn['type'], key = false): TargetColumn => ({ name, path: pathParts, type, key });

export const USERS_COLUMNS: TargetColumn[] = [
  col('id', ['key', 'id'], 'bigint', true),
  col('name', ['value', 'name'], 'text'),
  col('score', ['value', 'score'], 'double'),
  col('active', ['value', 'active'], 'boolean'),
  col('level', ['value', 'level'], 'integer'),
  col('created_at', ['value', 'created_at'], 'timestamptz'),
  col('birthday', ['value', 'birthday'], 'date'),
  col('address.city', ['value', 'address', 'city'], 'text'),
  col('tags', ['value', 'tags'], 'json'),
];

export function usersTable(columns = USERS_COLUMNS, schemaVersion = 1): TargetTable {
  // members in the service's order, which is not the order the server's JSON (jsonb) would keep them in
  const schema = { type: 'object', properties: { value: { type: 'object' }, key: { type: 'object' }, meta: { type: 'object' } } };
  return { namespace: 'canvas', table: 'users', columns, schemaVersion, schema };
}

/** A plan for the users table (or `extra.table`), its meta row at `point`. */
export function plan(kind: ApplyPlan['kind'], files: string[], point: string, extra: Partial<ApplyPlan> = {}): ApplyPlan {
  const table = extra.table ?? usersTable();
  return {
    kind,
    table,
    files,
    addedColumns: [],
    state: { namespace: table.namespace, table: table.table, point, schemaVersion: table.schemaVersion, schema: table.schema, ranAt: '2026-11-20T09:00:00Z' },
    ...extra,
  };
}

/** Every text an error carries: message, hint, describe(), and its causes. */
export function errorTexts(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let i = 0; e instanceof Error && i < 6; i++) {
    parts.push(e.message, String((e as DqError).hint ?? ''), e instanceof DqError ? e.describe() : '', e.stack ?? '');
    e = e.cause;
  }
  return parts.join('\n');
}

/** What a suite's target is made with, before the test's own options. */
export interface SuiteTargetOptions {
  url: string;
  logger: LogLines;
  env: NodeJS.ProcessEnv;
  homeDir: string;
}

export interface ServerTargetSuiteOptions<S extends TestServer, T extends SyncTarget, O> {
  /** how the name of the suite's temporary folder begins */
  tmpPrefix: string;
  /** Starts the server (or skips the suite, saying why). */
  start(ctx: Mocha.Context): Promise<S>;
  /** Empties the database: the synced tables and the meta table. */
  empty(server: S): Promise<unknown>;
  makeTarget(options: SuiteTargetOptions & Partial<O>): T;
  /** the users table's rows, by id */
  usersSql: string;
  /** the meta rows: namespace, table, point, schema_version and row_count */
  metaRowsSql: string;
}

export interface ServerTargetSuite<S extends TestServer, T extends SyncTarget, O> {
  /** the server (from the suite's `before` on) */
  readonly server: S;
  /** the suite's temporary folder (also the targets' home folder) */
  readonly tmp: string;
  /** the test's log */
  readonly log: LogLines;
  /** A target of the test's own on the server (closed after the test), with the test's options over the suite's. */
  target(extra?: Partial<O>): T;
  /** Closes the test's targets now. */
  closeTargets(): Promise<void>;
  /** The records as a gzip result file in the suite's folder. */
  gzFile(records: RecordSpec[]): Promise<string>;
  /**
   * Starts the apply `planOf` makes with a FIFO as its last file, and writes one record and half
   * of the next into it, so the load stalls inside the file; runs `meanwhile` (which must make the
   * apply fail), and returns that failure.
   */
  stalledApply(t: T, planOf: (fifo: string) => ApplyPlan, meanwhile: () => Promise<void>): Promise<DqError>;
  /** Polls until `done()`; bounded by the test's timeout only, and ends with the test. */
  until(what: string, done: () => boolean | Promise<boolean>): Promise<void>;
  users(): Promise<Row[]>;
  metaRows(): Promise<Row[]>;
  /**
   * An opened target with a first snapshot of three users applied and checked, and a check that
   * the table and its meta row are still as that snapshot left them.
   */
  seeded(): Promise<{ t: T; keptLastRun: (what?: string) => Promise<void> }>;
}

/** Registers the suite's hooks in the `describe` it is called in. */
export function serverTargetSuite<S extends TestServer, T extends SyncTarget, O>(o: ServerTargetSuiteOptions<S, T, O>): ServerTargetSuite<S, T, O> {
  let server: S;
  let tmp: string;
  let log: LogLines;
  const targets: T[] = [];
  let fileNo = 0;
  /** Set when a test ends, so a wait it left behind (after a timeout) stops instead of keeping the run alive. */
  let ended = false;

  before(async function () {
    server = await o.start(this);
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), o.tmpPrefix));
  });

  beforeEach(async () => {
    ended = false;
    log = new LogLines();
    await o.empty(server);
  });

  afterEach(async () => {
    ended = true;
    await suite.closeTargets();
    for (const l of log.lines) assert.ok(!l.includes(server.password), `a log line holds the password: ${l}`);
  });

  after(async () => {
    await server?.stop();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  const suite: ServerTargetSuite<S, T, O> = {
    get server() {
      return server;
    },
    get tmp() {
      return tmp;
    },
    get log() {
      return log;
    },
    target(extra = {}) {
      const t = o.makeTarget({ url: server.url, logger: log, env: {}, homeDir: tmp, ...extra });
      targets.push(t);
      return t;
    },
    async closeTargets() {
      for (const t of targets.splice(0)) await t.close();
    },
    gzFile: (records) => writeGzJsonl(tmp, records.map(line)),
    async stalledApply(t, planOf, meanwhile) {
      const fifo = path.join(tmp, `stream-${++fileNo}.jsonl`);
      execFileSync('mkfifo', [fifo]);
      const running = t.apply(planOf(fifo));
      running.catch(() => undefined);
      const writer = await fs.open(fifo, 'w');
      try {
        await writer.write(`${line({ ts: '2026-11-20T09:00:00Z', key: { id: 8 }, value: { name: 'half' } })}\n{"meta":{"act`);
        await meanwhile();
        return await dqRejection(running);
      } finally {
        await writer.close();
      }
    },
    async until(what, done) {
      while (!(await done())) {
        if (ended) throw new Error(`the test ended while waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    users: () => server.admin(o.usersSql),
    metaRows: () => server.admin(o.metaRowsSql),
    async seeded() {
      const t = suite.target();
      await t.open();
      const file = await suite.gzFile([
        { ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'Ada', level: 3 } },
        { ts: '2026-11-19T08:00:00Z', key: { id: 2 }, value: { name: 'Bo', level: 1 } },
        { ts: '2026-11-19T08:00:00Z', key: { id: 3 }, value: { name: 'Cy', level: 2 } },
      ]);
      const result = await t.apply(plan('snapshot', [file], '2026-11-20T08:00:00Z'));
      assert.equal(result.rows, 3);
      const tableBefore = await suite.users();
      const metaBefore = await suite.metaRows();
      const keptLastRun = async (what?: string): Promise<void> => {
        assert.deepEqual(await suite.users(), tableBefore, what);
        assert.deepEqual(await suite.metaRows(), metaBefore, what);
      };
      return { t, keptLastRun };
    },
  };
  return suite;
}

/** The suite of the MySQL target tests, on a real MariaDB server (skipped, saying why, where there is none). */
export function mysqlTargetSuite(): ServerTargetSuite<MariadbServer, MysqlTarget, MysqlTargetOptions> {
  return serverTargetSuite<MariadbServer, MysqlTarget, MysqlTargetOptions>({
    tmpPrefix: 'dq-mysqlsync-',
    start: async (ctx) => {
      requireMariadb(ctx);
      return startMariadb();
    },
    empty: emptyDatabase,
    makeTarget: (options) => new MysqlTarget(options),
    usersSql: 'SELECT * FROM canvas__users ORDER BY id',
    metaRowsSql: 'SELECT namespace, `table`, point, schema_version, row_count FROM dq_sync_state ORDER BY 1, 2',
  });
}

/** The suite of PostgreSQL target tests, on a real server; `alsoDrop` names more schemas to empty before each test. */
export function postgresTargetSuite(tmpPrefix = 'dq-pgsync-', alsoDrop: string[] = []): ServerTargetSuite<PostgresServer, PostgresTarget, PostgresTargetOptions> {
  const drops = ['canvas', ...alsoDrop].map((schema) => `DROP SCHEMA IF EXISTS ${schema} CASCADE; `).join('');
  return serverTargetSuite<PostgresServer, PostgresTarget, PostgresTargetOptions>({
    tmpPrefix,
    start: () => startPostgres(),
    empty: (pg) => pg.admin(`${drops}DROP TABLE IF EXISTS public.dq_sync_state`),
    makeTarget: (options) => new PostgresTarget(options),
    usersSql: 'SELECT * FROM canvas.users ORDER BY id',
    metaRowsSql: 'SELECT namespace, "table", point, schema_version, row_count FROM public.dq_sync_state ORDER BY 1, 2',
  });
}

/**
 * The cases every server target passes alike, on the suite's server: a change set applied by
 * commit time across files, the columns a change set brings, changes for a table that is not
 * there, and a record too long to load. `changesPoint` is the point the change set reaches.
 */
export function serverTargetCases<S extends TestServer, T extends SyncTarget, O>(suite: ServerTargetSuite<S, T, O>, changesPoint = '2026-11-20T12:00:00Z'): void {
  const { target, gzFile, users, metaRows, seeded } = suite;

  it('applies a change set: upserts, deletes, a delete then re-upsert, an upsert then delete, by commit time across files', async () => {
    const { t } = await seeded();
    const changes1 = await gzFile([
      { ts: '2026-11-20T09:00:00Z', key: { id: 1 }, value: { name: 'Ada v2', level: 4 } },
      { ts: '2026-11-20T09:00:00Z', action: 'D', key: { id: 2 } },
      { ts: '2026-11-20T09:30:00Z', key: { id: 2 }, value: { name: 'Bo is back' } },
      { ts: '2026-11-20T09:00:00Z', key: { id: 5 }, value: { name: 'Ed' } },
      { ts: '2026-11-20T11:00:00Z', action: 'D', key: { id: 99 } },
    ]);
    const changes2 = await gzFile([
      // older than the re-upsert above though it comes later: it loses
      { ts: '2026-11-20T09:10:00Z', action: 'D', key: { id: 2 } },
      { ts: '2026-11-20T10:00:00Z', action: 'D', key: { id: 3 } },
      { ts: '2026-11-20T10:00:00Z', key: { id: 6 }, value: { name: 'Fi' } },
      { ts: '2026-11-20T10:30:00Z', action: 'D', key: { id: 6 } },
    ]);
    const result = await t.apply(plan('changes', [changes1, changes2], changesPoint));
    assert.deepEqual(result, { upserted: 3, deleted: 1, rows: 3 });
    assert.deepEqual(
      (await users()).map((r) => [String(r.id), r.name, r.level]),
      [
        ['1', 'Ada v2', 4],
        ['2', 'Bo is back', null],
        ['5', 'Ed', null],
      ],
    );
    const state = await t.readState('canvas', 'users');
    assert.deepEqual([state?.point, state?.rows], [changesPoint, 3]);
  });

  it('adds the columns a change set brings before loading it, and fills them', async () => {
    const { t } = await seeded();
    const email = col('email', ['value', 'email'], 'text');
    const grown = usersTable([...USERS_COLUMNS, email], 2);
    const file = await gzFile([
      { ts: '2026-11-20T09:00:00Z', key: { id: 1 }, value: { name: 'Ada', level: 3, email: 'ada@example.org' } },
      { ts: '2026-11-20T09:00:00Z', key: { id: 7 }, value: { name: 'Gus', email: 'gus@example.org' } },
    ]);
    const result = await t.apply(plan('changes', [file], '2026-11-20T12:00:00Z', { table: grown, addedColumns: [email] }));
    assert.deepEqual(result, { upserted: 2, deleted: 0, rows: 4 });
    assert.deepEqual(
      (await users()).map((r) => [String(r.id), r.name, r.email]),
      [
        ['1', 'Ada', 'ada@example.org'],
        ['2', 'Bo', null],
        ['3', 'Cy', null],
        ['7', 'Gus', 'gus@example.org'],
      ],
    );
    assert.equal((await t.readState('canvas', 'users'))?.schemaVersion, 2);
  });

  it('asks for a snapshot when changes arrive for a table that is not there', async () => {
    const t = target();
    await t.open();
    const file = await gzFile([{ ts: '2026-11-20T09:00:00Z', key: { id: 1 }, value: { name: 'x' } }]);
    const err = await dqRejection(t.apply(plan('changes', [file], '2026-11-20T12:00:00Z')));
    assert.equal(err.kind, 'snapshotRequired', err.describe());
    assert.match(err.hint ?? '', /--resnapshot/);
    assert.deepEqual(await metaRows(), []);
  });

  it('refuses a record longer than 16 MiB naming the table, file and line, and keeps the table as it was', async () => {
    const { t, keptLastRun } = await seeded();
    const long = line({ ts: '2026-11-20T09:00:00Z', key: { id: 9 }, value: { name: 'x'.repeat(17 * 1024 * 1024) } });
    const file = await writeGzJsonl(suite.tmp, [line({ ts: '2026-11-20T09:00:00Z', key: { id: 8 }, value: { name: 'short' } }), long]);
    const err = await dqRejection(t.apply(plan('snapshot', [file], '2026-11-20T12:00:00Z')));
    assert.equal(err.kind, 'invalidResponse', err.describe());
    assert.equal(err.message, `The record on line 2 of ${path.basename(file)}, a result file of canvas.users, is longer than 16 MiB, the most a sync loads as one record.`);
    await keptLastRun();
  });
}
