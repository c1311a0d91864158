// The PostgreSQL target loads records as typed rows (binary, else text) where it can, and as
// jsonb records where it must; whichever way it takes, a table ends with what the jsonb load
// stores. Checked against a real server: the same lines are loaded by the target, and by the
// jsonb load's own SQL (postgresSql.ts) into a reference table beside it, and the two tables
// are compared row for row as PostgreSQL prints them. The values come in every form a column
// meets: plain ones (binary rows take them), forms only PostgreSQL's input functions read
// (text rows), and forms only the jsonb load stores as it does (a number in exponent form in
// a text column, a member named twice...). A value PostgreSQL refuses fails the run with the
// words the jsonb load would give. The log says which way a load took.

import * as assert from 'node:assert/strict';
import { DqError } from '../../../src/client/errors';
import { cleanJsonLines } from '../../../src/sync/jsonEscapes';
import { createLastTable, createTable, deleteChanges, insertSnapshot, STAGE_TABLE, upsertChanges } from '../../../src/sync/postgresSql';
import { PostgresTarget } from '../../../src/sync/postgresTarget';
import type { ApplyPlan, TargetColumn, TargetTable } from '../../../src/sync/syncTarget';
import { col, plan, postgresTargetSuite } from './serverTargetSuite';
import { writeGzJsonl } from './syncFixture';

const COLUMNS: TargetColumn[] = [
  col('id', ['key', 'id'], 'bigint', true),
  col('t', ['value', 't'], 'text'),
  col('j', ['value', 'j'], 'json'),
  col('d', ['value', 'd'], 'double'),
  col('i', ['value', 'i'], 'integer'),
  col('b', ['value', 'b'], 'bigint'),
  col('ok', ['value', 'ok'], 'boolean'),
  col('ts', ['value', 'ts'], 'timestamptz'),
  col('day', ['value', 'day'], 'date'),
  col('nested.x', ['value', 'nested', 'x'], 'text'),
];

function tableIn(namespace: string): TargetTable {
  return { namespace, table: 'forms', columns: COLUMNS, schemaVersion: 1, schema: { type: 'object' } };
}

/** A record line with the value's members written as given (raw JSON text). */
function rec(id: number | string, members: string, meta = '"action":"U","ts":"2026-11-19T08:00:00Z"'): string {
  return `{"meta":{${meta}},"key":{"id":${id}},"value":{${members}}}`;
}

/** Values binary rows take as they are. */
const PLAIN = [
  rec(1, '"t":"plain","j":{"a":[1,2.50,"x"],"b":null},"d":853.69,"i":200,"b":10358,"ok":true,"ts":"2026-10-30T15:55:08Z","day":"2026-10-30","nested":{"x":"in"}'),
  rec(2, '"t":"tab\\tnew\\nline \\"q\\" back\\\\slash \\/ \\u00e9\\u2713 \\ud83d\\ude00 é","j":"a string","d":-0.1,"i":-2147483648,"b":-9007199254740993,"ok":false'),
  rec(3, '"t":"","j":[],"d":0,"i":2147483647,"b":999999999999999999,"ts":"1999-12-31T23:59:59.999999Z","day":"2000-02-29"'),
  rec(4, '"t":null,"j":null,"d":1e-300,"i":0,"b":-999999999999999999,"ts":"0001-01-01T00:00:00Z","day":"0001-01-01"'),
  rec(5, '"t":"x","j":{"nested":{"deep":[1,null,true]}},"d":1.7976931348623157e308,"b":0,"ts":"9999-12-31T23:59:59.999999+00:00","day":"9999-12-31"'),
  rec(6, '"d":5e-324,"ts":"2026-03-29T01:30:00.5+05:30","day":"1900-03-01","nested":"<truncated>"'),
  rec(7, '"d":123456789012345678901234567890,"ts":"2026-03-29T01:30:00.000001-08:00","nested":{"x":null}'),
  rec(8, '"d":0.30000000000000004,"ts":"1970-01-01T00:00:00.1Z","t":12,"nested":{"y":1}'),
  rec(9, '"d":2.5E+3,"t":-7.250,"j":12345678901234567890123,"ts":"1969-12-31T23:59:59.000001Z"'),
  rec(10, '  "t" : "spaces between tokens" ,\t"j" : { "a" :\t1 } , "ok":true  '),
  rec(11, '"t":true,"i":-0,"b":-0'),
  '',
  rec(12, '"unknown":{"deep":[{"t":"not this one"}]},"t":"after an unknown member"'),
];

