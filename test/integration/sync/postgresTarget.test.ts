// The PostgreSQL sync target against a real PostgreSQL server (Debian's package, started by
// the test in a temporary folder): snapshots and change sets written as the service writes
// result objects (gzip JSONL), schema growth, and what must never happen: a half-applied
// run after a bad file, an abort or a server that went away, two syncs on one table, the
// database password in a label, an error or a log line.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { DqError } from '../../../src/client/errors';
import { PostgresTarget, type PostgresTargetOptions } from '../../../src/sync/postgresTarget';
import { targetTableOf } from '../../../src/sync/syncColumns';
import type { ApplyPlan, TargetColumn, TargetTable } from '../../../src/sync/syncTarget';
import { FakeClock } from '../../support/fakeClock';
import { startPostgres, type PostgresServer } from '../../support/postgresServer';
import { LogLines, writeGzJsonl } from './syncFixture';

type Row = Record<string, unknown>;

interface RecordSpec {
  action?: 'U' | 'D';
  ts: string;
  key: Row;
  value?: Row;
}

function line(r: RecordSpec): string {
  const rec: Row = { meta: { action: r.action ?? 'U', ts: r.ts }, key: r.key };
  if ((r.action ?? 'U') === 'U') rec.value = r.value ?? {};
  return JSON.stringify(rec);
}

const col = (name: string, pathParts: string[], type: TargetColumn['type'], key = false): TargetColumn => ({ name, path: pathParts, type, key });

const USERS_COLUMNS: TargetColumn[] = [
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

function usersTable(columns = USERS_COLUMNS, schemaVersion = 1): TargetTable {
  // members in the service's order, which is not the order jsonb would keep them in
  const schema = { type: 'object', properties: { value: { type: 'object' }, key: { type: 'object' }, meta: { type: 'object' } } };
  return { namespace: 'canvas', table: 'users', columns, schemaVersion, schema };
}

/** Every text an error carries: message, hint, describe(), and its causes. */
function errorTexts(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let i = 0; e instanceof Error && i < 6; i++) {
    parts.push(e.message, String((e as DqError).hint ?? ''), e instanceof DqError ? e.describe() : '', e.stack ?? '');
    e = e.cause;
  }
  return parts.join('\n');
}

async function rejection(promise: Promise<unknown>): Promise<DqError> {
  const err = await promise.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof DqError, `a DqError, not ${String(err)}`);
  return err;
}

