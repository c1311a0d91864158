// The lake target on its own, with result files written here in the service's record shape:
// a snapshot delivered with duplicate keys, a change set with several records of one key and
// records without an action, truncation markers and half an emoji, a column added in place and
// a change that needs a snapshot, names in Parquet's form, an abort, a store that ignores write
// conditions, and a target opened read-only, which writes nothing.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SchemaEnvelope } from '../../../src/core/contract';
import type { LakeTarget } from '../../../src/sync/lakeTarget';
import { targetTableOf } from '../../../src/sync/syncColumns';
import type { ApplyPlan, TargetTable } from '../../../src/sync/syncTarget';
import { FolderStore } from '../../support/folderStore';
import { lakeRows, lakeTarget, layoutOf, manifestFiles, stateOf, unaccounted } from './lakeRows';
import { withTarget, writeGzJsonl } from './syncFixture';
import { d, peopleSchema, T0, T1, T2, u, type Rec } from '../../support/peopleRecords';

const duckdb = require('@duckdb/node-api') as typeof import('@duckdb/node-api');

const SCHEMA = peopleSchema('Name');
const TABLE: TargetTable = targetTableOf('school', 'people', SCHEMA);

describe('the lake sync target', function () {
  this.timeout(60_000);
  let dir: string;
  let n = 0;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-lake-target-'));
  });
  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  const gz = (records: Rec[]): Promise<string> => writeGzJsonl(dir, records.map((r) => JSON.stringify(r)));

  function plan(kind: ApplyPlan['kind'], files: string[], point: string, more: Partial<ApplyPlan> = {}): ApplyPlan {
    return { kind, table: TABLE, files, addedColumns: [], state: { namespace: 'school', table: 'people', point, schemaVersion: 1, schema: SCHEMA.schema, ranAt: '2026-11-24T00:00:00Z' }, ...more };
  }

  function freshStore(enforcesConditions = true): FolderStore {
    return new FolderStore(path.join(dir, `store-${++n}`), { enforcesConditions });
  }

  const apply = (store: FolderStore, p: ApplyPlan): ReturnType<LakeTarget['apply']> => withTarget(lakeTarget(store, dir), (t) => t.apply(p));

  /** id -> the row's other columns, in the table's order */
  async function rows(store: FolderStore): Promise<Record<string, unknown[]>> {
    const read = await lakeRows(store, 'school', 'people');
    return Object.fromEntries([...read.rows.values()].map(([id, ...rest]) => [String(id), rest]));
  }

  it('a snapshot with duplicate keys: the newest record of a key wins, then the later file, then the later line; a key whose newest record is a delete is left out', async () => {
    const store = freshStore();
    const first = await gz([u(1, T1, { Name: 'a' }), u(2, T1, { Name: 'b' }), u(1, T1, { Name: 'c' }), u(4, T0, { Name: 'gone' }), d(4, T1)]);
    const second = await gz([u(2, T0, { Name: 'older' }), u(3, T1, { Name: 'e' }), u(3, T1, { Name: 'f' })]);
    const result = await apply(store, plan('snapshot', [first, second], T1));
    assert.deepEqual({ upserted: result.upserted, deleted: result.deleted, rows: result.rows }, { upserted: 3, deleted: 0, rows: 3 });
    assert.deepEqual(Object.fromEntries(Object.entries(await rows(store)).map(([id, r]) => [id, r[0]])), { '1': 'c', '2': 'b', '3': 'f' });
    const state = (await stateOf(store, 'school', 'people'))!;
    assert.deepEqual(state.columns.map((c) => c.name), ['id', 'name', 'score', 'seen_at', 'tags', 'address_city'], 'Parquet names: lower case, a-z 0-9 _');
    assert.deepEqual([state.files[0].minKey, state.files[0].maxKey], ['[1]', '[3]']);
  });

  it('applies a change set by key: the last record of each key decides; records without an action are upserts; truncation markers and half an emoji load', async () => {
    const store = freshStore();
    await apply(store, plan('snapshot', [await gz([u(1, T0, { Name: 'one' }), u(2, T0, { Name: 'two' }), u(3, T0, { Name: 'three', address: '<truncated>' }), u(4, T0, { Name: 'four' })])], T0));
    const changes = await writeGzJsonl(dir, [
      JSON.stringify(u(1, T1, { Name: 'one again' })),
      JSON.stringify(d(1, T2)), // upsert then delete: gone
      JSON.stringify(d(2, T1)),
      JSON.stringify(u(2, T2, { Name: '', score: 2.5, tags: ['x', 'y'], address: { city: 'Ghent' }, seen_at: '2026-11-01T07:30:00Z' })),
      JSON.stringify(d(3, T1)),
      JSON.stringify(d(9, T1)), // never existed
      JSON.stringify({ meta: { ts: T1 }, key: { id: 5 }, value: { Name: 'cut \ud83d' } }), // no action; a lone surrogate escape
    ]);
    const result = await apply(store, plan('changes', [changes], T2));
    assert.deepEqual({ upserted: result.upserted, deleted: result.deleted, rows: result.rows }, { upserted: 2, deleted: 2, rows: 3 });
    assert.deepEqual(await rows(store), {
      '2': ['', 2.5, Date.parse('2026-11-01T07:30:00Z'), ['x', 'y'], 'Ghent'],
      '4': ['four', null, null, null, null],
      '5': ['cut ', null, null, null, null],
    });
    assert.deepEqual(await unaccounted(store, 'school', 'people'), []);
    assert.deepEqual((await fs.readdir(dir)).filter((f) => f.startsWith('dq-lake-') || f.endsWith('.cleaned.jsonl.gz')), [], 'no work folder or copy is left');
  });

  it('adds a column in place (rows of old files read it as NULL), and refuses a change of type with the --resnapshot hint', async () => {
    const store = freshStore();
    await apply(store, plan('snapshot', [await gz([u(1, T0, { Name: 'one' })])], T0));
    const wider: SchemaEnvelope = structuredClone(SCHEMA);
    wider.version = 2;
    wider.schema.properties!.value.properties!.Nick_Name = { type: 'string' };
    const table = targetTableOf('school', 'people', wider);
    const added = table.columns.filter((c) => c.name === 'Nick_Name');
    const state = { ...plan('changes', [], T1).state, schemaVersion: 2, schema: wider.schema };
    await apply(store, { ...plan('changes', [await gz([u(2, T1, { Name: 'two', Nick_Name: 'deux' })])], T1), table, addedColumns: added, state });
    const read = await lakeRows(store, 'school', 'people');
    assert.deepEqual([...read.rows.values()].map((r) => [r[0], r[1], r[read.columns.indexOf('Nick_Name')]]).sort(), [['1', 'one', null], ['2', 'two', 'deux']]);
    assert.deepEqual((await stateOf(store, 'school', 'people'))!.schemaChanges.map((c) => c.added), [['nick_name']]);

    const retyped: SchemaEnvelope = structuredClone(wider);
    retyped.version = 3;
    retyped.schema.properties!.value.properties!.score = { type: 'string' };
    const before = await store.getBytes(layoutOf('school', 'people').state);
    await assert.rejects(
      apply(store, { ...plan('changes', [await gz([u(3, T2, { Name: 'three' })])], T2), table: targetTableOf('school', 'people', retyped), state: { ...state, point: T2, schemaVersion: 3, schema: retyped.schema } }),
      (err: { kind: string; message: string; hint: string }) => {
        assert.equal(err.kind, 'snapshotRequired');
        assert.match(err.message, /column "score" changed type from double to text/);
        assert.match(err.hint, /--resnapshot/);
        return true;
      },
    );
    assert.deepEqual((await store.getBytes(layoutOf('school', 'people').state))!.body, before!.body, 'the state is as it was');
  });

  it('writes typed zstd Parquet: bigint INT64, integer INT32, double, boolean, timestamps as UTC instants in microseconds, dates, text and JSON as strings', async () => {
    const store = freshStore();
    const typed: SchemaEnvelope = structuredClone(SCHEMA);
    Object.assign(typed.schema.properties!.value.properties!, { born: { type: 'string', format: 'date' }, visits: { type: 'integer', format: 'int32' }, active: { type: 'boolean' } });
    const record = u(1, T0, { Name: 'one', score: 1.5, seen_at: '2026-11-01T07:30:00.123456Z', tags: ['a'], address: { city: 'Ghent' }, born: '2001-02-03', visits: 7, active: true });
    await apply(store, { ...plan('snapshot', [await gz([record])], T0), table: targetTableOf('school', 'people', typed), state: { ...plan('snapshot', [], T0).state, schema: typed.schema } });
    const [file] = await manifestFiles(store, 'school', 'people');
    const db = await duckdb.DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      const schema = await conn.runAndReadAll(`SELECT name, type, coalesce(logical_type, converted_type, '') FROM parquet_schema('${file}') WHERE name <> 'duckdb_schema'`);
      const types = Object.fromEntries(schema.getRowsJson().map(([name, type, logical]) => [String(name), `${type} ${logical}`.trim()]));
      assert.deepEqual(types, {
        id: 'INT64 INT_64',
        name: 'BYTE_ARRAY UTF8',
        score: 'DOUBLE',
        seen_at: 'INT64 TimestampType(isAdjustedToUTC=1, unit=TimeUnit(MILLIS=<null>, MICROS=MicroSeconds(), NANOS=<null>))',
        tags: 'BYTE_ARRAY UTF8',
        address_city: 'BYTE_ARRAY UTF8',
        born: 'INT32 DATE',
        visits: 'INT32 INT_32',
        active: 'BOOLEAN',
      });
      const codecs = await conn.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata('${file}')`);
      assert.deepEqual(codecs.getRowsJson(), [['ZSTD']]);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
    const [row] = (await lakeRows(store, 'school', 'people')).rows.values();
    assert.deepEqual(row, ['1', 'one', 1.5, Date.parse('2026-11-01T07:30:00.123Z'), ['a'], 'Ghent', '2001-02-03', 7, true]);
  });

  it('refuses changes for a table never synced (a snapshot is needed), and column names Parquet would take for one', async () => {
    const store = freshStore();
    await assert.rejects(apply(store, plan('changes', [await gz([u(1, T0, { Name: 'x' })])], T0)), { kind: 'snapshotRequired' });
    const clash: SchemaEnvelope = structuredClone(SCHEMA);
    clash.schema.properties!.value.properties!['na-me'] = { type: 'string' };
    clash.schema.properties!.value.properties!['NA_ME'] = { type: 'string' };
    await assert.rejects(apply(store, { ...plan('snapshot', [], T0), table: targetTableOf('school', 'people', clash) }), (err: Error) => {
      assert.match(err.message, /"na-me" and "NA_ME"/);
      return true;
    });
    assert.deepEqual(await store.list(''), [], 'nothing was written');
  });

  it('an aborted apply leaves the table as it was and nothing of the run behind', async () => {
    const store = freshStore();
    await apply(store, plan('snapshot', [await gz([u(1, T0, { Name: 'one' })])], T0));
    const state = await store.getBytes(layoutOf('school', 'people').state);
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(apply(store, plan('changes', [await gz([u(2, T1, { Name: 'two' })])], T1, { signal: controller.signal })), { kind: 'cancelled' });
    assert.deepEqual((await store.getBytes(layoutOf('school', 'people').state))!.body, state!.body);
    assert.deepEqual(await unaccounted(store, 'school', 'people'), []);
  });

  it('on a store that ignores write conditions the state is read back, and a state another run wrote meanwhile fails the run', async () => {
    const store = freshStore(false);
    await apply(store, plan('snapshot', [await gz([u(1, T0, { Name: 'one' })])], T0));
    const target = lakeTarget(store, dir);
    await target.open();
    try {
      // another writer replaces the state just after this run writes it
      store.faults.afterWrite = async (key) => {
        if (!key.endsWith('_dq/state.json')) return;
        store.faults.afterWrite = undefined;
        const other = JSON.parse((await fs.readFile(store.fileOf(key))).toString());
        await fs.writeFile(store.fileOf(key), JSON.stringify({ ...other, run: 'another-run' }));
      };
      await assert.rejects(target.apply(plan('changes', [await gz([u(2, T1, { Name: 'two' })])], T1)), (err: Error) => {
        assert.match(err.message, /Another sync wrote s3:\/\/test-bucket\/lake\/school\/people\/_dq\/state.json while this one ran/);
        return true;
      });
    } finally {
      await target.close();
    }
  });

  it('records a source in a state that has none, or has the one it replaces; any other stays', async () => {
    const store = freshStore();
    await apply(store, plan('snapshot', [await gz([u(1, T0, { Name: 'one' })])], T0));
    const source = async (): Promise<string | undefined> => (await stateOf(store, 'school', 'people'))!.source;
    await withTarget(lakeTarget(store, dir), (t) => t.adoptSource('school', 'people', 'https://a.example/dap?client=1'));
    assert.equal(await source(), 'https://a.example/dap?client=1');
    await withTarget(lakeTarget(store, dir), (t) => t.adoptSource('school', 'people', 'https://b.example/dap?client=2'));
    assert.equal(await source(), 'https://a.example/dap?client=1', 'another source stays');
    await withTarget(lakeTarget(store, dir), (t) => t.adoptSource('school', 'people', 'https://a.example/dap?client=3', 'https://a.example/dap?client=1'));
    assert.equal(await source(), 'https://a.example/dap?client=3');
  });

  it('opened read-only, it reads the states and writes nothing: a store never synced to reads as no tables', async () => {
    const store = freshStore();
    const reader = lakeTarget(store, dir, { readOnly: true });
    assert.deepEqual(await withTarget(reader, (t) => t.listStates()), []);
    await assert.rejects(withTarget(lakeTarget(store, dir, { readOnly: true }), async (t) => void (await t.lockTable('school', 'people'))), { kind: 'usage' });
    assert.deepEqual(await store.list(''), []);
    await apply(store, plan('snapshot', [await gz([u(1, T0, { Name: 'one' })])], T0));
    const states = await withTarget(lakeTarget(store, dir, { readOnly: true }), (t) => t.listStates());
    assert.deepEqual(states.map((s) => [s.namespace, s.table, s.point, s.rows]), [['school', 'people', T0, 1]]);
    assert.equal(await withTarget(lakeTarget(store, dir, { readOnly: true }), async (t) => t.tableLocation('school', 'people')), 's3://test-bucket/lake/school/people/');
    // a data file gone: the table is no longer there (the runner takes a snapshot)
    const [file] = (await stateOf(store, 'school', 'people'))!.files;
    assert.equal(await withTarget(lakeTarget(store, dir, { readOnly: true }), (t) => t.hasTable('school', 'people')), true);
    await store.delete([file.key]);
    assert.equal(await withTarget(lakeTarget(store, dir, { readOnly: true }), (t) => t.hasTable('school', 'people')), false);
  });
});