/** Values only PostgreSQL's own input functions read: text rows. */
const TEXT_ONLY = [
  rec(20, '"ts":"2026-10-30 15:55:08+02","day":"2026-1-2"'),
  rec(21, '"ts":"2026-10-30T15:55:08.1234567Z","b":"42","i":" 7 ","ok":"t"'),
  rec(22, '"b":-9223372036854775808,"ts":"2026-10-30T15:55:08","d":"NaN"'),
  rec(23, '"b":9223372036854775807,"ok":"yes","day":"May 5, 2026","ts":"2026-10-30T15:55:08\\u002b01:00"'),
  rec(24, '"ts":"infinity","d":"-Infinity","t":"plain again"'),
];

/** Forms only the jsonb load stores as it does. */
const JSONB_ONLY = [
  rec(30, '"b":1e2,"t":"exponent in a bigint column"'),
  rec(31, '"t":1.5e3,"d":-0'),
  rec(32, '"t":{"an":"object"},"ok":true'),
  rec(33, '"t":"named","t":"twice"'),
  rec(34, '"\\u0074":"a member name with an escape"'),
  rec(35, '"t":1E400'),
  rec(36, '"t":-0'),
];

describe('sync: PostgreSQL typed loads store what the jsonb load stores (real server)', function () {
  this.timeout(120_000);
  const suite = postgresTargetSuite('dq-pgtyped-', ['ref']);
  let target: PostgresTarget;

  beforeEach(async () => {
    target = suite.target();
    await target.open();
  });

  /** A plan for the forms table of the namespace `canvas`. */
  const formsPlan = (kind: ApplyPlan['kind'], files: string[], point: string): ApplyPlan => plan(kind, files, point, { table: tableIn('canvas') });

  /** Stages the lines as the jsonb load does (cleaned, one jsonb a line, blank lines NULL) in a session of the test's own, and runs `steps` there. */
  async function withJsonbStage(lines: readonly string[], steps: string[]): Promise<void> {
    const client = await suite.server.adminClient();
    try {
      await client.query('BEGIN');
      await client.query(`CREATE TEMP TABLE ${STAGE_TABLE} (ord bigint GENERATED ALWAYS AS IDENTITY, doc jsonb) ON COMMIT DROP`);
      const docs = lines.map((line) => {
        const cleaned = cleanJsonLines(Buffer.from(line, 'utf8')).toString('utf8');
        return cleaned.trim() === '' ? null : cleaned;
      });
      for (let i = 0; i < docs.length; i += 5000) {
        await client.query(`INSERT INTO ${STAGE_TABLE} (doc) SELECT d FROM unnest($1::jsonb[]) WITH ORDINALITY AS u(d, n) ORDER BY n`, [docs.slice(i, i + 5000)]);
      }
      for (const step of steps) await client.query(step);
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
  }

  /** The reference: the lines loaded as a snapshot by the jsonb load's own SQL into ref.forms. */
  async function referenceSnapshot(lines: readonly string[]): Promise<void> {
    const ref = tableIn('ref');
    await suite.server.admin(`CREATE SCHEMA IF NOT EXISTS ref; DROP TABLE IF EXISTS ref.forms; ${createTable(ref, true)}`);
    await withJsonbStage(lines, [insertSnapshot(ref, true)]);
  }

  /** Both tables as PostgreSQL prints their rows, by key. */
  async function rowsOf(namespace: string): Promise<string[]> {
    return (await suite.server.admin<{ row: string }>(`SELECT f::text AS row FROM ${namespace}.forms f ORDER BY id`)).map((r) => r.row);
  }

  async function assertSameAsJsonbLoad(what: string): Promise<void> {
    const [got, expected] = [await rowsOf('canvas'), await rowsOf('ref')];
    assert.ok(expected.length > 0, 'the reference holds rows');
    assert.deepEqual(got, expected, what);
  }

  const reloads = (): string[] => suite.log.lines.filter((l) => / again /.test(l));

  async function snapshotBothWays(lines: readonly string[]): Promise<void> {
    const file = await writeGzJsonl(suite.tmp, lines);
    const result = await target.apply(formsPlan('snapshot', [file], '2026-11-20T08:00:00Z'));
    await referenceSnapshot(lines);
    assert.equal(result.rows, (await rowsOf('ref')).length);
  }

  it('plain values go in as binary rows, and the table holds what the jsonb load stores', async () => {
    await snapshotBothWays(PLAIN);
    await assertSameAsJsonbLoad('plain values');
    assert.deepEqual(reloads(), [], 'loaded once, as binary rows');
    const [row] = await suite.server.admin<{ b: string; ts: string }>(`SELECT b::text, ts::text FROM canvas.forms WHERE id = 2`);
    assert.equal(row.b, '-9007199254740993', 'a bigint past 2^53 keeps every digit');
  });

  it('thousands of records over many chunks, one of a megabyte, many of a key alone, go in as binary rows the same as the jsonb load stores them', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 6000; i++) {
      const base = PLAIN[i % PLAIN.length];
      if (base === '') continue;
      lines.push(base.replace(/"key":\{"id":\d+\}/, `"key":{"id":${100 + i}}`));
      if (i === 2500) lines.push(rec(99_999, `"t":"${'long text é '.repeat(90_000)}","j":{"big":"${'x'.repeat(300_000)}"}`));
    }
    // records of a key alone: their rows take more bytes than their lines (a NULL for every column)
    for (let i = 0; i < 20_000; i++) lines.push(`{"key":{"id":${200_000 + i}}}`);
    await snapshotBothWays(lines);
    await assertSameAsJsonbLoad('many records');
    assert.deepEqual(reloads(), [], 'loaded once, as binary rows');
    assert.equal((await rowsOf('canvas')).length, lines.length);
  });

  for (const [i, line] of TEXT_ONLY.entries()) {
    it(`a value only PostgreSQL's input functions read goes in as text rows (case ${i + 1}), the same as the jsonb load stores it`, async () => {
      await snapshotBothWays([...PLAIN, line]);
      await assertSameAsJsonbLoad(line);
      assert.equal(reloads().length, 1, reloads().join('\n'));
      assert.match(reloads()[0], /loading the records again as text rows/);
    });
  }

  for (const [i, line] of JSONB_ONLY.entries()) {
    it(`a form only the jsonb load stores as it does goes in as jsonb (case ${i + 1}), the same as the jsonb load stores it`, async () => {
      await snapshotBothWays([...PLAIN, line]);
      await assertSameAsJsonbLoad(line);
      assert.ok(reloads().some((l) => /loading the records again as jsonb/.test(l)), reloads().join('\n'));
    });
  }

  it('a snapshot with keys seen twice keeps the last record of each key, as the jsonb load does', async () => {
    const lines = [
      ...PLAIN,
      rec(1, '"t":"older, later in the file"', '"action":"U","ts":"2026-11-19T07:00:00Z"'),
      rec(2, '"t":"same time, later: wins"'),
      rec(40, '"t":"first"', '"action":"U","ts":"2026-11-19T08:00:00.5Z"'),
      rec(40, '"t":"newer, by half a second"', '"action":"U","ts":"2026-11-19T08:00:01+00:00"'),
    ];
    await snapshotBothWays(lines);
    await assertSameAsJsonbLoad('keys seen twice');
    assert.equal(reloads().length, 1, reloads().join('\n'));
    assert.match(reloads()[0], /; loading it again to keep the last record of each key$/);

    // a batch delivered twice gives itself away as the records stream in: the rest is not loaded first
    suite.log.lines.length = 0;
    const batch = Array.from({ length: 100 }, (_, i) => rec(1000 + i, `"t":"batch ${i}"`));
    await snapshotBothWays([...PLAIN, ...batch, ...batch, ...Array.from({ length: 2000 }, (_, i) => rec(5000 + i, '"t":"after"'))]);
    await assertSameAsJsonbLoad('a batch delivered twice');
    assert.equal(reloads().length, 1, reloads().join('\n'));
    const [, record] = /record (\d+) may repeat the key of an earlier one; loading it again to keep the last record of each key/.exec(reloads()[0]) ?? assert.fail(reloads()[0]);
    assert.ok(Number(record) <= PLAIN.length + 200, record);

    // a key written two ways (a number, then a string) is one key to PostgreSQL: the primary key refuses it once the rows are in
    suite.log.lines.length = 0;
    await snapshotBothWays([rec(1, '"t":"the number"'), rec('"1"', '"t":"the string, later: wins"'), rec(2, '"t":"two"')]);
    await assertSameAsJsonbLoad('one key written two ways');
    assert.match(reloads().join('\n'), /as text rows[^]*holds a key more than once; loading it again to keep the last record of each key/);
  });

  it('a snapshot with a delete drops the key, as the jsonb load does, in text rows when a time needs them', async () => {
    await snapshotBothWays([
      ...PLAIN,
      rec(3, '', '"action":"D","ts":"2026-11-19 09:00:00+00"'),
      rec(41, '"t":"upserted then deleted"'),
      rec(41, '', '"action":"D","ts":"2026-11-19T08:00:01Z"'),
      rec(42, '', '"action":"D","ts":"2026-11-19T08:00:01Z"'),
      rec(42, '"t":"deleted then upserted later"', '"action":"U","ts":"2026-11-19T08:00:02Z"'),
    ]);
    await assertSameAsJsonbLoad('deletes');
    assert.match(reloads().join('\n'), /is a delete; loading it again to keep the last record of each key/);
    assert.match(reloads().join('\n'), /as text rows/);
  });

  it('a resnapshot builds the key after the load, under its name; a key a person changed, or one something depends on, stays in place', async () => {
    await snapshotBothWays(PLAIN);
    await suite.server.admin(`ALTER TABLE canvas.forms RENAME CONSTRAINT forms_pkey TO forms_key_of_mine`);
    const keyOf = async (): Promise<{ name: string; def: string; index: string; options: string[] | null }> =>
      (
        await suite.server.admin<{ name: string; def: string; index: string; options: string[] | null }>(
          `SELECT c.conname AS name, pg_get_constraintdef(c.oid) AS def, c.conindid::text AS index, i.reloptions AS options
           FROM pg_constraint c JOIN pg_class i ON i.oid = c.conindid WHERE c.conrelid = 'canvas.forms'::regclass AND c.contype = 'p'`,
        )
      )[0];
    const before = await keyOf();
    await snapshotBothWays([...PLAIN.slice(1), rec(1, '"t":"changed"')]);
    await assertSameAsJsonbLoad('a resnapshot');
    const rebuilt = await keyOf();
    assert.deepEqual([rebuilt.name, rebuilt.def], ['forms_key_of_mine', 'PRIMARY KEY (id)']);
    assert.notEqual(rebuilt.index, before.index, 'the key was built anew after the load');

    // keys seen twice: the merge takes over, and the key comes back under its name
    await snapshotBothWays([...PLAIN, rec(2, '"t":"later, wins"')]);
    await assertSameAsJsonbLoad('a resnapshot with a key seen twice');
    assert.equal((await keyOf()).name, 'forms_key_of_mine');

    // a view that groups by the key depends on it; a key given storage options is a person's: both stay
    await suite.server.admin(`CREATE VIEW canvas.by_id AS SELECT id, t FROM canvas.forms GROUP BY id`);
    const held = await keyOf();
    await snapshotBothWays(PLAIN);
    await assertSameAsJsonbLoad('a resnapshot with the key in place');
    assert.equal((await keyOf()).index, held.index, 'the key stayed in place');
    assert.equal((await suite.server.admin(`SELECT * FROM canvas.by_id`)).length, (await rowsOf('ref')).length);
    await suite.server.admin(`DROP VIEW canvas.by_id; ALTER INDEX canvas.forms_key_of_mine SET (fillfactor = 70)`);
    await snapshotBothWays([...PLAIN, rec(2, '"t":"later, wins"')]);
    await assertSameAsJsonbLoad('a resnapshot into a key with storage options');
    assert.deepEqual([(await keyOf()).index, (await keyOf()).options], [held.index, ['fillfactor=70']]);

    // a user who may empty and fill the table but is not its owner: the key stays, the snapshot goes in
    await suite.server.admin(`ALTER INDEX canvas.forms_key_of_mine RESET (fillfactor)`);
    await suite.server.admin(`DO $$ BEGIN CREATE ROLE dq_filler LOGIN PASSWORD 'filler-pw'; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
    await suite.server.admin(`GRANT USAGE ON SCHEMA canvas TO dq_filler; GRANT SELECT, INSERT, TRUNCATE ON canvas.forms TO dq_filler; GRANT SELECT, INSERT, UPDATE ON public.dq_sync_state TO dq_filler`);
    const filler = new PostgresTarget({ url: `postgresql://dq_filler:filler-pw@127.0.0.1:${suite.server.port}/dq_test`, logger: suite.log, env: {}, homeDir: suite.tmp });
    try {
      await filler.open();
      const file = await writeGzJsonl(suite.tmp, PLAIN);
      assert.equal((await filler.apply(formsPlan('snapshot', [file], '2026-11-22T08:00:00Z'))).rows, PLAIN.filter((l) => l !== '').length);
    } finally {
      await filler.close();
      await suite.server.admin(`REVOKE ALL ON canvas.forms FROM dq_filler; REVOKE ALL ON SCHEMA canvas FROM dq_filler; REVOKE ALL ON public.dq_sync_state FROM dq_filler`);
    }
    await referenceSnapshot(PLAIN);
    await assertSameAsJsonbLoad('a resnapshot by a user who is not the owner');
    assert.equal((await keyOf()).index, held.index, 'the key stayed in place');
  });

  it('a change set in every form of value upserts and deletes as the jsonb load does', async () => {
    const seed = PLAIN.slice(0, 6);
    await snapshotBothWays(seed);
    for (const changes of [
      [rec(1, '"t":"changed","ts":"2026-11-20T09:00:00Z"', '"action":"U","ts":"2026-11-20T09:00:00Z"'), rec(2, '', '"action":"D","ts":"2026-11-20T09:00:00Z"'), rec(60, '"t":"new"')],
      [rec(3, '"ts":"2026-11-20 10:00:00+01"', '"action":"U","ts":"2026-11-20T10:00:00Z"'), rec(61, '"b":"77"')],
      [rec(4, '"t":1.5e3', '"action":"U","ts":"2026-11-20T11:00:00Z"'), rec(5, '', '"action":"D","ts":"2026-11-20T11:00:00Z"')],
    ]) {
      const file = await writeGzJsonl(suite.tmp, changes);
      await target.apply(formsPlan('changes', [file], '2026-11-21T08:00:00Z'));
      await withJsonbStage(changes, [createLastTable(tableIn('ref')), deleteChanges(tableIn('ref')), upsertChanges(tableIn('ref'))]);
      await assertSameAsJsonbLoad(changes.join('\n'));
    }
    assert.match(reloads().join('\n'), /as text rows/);
    assert.match(reloads().join('\n'), /as jsonb/);
  });

  for (const [i, [line, refused]] of [
    [rec(70, '"b":"abc"'), 'invalid input syntax for type bigint: "abc"'],
    [rec(71, '"i":3000000000'), 'value "3000000000" is out of range for type integer'],
    [rec(72, '"ts":"2026-02-30T00:00:00Z"'), 'date/time field value out of range: "2026-02-30T00:00:00Z"'],
    [rec(73, '"d":1e400'), 'is out of range for type double precision'],
    [rec(74, '"t":"a" "b"'), 'invalid input syntax for type json'],
    [rec(75, '"d":1e-400'), 'is out of range for type double precision'],
  ].entries()) {
    it(`a value PostgreSQL refuses fails the run as the jsonb load fails it, the table as it was (case ${i + 1})`, async () => {
      await snapshotBothWays(PLAIN);
      const before = await rowsOf('canvas');
      const file = await writeGzJsonl(suite.tmp, [...PLAIN, line]);
      const err = await target.apply(formsPlan('snapshot', [file], '2026-11-21T08:00:00Z')).then(
        () => assert.fail('the run succeeded'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof DqError, String(err));
      assert.equal(err.kind, 'invalidResponse', err.describe());
      assert.ok(err.message.includes(refused), err.message);
      assert.match(err.message, /keeps its last complete run/);
      assert.deepEqual(await rowsOf('canvas'), before);
    });
  }
});