describe('sync: PostgreSQL target (real server)', function () {
  this.timeout(120_000);
  let pg: PostgresServer;
  let tmp: string;
  let log: LogLines;
  const targets: PostgresTarget[] = [];
  let fileNo = 0;

  const target = (extra: Partial<PostgresTargetOptions> = {}): PostgresTarget => {
    const t = new PostgresTarget({ url: pg.url, logger: log, env: {}, homeDir: tmp, ...extra });
    targets.push(t);
    return t;
  };

  const gzFile = (records: RecordSpec[]): Promise<string> => writeGzJsonl(tmp, records.map(line));

  function plan(kind: ApplyPlan['kind'], files: string[], point: string, extra: Partial<ApplyPlan> = {}): ApplyPlan {
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

  const users = (): Promise<Row[]> => pg.admin(`SELECT * FROM canvas.users ORDER BY id`);
  const metaRows = (): Promise<Row[]> => pg.admin(`SELECT namespace, "table", point, schema_version, row_count FROM public.dq_sync_state ORDER BY 1, 2`);

  before(async () => {
    pg = await startPostgres();
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-pgsync-'));
  });

  /** Set when a test ends, so a wait it left behind (after a timeout) stops instead of keeping the run alive. */
  let ended = false;
  /** Polls until `done()`; bounded by the test's timeout only, and ends with the test. */
  async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
    while (!(await done())) {
      if (ended) throw new Error(`the test ended while waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  beforeEach(async () => {
    ended = false;
    log = new LogLines();
    await pg.admin(`DROP SCHEMA IF EXISTS canvas CASCADE; DROP TABLE IF EXISTS public.dq_sync_state`);
  });

  afterEach(async () => {
    ended = true;
    for (const t of targets.splice(0)) await t.close();
    for (const l of log.lines) assert.ok(!l.includes(pg.password), `a log line holds the password: ${l}`);
  });

  after(async () => {
    await pg?.stop();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  /**
   * An opened target with a first snapshot of three users applied and checked, and a check that
   * the table and its meta row are still as that snapshot left them.
   */
  async function seeded(): Promise<{ t: PostgresTarget; keptLastRun: (what?: string) => Promise<void> }> {
    const t = target();
    await t.open();
    const file = await gzFile([
      { ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'Ada', level: 3 } },
      { ts: '2026-11-19T08:00:00Z', key: { id: 2 }, value: { name: 'Bo', level: 1 } },
      { ts: '2026-11-19T08:00:00Z', key: { id: 3 }, value: { name: 'Cy', level: 2 } },
    ]);
    const result = await t.apply(plan('snapshot', [file], '2026-11-20T08:00:00Z'));
    assert.equal(result.rows, 3);
    const tableBefore = await users();
    const metaBefore = await metaRows();
    const keptLastRun = async (what?: string): Promise<void> => {
      assert.deepEqual(await users(), tableBefore, what);
      assert.deepEqual(await metaRows(), metaBefore, what);
    };
    return { t, keptLastRun };
  }

  it('opens with a meta table, a label without the password, and no states yet', async () => {
    const t = target();
    assert.ok(!t.label.includes(pg.password), t.label);
    assert.equal(t.label, pg.urlWithoutPassword);
    await t.open();
    await t.open();
    assert.deepEqual(await t.listStates(), []);
    assert.equal(await t.readState('canvas', 'users'), undefined);
    const cols = await pg.admin<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = 'dq_sync_state' ORDER BY ordinal_position`);
    assert.deepEqual(
      cols.map((c) => c.column_name),
      ['namespace', 'table', 'target_schema', 'target_table', 'point', 'schema_version', 'schema', 'row_count', 'ran_at', 'source'],
    );
  });

  /** A login role of the test server (kept for the other tests: roles outlive databases), and a URL for it. */
  async function role(name: string, password: string): Promise<string> {
    await pg.admin(`DO $$ BEGIN CREATE ROLE ${name} LOGIN PASSWORD '${password}'; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
    return `postgresql://${name}:${password}@127.0.0.1:${pg.port}/dq_test`;
  }
  const metaTableFound = async (): Promise<boolean> => (await pg.admin<{ found: boolean }>(`SELECT to_regclass('public.dq_sync_state') IS NOT NULL AS found`))[0].found;

  it('opened only to read (sync status), creates nothing: a database never synced to has no tables, even for a user who may only connect', async () => {
    const url = await role('dq_reader', 'reader-pw');
    await pg.admin(`GRANT CONNECT ON DATABASE dq_test TO dq_reader`);
    for (const t of [target({ readOnly: true }), target({ url, readOnly: true })]) {
      await t.open();
      assert.deepEqual(await t.listStates(), []);
      assert.equal(await t.readState('canvas', 'users'), undefined);
    }
    assert.equal(await metaTableFound(), false, 'no meta table was made');

    await seeded();
    const denied = target({ url, readOnly: true });
    await denied.open();
    const err = await rejection(denied.listStates());
    assert.equal(err.kind, 'auth', err.describe());
    assert.equal(err.hint, 'Let the user read the meta table: GRANT SELECT ON public.dq_sync_state TO "dq_reader";');
    await pg.admin(`GRANT SELECT ON public.dq_sync_state TO dq_reader`);
    const reader = target({ url, readOnly: true });
    await reader.open();
    assert.deepEqual((await reader.listStates()).map((s) => [s.namespace, s.table, s.rows]), [['canvas', 'users', 3]]);
    await assert.rejects(reader.apply(plan('snapshot', [], '2026-11-21T08:00:00Z')), /opened only to read/);
  });

  it('a user who may create schemas in the database but not in public (PostgreSQL 15) is told to grant CREATE on public, not what it has', async () => {
    const url = await role('dq_etl', 'etl-pw');
    await pg.admin(`GRANT CONNECT, CREATE ON DATABASE dq_test TO dq_etl`);
    try {
      const err = await rejection(target({ url }).open());
      assert.equal(err.kind, 'auth', err.describe());
      assert.match(err.message, /denied a step of creating the meta table: permission denied for schema public/);
      assert.match(err.hint ?? '', /^The meta table public\.dq_sync_state is made in the schema public.*: GRANT CREATE ON SCHEMA public TO "dq_etl";/);
      assert.doesNotMatch(err.hint ?? '', /ON DATABASE/);
      assert.equal(await metaTableFound(), false);

      await pg.admin(`GRANT CREATE ON SCHEMA public TO dq_etl`);
      const t = target({ url });
      await t.open();
      const file = await gzFile([{ ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'Ada' } }]);
      assert.equal((await t.apply(plan('snapshot', [file], '2026-11-20T08:00:00Z'))).rows, 1, 'its CREATE on the database makes the namespace\'s schema');
    } finally {
      await pg.admin(`DROP SCHEMA IF EXISTS canvas CASCADE; DROP TABLE IF EXISTS public.dq_sync_state; REVOKE CREATE ON SCHEMA public FROM dq_etl`);
    }
  });

  it('a user who may not create the namespace\'s schema is told to grant CREATE on the database', async () => {
    const url = await role('dq_etl2', 'etl2-pw');
    await pg.admin(`GRANT CONNECT ON DATABASE dq_test TO dq_etl2; GRANT CREATE ON SCHEMA public TO dq_etl2`);
    try {
      const t = target({ url });
      await t.open();
      const file = await gzFile([{ ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'Ada' } }]);
      const err = await rejection(t.apply(plan('snapshot', [file], '2026-11-20T08:00:00Z')));
      assert.equal(err.kind, 'auth', err.describe());
      assert.match(err.hint ?? '', /GRANT CREATE ON DATABASE "dq_test" TO "dq_etl2";/);
    } finally {
      await pg.admin(`DROP TABLE IF EXISTS public.dq_sync_state; REVOKE CREATE ON SCHEMA public FROM dq_etl2`);
    }
  });

  it('brings a meta table from before sources were recorded up to date; its rows have none until their next sync records one', async () => {
    await seeded();
    await pg.admin(`ALTER TABLE public.dq_sync_state DROP COLUMN source`);
    const reader = target({ readOnly: true });
    await reader.open();
    assert.deepEqual((await reader.listStates()).map((s) => [s.table, s.source]), [['users', undefined]]);
    const columns = async (): Promise<string[]> =>
      (await pg.admin<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = 'dq_sync_state' ORDER BY ordinal_position`)).map((c) => c.column_name);
    assert.ok(!(await columns()).includes('source'), 'reading changes nothing');

    const t = target();
    await t.open();
    assert.equal((await columns()).at(-1), 'source');
    assert.equal((await t.readState('canvas', 'users'))?.source, undefined);
    await t.adoptSource('canvas', 'users', 'https://api.example.com/dap');
    await t.adoptSource('canvas', 'users', 'https://other.example.com/dap');
    assert.equal((await t.readState('canvas', 'users'))?.source, 'https://api.example.com/dap', 'adopted once, never taken over');
    // a source from before client tags were is rewritten with the tag, when it is the one named
    await t.adoptSource('canvas', 'users', 'https://api.example.com/dap?client=0123456789ab', 'https://other.example.com/dap');
    assert.equal((await t.readState('canvas', 'users'))?.source, 'https://api.example.com/dap');
    await t.adoptSource('canvas', 'users', 'https://api.example.com/dap?client=0123456789ab', 'https://api.example.com/dap');
    assert.equal((await t.readState('canvas', 'users'))?.source, 'https://api.example.com/dap?client=0123456789ab');
    const file = await gzFile([{ ts: '2026-11-20T09:00:00Z', key: { id: 1 }, value: { name: 'Ada v2' } }]);
    await t.apply(plan('snapshot', [file], '2026-11-20T12:00:00Z', { state: { ...plan('snapshot', [], '').state, point: '2026-11-20T12:00:00Z', source: 'https://other.example.com/dap' } }));
    assert.equal((await t.readState('canvas', 'users'))?.source, 'https://other.example.com/dap', 'a snapshot records its own');
    assert.equal(await t.hasTable('canvas', 'users'), true);
    assert.equal(await t.hasTable('canvas', 'nothing'), false);
  });

  it('a user who may only read and write the rows of a meta table from before sources were recorded syncs as before, and is told what the owner should run', async () => {
    await seeded();
    await pg.admin(`ALTER TABLE public.dq_sync_state DROP COLUMN source`);
    const url = await role('dq_writer', 'writer-pw');
    // the rows of the meta table, and a schema of its own for the tables it syncs
    await pg.admin(`GRANT CONNECT ON DATABASE dq_test TO dq_writer; GRANT SELECT, INSERT, UPDATE ON public.dq_sync_state TO dq_writer; DROP SCHEMA IF EXISTS w_ns CASCADE; CREATE SCHEMA w_ns AUTHORIZATION dq_writer`);
    try {
      const t = target({ url });
      await t.open();
      const warning = `the meta table public.dq_sync_state in PostgreSQL at postgresql://dq_writer@127.0.0.1:${pg.port}/dq_test has no column source, and only its owner may add it (the server said: must be owner of table dq_sync_state). ` +
        'Syncing without recording which service each table came from, so changes from another service or other credentials are not refused. ' +
        'Have the owner of public.dq_sync_state run: ALTER TABLE public.dq_sync_state ADD COLUMN source text;';
      assert.deepEqual(log.lines.filter((l) => l.includes('column source')), [warning]);
      assert.deepEqual((await t.listStates()).map((s) => [s.namespace, s.table, s.source]), [['canvas', 'users', undefined]], 'the rows read without the column');

      const table = { ...usersTable(), namespace: 'w_ns' };
      const state = (point: string) => ({ ...plan('snapshot', [], point, { table }).state, source: 'https://api.example.com/dap?client=0123456789ab' });
      const first = await gzFile([
        { ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'Ada' } },
        { ts: '2026-11-19T08:00:00Z', key: { id: 2 }, value: { name: 'Bo' } },
      ]);
      assert.deepEqual(await t.apply(plan('snapshot', [first], '2026-11-20T08:00:00Z', { table, state: state('2026-11-20T08:00:00Z') })), { upserted: 2, deleted: 0, rows: 2 });
      const changes = await gzFile([{ action: 'D', ts: '2026-11-20T09:00:00Z', key: { id: 2 } }]);
      assert.deepEqual(await t.apply(plan('changes', [changes], '2026-11-20T12:00:00Z', { table, state: state('2026-11-20T12:00:00Z') })), { upserted: 0, deleted: 1, rows: 1 });
      await t.adoptSource('w_ns', 'users', 'https://api.example.com/dap?client=0123456789ab');
      assert.deepEqual(await t.readState('w_ns', 'users').then((s) => [s?.point, s?.rows, s?.source]), ['2026-11-20T12:00:00Z', 1, undefined]);
      assert.deepEqual(await pg.admin(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'dq_sync_state' AND column_name = 'source'`), [{ n: 0 }], 'the meta table was left as it was');
      await t.close();

      // once the owner has run it, the sources are recorded again
      await pg.admin(`ALTER TABLE public.dq_sync_state ADD COLUMN source text`);
      const after = target({ url });
      await after.open();
      await after.adoptSource('w_ns', 'users', 'https://api.example.com/dap?client=0123456789ab');
      assert.equal((await after.readState('w_ns', 'users'))?.source, 'https://api.example.com/dap?client=0123456789ab');
      assert.deepEqual(log.lines.filter((l) => l.includes('column source')), [warning], 'warned once');
    } finally {
      for (const t of targets.splice(0)) await t.close();
      await pg.admin(`DROP SCHEMA IF EXISTS w_ns CASCADE; DROP TABLE IF EXISTS public.dq_sync_state`);
    }
  });

  it('loads a snapshot with typed and nested columns; of duplicate keys the newest record wins, then the later one', async () => {
    const t = target();
    await t.open();
    const first = await gzFile([
      {
        ts: '2026-11-19T08:00:00Z',
        key: { id: 1 },
        value: { name: 'Ada', score: 9.5, active: true, level: 3, created_at: '2020-01-02T03:04:05.678Z', birthday: '1990-12-10', address: { city: 'Oslo' }, tags: ['a', 'b'] },
      },
      { ts: '2026-11-19T09:00:00Z', key: { id: 2 }, value: { name: 'Bo (newest)' } },
      { ts: '2026-11-19T08:00:00Z', key: { id: 3 }, value: { name: 'Cy (first)' } },
    ]);
    const second = await gzFile([
      { ts: '2026-11-19T07:00:00Z', key: { id: 2 }, value: { name: 'Bo (older, later file)' } },
      { ts: '2026-11-19T08:00:00Z', key: { id: 3 }, value: { name: 'Cy (same time, later)' } },
      { ts: '2026-11-19T08:00:00Z', key: { id: 4 }, value: { name: 'Di "quoted" \\ back, comma\ttab', tags: { nested: { deep: [1, null] } } } },
    ]);
    const result = await t.apply(plan('snapshot', [first, second], '2026-11-20T08:00:00Z'));
    assert.deepEqual(result, { upserted: 4, deleted: 0, rows: 4 });

    const rows = await users();
    assert.deepEqual(
      rows.map((r) => r.name),
      ['Ada', 'Bo (newest)', 'Cy (same time, later)', 'Di "quoted" \\ back, comma\ttab'],
    );
    const ada = rows[0];
    assert.equal(ada.id, '1'); // bigint comes back as text from pg
    assert.equal(ada.score, 9.5);
    assert.equal(ada.active, true);
    assert.equal(ada.level, 3);
    assert.equal((ada.created_at as Date).toISOString(), '2020-01-02T03:04:05.678Z');
    assert.equal(ada['address.city'], 'Oslo');
    assert.deepEqual(ada.tags, ['a', 'b']);
    const [{ birthday }] = await pg.admin<{ birthday: string }>(`SELECT birthday::text FROM canvas.users WHERE id = 1`);
    assert.equal(birthday, '1990-12-10');
    assert.deepEqual(rows[3].tags, { nested: { deep: [1, null] } });
    assert.equal(rows[1].score, null);

    const types = await pg.admin<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'canvas' AND table_name = 'users' ORDER BY ordinal_position`,
    );
    assert.deepEqual(
      types.map((c) => `${c.column_name} ${c.data_type}`),
      ['id bigint', 'name text', 'score double precision', 'active boolean', 'level integer', 'created_at timestamp with time zone', 'birthday date', 'address.city text', 'tags jsonb'],
    );
    const [pk] = await pg.admin<{ def: string }>(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'canvas.users'::regclass AND contype = 'p'`);
    assert.equal(pk.def, 'PRIMARY KEY (id)');

    const state = await t.readState('canvas', 'users');
    assert.equal(JSON.stringify(state?.schema), JSON.stringify(usersTable().schema), 'the schema as written, members in order');
    assert.deepEqual(await t.listStates(), [state]);
    const meta = JSON.stringify(await pg.admin(`SELECT * FROM public.dq_sync_state`));
    assert.ok(!meta.includes(pg.password), 'the meta table holds no password');
    assert.deepEqual(state, {
      namespace: 'canvas',
      table: 'users',
      point: '2026-11-20T08:00:00Z',
      schemaVersion: 1,
      schema: usersTable().schema,
      rows: 4,
      ranAt: '2026-11-20T09:00:00Z',
    });
  });

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
    const result = await t.apply(plan('changes', [changes1, changes2], '2026-11-20T12:00:00Z'));
    assert.deepEqual(result, { upserted: 3, deleted: 1, rows: 3 });
    assert.deepEqual(
      (await users()).map((r) => [r.id, r.name, r.level]),
      [
        ['1', 'Ada v2', 4],
        ['2', 'Bo is back', null],
        ['5', 'Ed', null],
      ],
    );
    const state = await t.readState('canvas', 'users');
    assert.equal(state?.point, '2026-11-20T12:00:00Z');
    assert.equal(state?.rows, 3);
  });
  /** Waits until the server shows what a test waits for (a count above zero). */
  async function waitFor(what: string, sql: string): Promise<void> {
    await until(what, async () => Number((await pg.admin<{ n: string }>(sql))[0].n) > 0);
  }
  const BLOCKED_ON_LOCK = `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name LIKE 'dq sync%' AND wait_event_type = 'Lock'`;

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
      (await users()).map((r) => [r.id, r.name, r.email]),
      [
        ['1', 'Ada', 'ada@example.org'],
        ['2', 'Bo', null],
        ['3', 'Cy', null],
        ['7', 'Gus', 'gus@example.org'],
      ],
    );
    assert.equal((await t.readState('canvas', 'users'))?.schemaVersion, 2);
  });

  it('keeps the table and its meta row as they were when the last file is corrupt, and applies the next run', async () => {
    const { t, keptLastRun } = await seeded();
    const good = await gzFile([{ ts: '2026-11-20T09:00:00Z', key: { id: 1 }, value: { name: 'changed' } }]);
    const whole = gzipSync(Array.from({ length: 2000 }, (_, i) => line({ ts: '2026-11-20T09:00:00Z', key: { id: 100 + i }, value: { name: `n${i}` } })).join('\n'));
    const corrupt = Buffer.from(whole);
    for (let i = 200; i < 260; i++) corrupt[i] ^= 0x5a;
    const bad = path.join(tmp, 'corrupt.jsonl.gz');
    await fs.writeFile(bad, corrupt);

    for (const kind of ['changes', 'snapshot'] as const) {
      const err = await rejection(t.apply(plan(kind, [good, bad], '2026-11-20T12:00:00Z')));
      assert.equal(err.kind, 'invalidResponse', err.describe());
      assert.match(err.message, /not valid gzip/);
      assert.match(err.message, /keeps its last complete run/);
      await keptLastRun(kind);
    }
    const truncated = path.join(tmp, 'truncated.jsonl.gz');
    await fs.writeFile(truncated, whole.subarray(0, whole.length - 100));
    const err = await rejection(t.apply(plan('changes', [good, truncated], '2026-11-20T12:00:00Z')));
    assert.equal(err.kind, 'invalidResponse', err.describe());
    await keptLastRun();

    const result = await t.apply(plan('changes', [good], '2026-11-20T12:00:00Z'));
    assert.deepEqual(result, { upserted: 1, deleted: 0, rows: 3 });
    assert.equal((await t.readState('canvas', 'users'))?.point, '2026-11-20T12:00:00Z');
  });

  it('a resnapshot whose file holds a line \\. (which ends COPY early) fails naming the line and keeps the table as it was', async () => {
    const { t, keptLastRun } = await seeded();
    const records = [1, 2, 3].map((id) => line({ ts: '2026-11-20T09:00:00Z', key: { id }, value: { name: `new ${id}` } }));
    for (const lines of [[records[0], '\\.', records[1], records[2]], [records[0], '\\.\r', records[1], records[2]]]) {
      const file = await writeGzJsonl(tmp, lines);
      for (const kind of ['snapshot', 'changes'] as const) {
        const err = await rejection(t.apply(plan(kind, [file], '2026-11-20T12:00:00Z')));
        assert.equal(err.kind, 'invalidResponse', err.describe());
        assert.match(err.message, new RegExp(`^Line 2 of ${path.basename(file).replace(/\./g, '\\.')}, a result file of canvas\\.users, is not a JSON record`));
        assert.match(err.hint ?? '', /keeps its last complete sync/);
        await keptLastRun(`${kind} of ${JSON.stringify(lines[1])}`);
      }
    }
  });

  it('refuses a record longer than 16 MiB naming the table, file and line, and keeps the table as it was', async () => {
    const { t, keptLastRun } = await seeded();
    const long = line({ ts: '2026-11-20T09:00:00Z', key: { id: 9 }, value: { name: 'x'.repeat(17 * 1024 * 1024) } });
    const file = await writeGzJsonl(tmp, [line({ ts: '2026-11-20T09:00:00Z', key: { id: 8 }, value: { name: 'short' } }), long]);
    const err = await rejection(t.apply(plan('snapshot', [file], '2026-11-20T12:00:00Z')));
    assert.equal(err.kind, 'invalidResponse', err.describe());
    assert.equal(err.message, `The record on line 2 of ${path.basename(file)}, a result file of canvas.users, is longer than 16 MiB, the most a sync loads as one record.`);
    await keptLastRun();
  });

  /** Holds the table's meta row, so an apply gets as far as writing it (its rows applied) and waits. */
  const HOLD_META_ROW = `BEGIN; SELECT 1 FROM public.dq_sync_state WHERE namespace = 'canvas' AND "table" = 'users' FOR UPDATE`;

  it('rolls back when aborted with its rows applied but its meta row not yet written, and lets go of the table', async () => {
    const { t, keptLastRun } = await seeded();
    const holder = await pg.adminClient();
    try {
      await holder.query(HOLD_META_ROW);
      const file = await gzFile([
        { ts: '2026-11-20T09:00:00Z', action: 'D', key: { id: 1 } },
        { ts: '2026-11-20T09:00:00Z', key: { id: 2 }, value: { name: 'changed' } },
      ]);
      const abort = new AbortController();
      const running = t.apply(plan('changes', [file], '2026-11-20T12:00:00Z', { signal: abort.signal }));
      await waitFor('the apply waiting to write its meta row', BLOCKED_ON_LOCK);
      abort.abort();
      const err = await rejection(running);
      assert.equal(err.kind, 'cancelled', err.describe());
      assert.match(err.message, /keeps its last complete run/);
      // nothing of ours waits on the server any more
      const [busy] = await pg.admin<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name LIKE 'dq sync%' AND state <> 'idle'`);
      assert.equal(Number(busy.n), 0);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    await keptLastRun();
    const release = await target({ lockWaitMs: 0 }).lockTable('canvas', 'users');
    await release();
  });

  it('keeps the table as it was when a record fails after the deletes and the emptying ran', async () => {
    const { t, keptLastRun } = await seeded();
    const keyless = await gzFile([
      { ts: '2026-11-20T09:00:00Z', action: 'D', key: { id: 1 } },
      { ts: '2026-11-20T09:00:00Z', key: {}, value: { name: 'no key' } },
    ]);
    for (const kind of ['changes', 'snapshot'] as const) {
      const err = await rejection(t.apply(plan(kind, [keyless], '2026-11-20T12:00:00Z')));
      assert.equal(err.kind, 'invalidResponse', err.describe());
      assert.match(err.message, /no value for a key column/);
      await keptLastRun(kind);
    }
  });

  it('rolls back when aborted in the middle of a file', async () => {
    const { t, keptLastRun } = await seeded();
    const fifo = path.join(tmp, `stream-${++fileNo}.jsonl`);
    execFileSync('mkfifo', [fifo]);
    const good = await gzFile([{ ts: '2026-11-20T09:00:00Z', key: { id: 1 }, value: { name: 'changed' } }]);
    const abort = new AbortController();
    const running = t.apply(plan('snapshot', [good, fifo], '2026-11-20T12:00:00Z', { signal: abort.signal }));
    running.catch(() => undefined);
    const writer = await fs.open(fifo, 'w');
    try {
      await writer.write(line({ ts: '2026-11-20T09:00:00Z', key: { id: 8 }, value: { name: 'half' } }) + '\n{"meta":{"act');
      await waitFor('the COPY of the second file', `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name LIKE 'dq sync%' AND state = 'active' AND query LIKE 'COPY %'`);
      abort.abort();
      const err = await rejection(running);
      assert.equal(err.kind, 'cancelled', err.describe());
    } finally {
      await writer.close();
    }
    await keptLastRun();
    // the target goes on: its session was rolled back, not left inside the COPY
    const result = await t.apply(plan('changes', [good], '2026-11-20T12:00:00Z'));
    assert.equal(result.upserted, 1);
  });

  it('keeps a second sync off a table until the first lets go, naming the holder; other tables stay free', async () => {
    const clock = new FakeClock();
    const first = target();
    const second = target({ lockWaitMs: 300, clock });
    await first.open();
    await second.open();
    const release = await first.lockTable('canvas', 'users');
    const started = clock.now();
    const err = await rejection(clock.run(second.lockTable('canvas', 'users')));
    assert.equal(clock.now() - started, 300, 'it gave up once the wait was over');
    assert.equal(err.kind, 'io', err.describe());
    assert.match(err.message, /canvas\.users/);
    assert.ok(err.message.includes(`dq sync (pid ${process.pid}`), err.message);
    assert.match(err.message, /server process \d+/);
    assert.match(err.hint ?? '', /again when it has finished/);
    const file = await gzFile([{ ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'x' } }]);
    const applyErr = await rejection(clock.run(second.apply(plan('snapshot', [file], '2026-11-20T08:00:00Z'))));
    assert.equal(applyErr.kind, 'io');
    assert.deepEqual(await metaRows(), []);

    const other = await second.lockTable('canvas', 'courses');
    await other();
    await release();
    await release();
    const now = await second.lockTable('canvas', 'users');
    await now();
  });

  it('waits for a lock another sync holds, trying again, and takes it once that sync lets go', async () => {
    const clock = new FakeClock();
    const first = target();
    const warnings: string[] = [];
    const second = target({ clock, lockWaitMs: 30_000, logger: { ...log, warn: (m: string) => void warnings.push(m) } });
    const release = await first.lockTable('canvas', 'users');
    let taken = false;
    const waiting = second.lockTable('canvas', 'users').then((r) => {
      taken = true;
      return r;
    });
    const sleeping = (): Promise<void> => until('a sync sleeping between tries', () => clock.pending > 0);
    const wake = (): Promise<void> => clock.advance(clock.nextAt()! - clock.now());
    for (let i = 0; i < 3; i++) {
      await sleeping();
      await wake();
    }
    // released while the second sync sleeps between tries, so its next try is the one that wins
    await sleeping();
    assert.equal(taken, false);
    const tries = [...clock.sleeps];
    await release();
    await wake();
    const releaseSecond = await waiting;
    assert.equal(taken, true);
    assert.ok(tries.length >= 4 && tries.every((ms) => ms > 0 && ms <= 2_000), String(tries));
    // said once, as a warning, when it began to wait, naming the holder
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0],
      new RegExp(`^waiting up to 30 s for canvas\\.users in PostgreSQL at ${second.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: another sync \\(dq sync \\(pid ${process.pid} on [^)]+\\), server process \\d+( from [^)]+)?\\) is applying it\\.$`),
    );

    // a third sync, stopped while it waits (the second's keep-alive sleeps meanwhile)
    const third = target({ clock, lockWaitMs: 30_000 });
    const abort = new AbortController();
    const stopped = third.lockTable('canvas', 'users', abort.signal);
    stopped.catch(() => undefined);
    await until('the third sync sleeping between tries', () => clock.pending > 1);
    abort.abort();
    const err = await rejection(stopped);
    assert.equal(err.kind, 'cancelled', err.describe());
    await releaseSecond();
  });

  it('when the session holding a table\'s lock is closed as idle anyway, says so and what closed it; the table keeps its last run', async () => {
    const { keptLastRun } = await seeded();
    await pg.admin(`ALTER ROLE dq_sync SET idle_session_timeout = '1500ms'`);
    try {
      // a clock that never moves: the keep-alive statements never run, as if they could not keep up
      const t = target({ clock: new FakeClock() });
      await t.open();
      const release = await t.lockTable('canvas', 'users');
      const [{ pid }] = await pg.admin<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = hashtext('canvas.users')::oid AND classid = hashtext('dq_sync')::oid`,
      );
      await until('the server closing the idle session that holds the lock', async () => (await pg.admin(`SELECT 1 FROM pg_stat_activity WHERE pid = $1`, [pid])).length === 0);
      const file = await gzFile([{ ts: '2026-11-20T09:00:00Z', action: 'D', key: { id: 1 } }]);
      const err = await rejection(t.apply(plan('changes', [file], '2026-11-20T12:00:00Z')));
      assert.equal(err.kind, 'network', err.describe());
      assert.match(err.message, /^The connection that held the lock of canvas\.users in PostgreSQL at \S+ was lost while the data was fetched: the server closed it as idle \(idle_session_timeout\)/);
      assert.match(err.message, /idle-session timeout/, 'the server\'s own words');
      assert.match(err.message, /keeps its last complete run/);
      assert.match(err.hint ?? '', /^Run the sync again\. If it keeps happening, .*idle_session_timeout, or the idle timeout of a pooler or firewall/);
      await release();
    } finally {
      await pg.admin(`ALTER ROLE dq_sync RESET idle_session_timeout`);
    }
    await keptLastRun();
  });

  it('never shows the password: a wrong one fails as auth, with no password in the label, the error or the log', async () => {
    const wrong = 'Wr0ng-Passw0rd-7f3e';
    const t = target({ url: pg.url.replace(pg.password, wrong) });
    assert.ok(!t.label.includes(wrong), t.label);
    const err = await rejection(t.open());
    assert.equal(err.kind, 'auth', err.describe());
    assert.match(err.message, /refused the login/);
    assert.match(err.message, /the password in the URL/);
    const texts = errorTexts(err) + JSON.stringify(err.details ?? {});
    assert.ok(!texts.includes(wrong), texts);
    assert.ok(!texts.includes(pg.password), texts);
    for (const l of log.lines) assert.ok(!l.includes(wrong), l);
  });

  it('finds the password in PGPASSWORD, else in a password file, and ignores a file others can read', async () => {
    const bare = pg.urlWithoutPassword;
    await target({ url: bare, env: { PGPASSWORD: pg.password } }).open();

    const none = await rejection(target({ url: bare, env: {} }).open());
    assert.equal(none.kind, 'auth', none.describe());
    assert.match(none.message, /none was found/);
    assert.match(none.hint ?? '', /PGPASSWORD/);

    const wrongEnv = await rejection(target({ url: bare, env: { PGPASSWORD: 'not-it-4242' } }).open());
    assert.equal(wrongEnv.kind, 'auth');
    assert.match(wrongEnv.message, /the password in PGPASSWORD/);
    assert.ok(!errorTexts(wrongEnv).includes('not-it-4242'));

    const home = await fs.mkdtemp(path.join(tmp, 'home-'));
    const file = path.join(home, '.pgpass');
    await fs.writeFile(file, `# other servers\nelsewhere:5432:*:*:nope\n127.0.0.1:${pg.port}:dq_test:dq_sync:${pg.password.replace(/:/g, '\\:')}\n`, { mode: 0o600 });
    await fs.chmod(file, 0o600);
    await target({ url: bare, env: {}, homeDir: home }).open();
    await target({ url: bare, env: { PGPASSFILE: file }, homeDir: tmp }).open();

    await fs.chmod(file, 0o644);
    const open = await rejection(target({ url: bare, env: {}, homeDir: home }).open());
    assert.equal(open.kind, 'auth');
    assert.ok(log.lines.some((l) => l.includes('ignoring the password file') && l.includes('chmod 600')), log.lines.join('\n'));
  });

  it('a server that goes away mid-run: a clear network error, and after a restart the last complete run is intact', async () => {
    const { t, keptLastRun } = await seeded();
    const holder = await pg.adminClient();
    await holder.query(HOLD_META_ROW);
    const file = await gzFile([{ ts: '2026-11-20T09:00:00Z', action: 'D', key: { id: 1 } }]);
    const running = t.apply(plan('changes', [file], '2026-11-20T12:00:00Z'));
    running.catch(() => undefined);
    await waitFor('the apply waiting to write its meta row', BLOCKED_ON_LOCK);
    await pg.halt();
    const err = await rejection(running);
    await holder.end().catch(() => undefined);
    assert.equal(err.kind, 'network', err.describe());
    assert.ok(err.message.includes(pg.urlWithoutPassword), err.message);
    assert.match(err.message, /keeps its last complete run/);
    assert.match(err.hint ?? '', /server is running/);
    assert.ok(!errorTexts(err).includes(pg.password));

    const down = await rejection(t.readState('canvas', 'users'));
    assert.equal(down.kind, 'network', down.describe());

    await pg.restart();
    await keptLastRun();
    assert.equal((await t.readState('canvas', 'users'))?.point, '2026-11-20T08:00:00Z');
    const result = await t.apply(plan('changes', [file], '2026-11-20T12:00:00Z'));
    assert.deepEqual(result, { upserted: 0, deleted: 1, rows: 2 });
  });

  it('a snapshot over a table of the same shape keeps the views on it; a changed type needs them gone', async () => {
    const { t } = await seeded();
    await pg.admin(`CREATE VIEW canvas.user_names AS SELECT id, name FROM canvas.users`);
    const file = await gzFile([{ ts: '2026-11-21T08:00:00Z', key: { id: 9 }, value: { name: 'Ivy', level: 5 } }]);
    await t.apply(plan('snapshot', [file], '2026-11-21T08:00:00Z'));
    assert.deepEqual(await pg.admin(`SELECT id::int, name FROM canvas.user_names`), [{ id: 9, name: 'Ivy' }]);

    const retyped = usersTable(USERS_COLUMNS.map((c) => (c.name === 'level' ? { ...c, type: 'text' as const } : c)), 3);
    const blocked = await rejection(t.apply(plan('snapshot', [file], '2026-11-22T08:00:00Z', { table: retyped })));
    assert.equal(blocked.kind, 'usage', blocked.describe());
    assert.match(blocked.hint ?? '', /Drop the views/);
    assert.equal((await t.readState('canvas', 'users'))?.point, '2026-11-21T08:00:00Z');

    await pg.admin(`DROP VIEW canvas.user_names`);
    await t.apply(plan('snapshot', [file], '2026-11-22T08:00:00Z', { table: retyped }));
    const [level] = await pg.admin<{ data_type: string }>(`SELECT data_type FROM information_schema.columns WHERE table_schema = 'canvas' AND table_name = 'users' AND column_name = 'level'`);
    assert.equal(level.data_type, 'text');
    assert.deepEqual(await pg.admin(`SELECT id::int, level FROM canvas.users`), [{ id: 9, level: '5' }]);
  });

  it('a snapshot after the schema lost columns drops them, keeping columns and views of its own; a view on a lost column must go first', async () => {
    const t = target();
    await t.open();
    const usersOf = (version: number, value: Record<string, { type: string }>): TargetTable =>
      targetTableOf('canvas', 'users', { version, schema: { type: 'object', properties: { key: { type: 'object', properties: { id: { type: 'integer', format: 'int64' } } }, value: { type: 'object', properties: value } } } });
    const columnsNow = async (): Promise<string[]> =>
      (await pg.admin<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'canvas' AND table_name = 'users' ORDER BY ordinal_position`)).map((r) => r.column_name);
    const v1 = usersOf(1, { name: { type: 'string' }, level: { type: 'integer' }, nickname: { type: 'string' } });
    const first = await gzFile([{ ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'Ada', level: 3, nickname: 'A' } }]);
    await t.apply(plan('snapshot', [first], '2026-11-20T08:00:00Z', { table: v1 }));
    await pg.admin(`ALTER TABLE canvas.users ADD COLUMN note text; CREATE VIEW canvas.user_names AS SELECT id, name, nickname FROM canvas.users`);

    const v2 = usersOf(2, { name: { type: 'string' }, nickname: { type: 'string' } });
    const second = await gzFile([{ ts: '2026-11-21T08:00:00Z', key: { id: 2 }, value: { name: 'Bo', nickname: 'B' } }]);
    await t.apply(plan('snapshot', [second], '2026-11-21T08:00:00Z', { table: v2 }));
    assert.deepEqual(await columnsNow(), ['id', 'name', 'nickname', 'note'], 'level is gone; the column of its own stays');
    assert.deepEqual(await pg.admin(`SELECT id::int, name, nickname FROM canvas.user_names`), [{ id: 2, name: 'Bo', nickname: 'B' }]);

    const v3 = usersOf(3, { name: { type: 'string' } });
    const blocked = await rejection(t.apply(plan('snapshot', [second], '2026-11-22T08:00:00Z', { table: v3 })));
    assert.equal(blocked.kind, 'usage', blocked.describe());
    assert.match(blocked.hint ?? '', /Drop the views/);
    assert.deepEqual(await columnsNow(), ['id', 'name', 'nickname', 'note'], 'the failed run changed nothing');
    assert.equal((await t.readState('canvas', 'users'))?.point, '2026-11-21T08:00:00Z');
  });

  it('drops the \\u0000 escape PostgreSQL cannot store, keeping text that only looks like it', async () => {
    const t = target();
    await t.open();
    const file = await gzFile([
      { ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'a\u0000b', tags: { note: 'x\u0000y' } } },
      { ts: '2026-11-19T08:00:00Z', key: { id: 2 }, value: { name: 'c\\u0000d' } },
    ]);
    await t.apply(plan('snapshot', [file], '2026-11-20T08:00:00Z'));
    assert.deepEqual(
      (await users()).map((r) => [r.name, r.tags]),
      [
        ['ab', { note: 'xy' }],
        ['c\\u0000d', null],
      ],
    );
  });

  it('loads a record whose nested object is a truncation marker, or whose text ends in half an emoji, instead of failing the table', async () => {
    const t = target();
    await t.open();
    const file = await writeGzJsonl(tmp, [
      line({ ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'one', address: '<truncated>' } }),
      // JSON.stringify writes a lone surrogate as the escape \ud83d, which jsonb refuses
      line({ ts: '2026-11-19T08:00:00Z', key: { id: 2 }, value: { name: 'cut \ud83d', address: { city: 'Gh\udc00ent' } } }),
      `{"meta":{"action":"U","ts":"2026-11-19T08:00:00Z"},"key":{"id":3},"value":{"name":"\\\\ud83d is text, \\ud83d\\ude00 a pair"}}`,
    ]);
    assert.deepEqual(await t.apply(plan('snapshot', [file], '2026-11-20T08:00:00Z')), { upserted: 3, deleted: 0, rows: 3 });
    assert.deepEqual(
      (await users()).map((r) => [r.id, r.name, r['address.city']]),
      [
        ['1', 'one', null],
        ['2', 'cut ', 'Ghent'],
        ['3', '\\ud83d is text, \u{1F600} a pair', null],
      ],
    );
  });

  it('loads result files that are plain JSONL, known by their first bytes, not gzip, and an empty one', async () => {
    const t = target();
    await t.open();
    const plain = path.join(tmp, 'plain-part-1.jsonl.gz'); // named as gzip, but not
    await fs.writeFile(plain, [{ ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'one' } }, { ts: '2026-11-19T08:00:00Z', key: { id: 2 }, value: { name: 'two' } }].map((r) => `${line(r)}\n`).join(''));
    const empty = path.join(tmp, 'empty-part.jsonl');
    await fs.writeFile(empty, '');
    assert.deepEqual(await t.apply(plan('snapshot', [plain, empty], '2026-11-20T08:00:00Z')), { upserted: 2, deleted: 0, rows: 2 });
    assert.deepEqual((await users()).map((r) => [r.id, r.name]), [['1', 'one'], ['2', 'two']]);
  });

  it('asks for a snapshot when changes arrive for a table that is not there', async () => {
    const t = target();
    await t.open();
    const file = await gzFile([{ ts: '2026-11-20T09:00:00Z', key: { id: 1 }, value: { name: 'x' } }]);
    const err = await rejection(t.apply(plan('changes', [file], '2026-11-20T12:00:00Z')));
    assert.equal(err.kind, 'snapshotRequired', err.describe());
    assert.match(err.hint ?? '', /--resnapshot/);
    assert.deepEqual(await metaRows(), []);
  });

  it('refuses a URL it cannot read, or of another database, without repeating it', () => {
    for (const url of ['postgresql://u:s3cr3t-pw@[not-a-host/db', 'mysql://u:s3cr3t-pw@localhost/db']) {
      const err = (() => {
        try {
          new PostgresTarget({ url, logger: log });
        } catch (e) {
          return e;
        }
        return assert.fail(url);
      })();
      assert.ok(err instanceof DqError);
      assert.equal(err.kind, 'usage');
      assert.ok(!errorTexts(err).includes('s3cr3t-pw'), errorTexts(err));
    }
  });
});
