// The PostgreSQL sync target against a real PostgreSQL server (Debian's package, started by
// the test in a temporary folder): snapshots and change sets written as the service writes
// result objects (gzip JSONL), schema growth, what a user may and may not do, a meta table from
// an older version, and the database password never in a label, an error or a log line. (What
// must never happen when a run fails or is stopped, and two syncs on one table, is
// postgresTargetFaults.test.ts.)

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DqError } from '../../../src/client/errors';
import { PostgresTarget } from '../../../src/sync/postgresTarget';
import { targetTableOf } from '../../../src/sync/syncColumns';
import type { TargetTable } from '../../../src/sync/syncTarget';
import { dqRejection } from '../../support/dqRejection';
import { errorTexts, line, plan, postgresTargetSuite, serverTargetCases, USERS_COLUMNS, usersTable } from './serverTargetSuite';
import { writeGzJsonl } from './syncFixture';

describe('sync: PostgreSQL target (real server)', function () {
  this.timeout(120_000);
  const suite = postgresTargetSuite();
  const { target, gzFile, users, seeded } = suite;

  // the change-set cases every server target passes alike
  serverTargetCases(suite);

  it('opens with a meta table, a label without the password, and no states yet', async () => {
    const t = target();
    assert.ok(!t.label.includes(suite.server.password), t.label);
    assert.equal(t.label, suite.server.urlWithoutPassword);
    await t.open();
    await t.open();
    assert.deepEqual(await t.listStates(), []);
    assert.equal(await t.readState('canvas', 'users'), undefined);
    const cols = await suite.server.admin<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = 'dq_sync_state' ORDER BY ordinal_position`);
    assert.deepEqual(
      cols.map((c) => c.column_name),
      ['namespace', 'table', 'target_schema', 'target_table', 'point', 'schema_version', 'schema', 'row_count', 'ran_at', 'source'],
    );
  });

  /** A login role of the test server (kept for the other tests: roles outlive databases), and a URL for it. */
  async function role(name: string, password: string): Promise<string> {
    await suite.server.admin(`DO $$ BEGIN CREATE ROLE ${name} LOGIN PASSWORD '${password}'; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
    return `postgresql://${name}:${password}@127.0.0.1:${suite.server.port}/dq_test`;
  }
  const metaTableFound = async (): Promise<boolean> => (await suite.server.admin<{ found: boolean }>(`SELECT to_regclass('public.dq_sync_state') IS NOT NULL AS found`))[0].found;

  it('opened only to read (sync status), creates nothing: a database never synced to has no tables, even for a user who may only connect', async () => {
    const url = await role('dq_reader', 'reader-pw');
    await suite.server.admin(`GRANT CONNECT ON DATABASE dq_test TO dq_reader`);
    for (const t of [target({ readOnly: true }), target({ url, readOnly: true })]) {
      await t.open();
      assert.deepEqual(await t.listStates(), []);
      assert.equal(await t.readState('canvas', 'users'), undefined);
    }
    assert.equal(await metaTableFound(), false, 'no meta table was made');

    await seeded();
    const denied = target({ url, readOnly: true });
    await denied.open();
    const err = await dqRejection(denied.listStates());
    assert.equal(err.kind, 'auth', err.describe());
    assert.equal(err.hint, 'Let the user read the meta table: GRANT SELECT ON public.dq_sync_state TO "dq_reader";');
    await suite.server.admin(`GRANT SELECT ON public.dq_sync_state TO dq_reader`);
    const reader = target({ url, readOnly: true });
    await reader.open();
    assert.deepEqual((await reader.listStates()).map((s) => [s.namespace, s.table, s.rows]), [['canvas', 'users', 3]]);
    await assert.rejects(reader.apply(plan('snapshot', [], '2026-11-21T08:00:00Z')), /opened only to read/);
  });

  it('a user who may create schemas in the database but not in public (PostgreSQL 15) is told to grant CREATE on public, not what it has', async () => {
    const url = await role('dq_etl', 'etl-pw');
    await suite.server.admin(`GRANT CONNECT, CREATE ON DATABASE dq_test TO dq_etl`);
    try {
      const err = await dqRejection(target({ url }).open());
      assert.equal(err.kind, 'auth', err.describe());
      assert.match(err.message, /denied a step of creating the meta table: permission denied for schema public/);
      assert.match(err.hint ?? '', /^The meta table public\.dq_sync_state is made in the schema public.*: GRANT CREATE ON SCHEMA public TO "dq_etl";/);
      assert.doesNotMatch(err.hint ?? '', /ON DATABASE/);
      assert.equal(await metaTableFound(), false);

      await suite.server.admin(`GRANT CREATE ON SCHEMA public TO dq_etl`);
      const t = target({ url });
      await t.open();
      const file = await gzFile([{ ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'Ada' } }]);
      assert.equal((await t.apply(plan('snapshot', [file], '2026-11-20T08:00:00Z'))).rows, 1, 'its CREATE on the database makes the namespace\'s schema');
    } finally {
      await suite.server.admin(`DROP SCHEMA IF EXISTS canvas CASCADE; DROP TABLE IF EXISTS public.dq_sync_state; REVOKE CREATE ON SCHEMA public FROM dq_etl`);
    }
  });

  it('a user who may not create the namespace\'s schema is told to grant CREATE on the database', async () => {
    const url = await role('dq_etl2', 'etl2-pw');
    await suite.server.admin(`GRANT CONNECT ON DATABASE dq_test TO dq_etl2; GRANT CREATE ON SCHEMA public TO dq_etl2`);
    try {
      const t = target({ url });
      await t.open();
      const file = await gzFile([{ ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'Ada' } }]);
      const err = await dqRejection(t.apply(plan('snapshot', [file], '2026-11-20T08:00:00Z')));
      assert.equal(err.kind, 'auth', err.describe());
      assert.match(err.hint ?? '', /GRANT CREATE ON DATABASE "dq_test" TO "dq_etl2";/);
    } finally {
      await suite.server.admin(`DROP TABLE IF EXISTS public.dq_sync_state; REVOKE CREATE ON SCHEMA public FROM dq_etl2`);
    }
  });

  it('brings a meta table from before sources were recorded up to date; its rows have none until their next sync records one', async () => {
    await seeded();
    await suite.server.admin(`ALTER TABLE public.dq_sync_state DROP COLUMN source`);
    const reader = target({ readOnly: true });
    await reader.open();
    assert.deepEqual((await reader.listStates()).map((s) => [s.table, s.source]), [['users', undefined]]);
    const columns = async (): Promise<string[]> =>
      (await suite.server.admin<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = 'dq_sync_state' ORDER BY ordinal_position`)).map((c) => c.column_name);
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
    await suite.server.admin(`ALTER TABLE public.dq_sync_state DROP COLUMN source`);
    const url = await role('dq_writer', 'writer-pw');
    // the rows of the meta table, and a schema of its own for the tables it syncs
    await suite.server.admin(`GRANT CONNECT ON DATABASE dq_test TO dq_writer; GRANT SELECT, INSERT, UPDATE ON public.dq_sync_state TO dq_writer; DROP SCHEMA IF EXISTS w_ns CASCADE; CREATE SCHEMA w_ns AUTHORIZATION dq_writer`);
    try {
      const t = target({ url });
      await t.open();
      const warning = `the meta table public.dq_sync_state in PostgreSQL at postgresql://dq_writer@127.0.0.1:${suite.server.port}/dq_test has no column source, and only its owner may add it (the server said: must be owner of table dq_sync_state). ` +
        'Syncing without recording which service each table came from, so changes from another service or other credentials are not refused. ' +
        'Have the owner of public.dq_sync_state run: ALTER TABLE public.dq_sync_state ADD COLUMN source text;';
      assert.deepEqual(suite.log.lines.filter((l) => l.includes('column source')), [warning]);
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
      assert.deepEqual(await suite.server.admin(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'dq_sync_state' AND column_name = 'source'`), [{ n: 0 }], 'the meta table was left as it was');
      await t.close();

      // once the owner has run it, the sources are recorded again
      await suite.server.admin(`ALTER TABLE public.dq_sync_state ADD COLUMN source text`);
      const after = target({ url });
      await after.open();
      await after.adoptSource('w_ns', 'users', 'https://api.example.com/dap?client=0123456789ab');
      assert.equal((await after.readState('w_ns', 'users'))?.source, 'https://api.example.com/dap?client=0123456789ab');
      assert.deepEqual(suite.log.lines.filter((l) => l.includes('column source')), [warning], 'warned once');
    } finally {
      await suite.closeTargets();
      await suite.server.admin(`DROP SCHEMA IF EXISTS w_ns CASCADE; DROP TABLE IF EXISTS public.dq_sync_state`);
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
    const [{ birthday }] = await suite.server.admin<{ birthday: string }>(`SELECT birthday::text FROM canvas.users WHERE id = 1`);
    assert.equal(birthday, '1990-12-10');
    assert.deepEqual(rows[3].tags, { nested: { deep: [1, null] } });
    assert.equal(rows[1].score, null);

    const types = await suite.server.admin<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'canvas' AND table_name = 'users' ORDER BY ordinal_position`,
    );
    assert.deepEqual(
      types.map((c) => `${c.column_name} ${c.data_type}`),
      ['id bigint', 'name text', 'score double precision', 'active boolean', 'level integer', 'created_at timestamp with time zone', 'birthday date', 'address.city text', 'tags jsonb'],
    );
    const [pk] = await suite.server.admin<{ def: string }>(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'canvas.users'::regclass AND contype = 'p'`);
    assert.equal(pk.def, 'PRIMARY KEY (id)');

    const state = await t.readState('canvas', 'users');
    assert.equal(JSON.stringify(state?.schema), JSON.stringify(usersTable().schema), 'the schema as written, members in order');
    assert.deepEqual(await t.listStates(), [state]);
    const meta = JSON.stringify(await suite.server.admin(`SELECT * FROM public.dq_sync_state`));
    assert.ok(!meta.includes(suite.server.password), 'the meta table holds no password');
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

  it('never shows the password: a wrong one fails as auth, with no password in the label, the error or the log', async () => {
    const wrong = 'Wr0ng-Passw0rd-7f3e';
    const t = target({ url: suite.server.url.replace(suite.server.password, wrong) });
    assert.ok(!t.label.includes(wrong), t.label);
    const err = await dqRejection(t.open());
    assert.equal(err.kind, 'auth', err.describe());
    assert.match(err.message, /refused the login/);
    assert.match(err.message, /the password in the URL/);
    const texts = errorTexts(err) + JSON.stringify(err.details ?? {});
    assert.ok(!texts.includes(wrong), texts);
    assert.ok(!texts.includes(suite.server.password), texts);
    for (const l of suite.log.lines) assert.ok(!l.includes(wrong), l);
  });

  it('finds the password in PGPASSWORD, else in a password file, and ignores a file others can read', async () => {
    const bare = suite.server.urlWithoutPassword;
    await target({ url: bare, env: { PGPASSWORD: suite.server.password } }).open();

    const none = await dqRejection(target({ url: bare, env: {} }).open());
    assert.equal(none.kind, 'auth', none.describe());
    assert.match(none.message, /none was found/);
    assert.match(none.hint ?? '', /PGPASSWORD/);

    const wrongEnv = await dqRejection(target({ url: bare, env: { PGPASSWORD: 'not-it-4242' } }).open());
    assert.equal(wrongEnv.kind, 'auth');
    assert.match(wrongEnv.message, /the password in PGPASSWORD/);
    assert.ok(!errorTexts(wrongEnv).includes('not-it-4242'));

    const home = await fs.mkdtemp(path.join(suite.tmp, 'home-'));
    const file = path.join(home, '.pgpass');
    await fs.writeFile(file, `# other servers\nelsewhere:5432:*:*:nope\n127.0.0.1:${suite.server.port}:dq_test:dq_sync:${suite.server.password.replace(/:/g, '\\:')}\n`, { mode: 0o600 });
    await fs.chmod(file, 0o600);
    await target({ url: bare, env: {}, homeDir: home }).open();
    await target({ url: bare, env: { PGPASSFILE: file }, homeDir: suite.tmp }).open();

    await fs.chmod(file, 0o644);
    const open = await dqRejection(target({ url: bare, env: {}, homeDir: home }).open());
    assert.equal(open.kind, 'auth');
    assert.ok(suite.log.lines.some((l) => l.includes('ignoring the password file') && l.includes('chmod 600')), suite.log.lines.join('\n'));
  });

  it('a snapshot over a table of the same shape keeps the views on it; a changed type needs them gone', async () => {
    const { t } = await seeded();
    await suite.server.admin(`CREATE VIEW canvas.user_names AS SELECT id, name FROM canvas.users`);
    const file = await gzFile([{ ts: '2026-11-21T08:00:00Z', key: { id: 9 }, value: { name: 'Ivy', level: 5 } }]);
    await t.apply(plan('snapshot', [file], '2026-11-21T08:00:00Z'));
    assert.deepEqual(await suite.server.admin(`SELECT id::int, name FROM canvas.user_names`), [{ id: 9, name: 'Ivy' }]);

    const retyped = usersTable(USERS_COLUMNS.map((c) => (c.name === 'level' ? { ...c, type: 'text' as const } : c)), 3);
    const blocked = await dqRejection(t.apply(plan('snapshot', [file], '2026-11-22T08:00:00Z', { table: retyped })));
    assert.equal(blocked.kind, 'usage', blocked.describe());
    assert.match(blocked.hint ?? '', /Drop the views/);
    assert.equal((await t.readState('canvas', 'users'))?.point, '2026-11-21T08:00:00Z');

    await suite.server.admin(`DROP VIEW canvas.user_names`);
    await t.apply(plan('snapshot', [file], '2026-11-22T08:00:00Z', { table: retyped }));
    const [level] = await suite.server.admin<{ data_type: string }>(`SELECT data_type FROM information_schema.columns WHERE table_schema = 'canvas' AND table_name = 'users' AND column_name = 'level'`);
    assert.equal(level.data_type, 'text');
    assert.deepEqual(await suite.server.admin(`SELECT id::int, level FROM canvas.users`), [{ id: 9, level: '5' }]);
  });

  it('a snapshot after the schema lost columns drops them, keeping columns and views of its own; a view on a lost column must go first', async () => {
    const t = target();
    await t.open();
    const usersOf = (version: number, value: Record<string, { type: string }>): TargetTable =>
      targetTableOf('canvas', 'users', { version, schema: { type: 'object', properties: { key: { type: 'object', properties: { id: { type: 'integer', format: 'int64' } } }, value: { type: 'object', properties: value } } } });
    const columnsNow = async (): Promise<string[]> =>
      (await suite.server.admin<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'canvas' AND table_name = 'users' ORDER BY ordinal_position`)).map((r) => r.column_name);
    const v1 = usersOf(1, { name: { type: 'string' }, level: { type: 'integer' }, nickname: { type: 'string' } });
    const first = await gzFile([{ ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'Ada', level: 3, nickname: 'A' } }]);
    await t.apply(plan('snapshot', [first], '2026-11-20T08:00:00Z', { table: v1 }));
    await suite.server.admin(`ALTER TABLE canvas.users ADD COLUMN note text; CREATE VIEW canvas.user_names AS SELECT id, name, nickname FROM canvas.users`);

    const v2 = usersOf(2, { name: { type: 'string' }, nickname: { type: 'string' } });
    const second = await gzFile([{ ts: '2026-11-21T08:00:00Z', key: { id: 2 }, value: { name: 'Bo', nickname: 'B' } }]);
    await t.apply(plan('snapshot', [second], '2026-11-21T08:00:00Z', { table: v2 }));
    assert.deepEqual(await columnsNow(), ['id', 'name', 'nickname', 'note'], 'level is gone; the column of its own stays');
    assert.deepEqual(await suite.server.admin(`SELECT id::int, name, nickname FROM canvas.user_names`), [{ id: 2, name: 'Bo', nickname: 'B' }]);

    const v3 = usersOf(3, { name: { type: 'string' } });
    const blocked = await dqRejection(t.apply(plan('snapshot', [second], '2026-11-22T08:00:00Z', { table: v3 })));
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
    const file = await writeGzJsonl(suite.tmp, [
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
    const plain = path.join(suite.tmp, 'plain-part-1.jsonl.gz'); // named as gzip, but not
    await fs.writeFile(plain, [{ ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'one' } }, { ts: '2026-11-19T08:00:00Z', key: { id: 2 }, value: { name: 'two' } }].map((r) => `${line(r)}\n`).join(''));
    const empty = path.join(suite.tmp, 'empty-part.jsonl');
    await fs.writeFile(empty, '');
    assert.deepEqual(await t.apply(plan('snapshot', [plain, empty], '2026-11-20T08:00:00Z')), { upserted: 2, deleted: 0, rows: 2 });
    assert.deepEqual((await users()).map((r) => [r.id, r.name]), [['1', 'one'], ['2', 'two']]);
  });

  it('refuses a URL it cannot read, or of another database, without repeating it', () => {
    for (const url of ['postgresql://u:s3cr3t-pw@[not-a-host/db', 'mysql://u:s3cr3t-pw@localhost/db']) {
      const err = (() => {
        try {
          new PostgresTarget({ url, logger: suite.log });
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
