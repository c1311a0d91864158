// dq sync into an S3-compatible store on loopback (s3rver, test/support/s3Server.ts) as a person
// or cron runs it: a snapshot, then an incremental, each equal row for row to the same table
// synced into a DuckDB file up to the same point; the manifest lists only objects that are
// there; dq sync-status reads the lake without writing and prints the DDL, whose DuckDB view
// reads the table's rows; a run stopped between its state and its manifest (the store refuses
// the manifest) leaves readers on the previous files, which are all there, and the next run
// ends equal with nothing left over; no credential is ever printed.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadDuckDb } from '../../../src/engine/duckdbModule';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import type { LakeState } from '../../../src/sync/lakeState';
import type { TableSyncReport } from '../../../src/sync/syncReport';
import { runDq, type CliRun } from '../../support/cliHarness';
import { S3FaultProxy, S3TestServer } from '../../support/s3Server';

const NAMESPACE = 'canvas';
const TABLE = 'users';
const LAKE = 's3://dq-lake/warehouse';

describe('dq sync --to s3://', function () {
  this.timeout(120_000);
  let emu: RunningEmulator;
  let s3: S3TestServer;
  let tmp: string;
  let env: NodeJS.ProcessEnv;
  const runs: CliRun[] = [];

  async function dq(argv: string[]): Promise<CliRun> {
    const run = await runDq(argv, { env, cwd: tmp });
    runs.push(run);
    return run;
  }

  /** An object of the bucket as s3rver keeps it (undefined when there is none). */
  const objectFile = (url: string): string | undefined => s3.objectFile(url.replace(/^s3:\/\/dq-lake\//, ''));

  async function stateOf(lake = LAKE): Promise<LakeState> {
    const file = objectFile(`${lake}/${NAMESPACE}/${TABLE}/_dq/state.json`);
    assert.ok(file, 'the table has a state');
    return JSON.parse(await fs.readFile(file, 'utf8')) as LakeState;
  }

  async function manifest(lake = LAKE): Promise<string[]> {
    const file = objectFile(`${lake}/${NAMESPACE}/${TABLE}/_symlink_format_manifest/manifest`);
    assert.ok(file, 'the table has a manifest');
    return (await fs.readFile(file, 'utf8')).split('\n').filter(Boolean);
  }

  /** The key values and row count of the lake table (its manifest's files) and of the DuckDB table, read by DuckDB. */
  async function compare(database: string, lakeUrl = LAKE): Promise<{ lake: string[]; duckdb: string[] }> {
    const state = await stateOf(lakeUrl);
    const keys = state.columns.filter((c) => c.key);
    assert.ok(keys.length > 0, 'key columns');
    const files = (await manifest(lakeUrl)).map((url) => {
      const file = objectFile(url);
      assert.ok(file, `the manifest lists ${url}, which is in the bucket`);
      return file;
    });
    const duckdb = loadDuckDb();
    const instance = await duckdb.DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      await conn.run(`ATTACH '${database.replace(/'/g, "''")}' AS synced (READ_ONLY)`);
      const fileList = files.map((f) => `'${f.replace(/'/g, "''")}'`).join(', ');
      const lakeKey = keys.map((k) => `CAST("${k.name.toLowerCase().replace(/[^a-z0-9_]/g, '_')}" AS VARCHAR)`).join(" || '|' || ");
      const dbKey = keys.map((k) => `CAST("${k.name}" AS VARCHAR)`).join(" || '|' || ");
      const lake = files.length === 0 ? [] : (await conn.runAndReadAll(`SELECT ${lakeKey} AS k FROM read_parquet([${fileList}], union_by_name = true) ORDER BY k`)).getRowsJson().map((r) => String(r[0]));
      const db = (await conn.runAndReadAll(`SELECT ${dbKey} AS k FROM synced."${NAMESPACE}"."${TABLE}" ORDER BY k`)).getRowsJson().map((r) => String(r[0]));
      return { lake, duckdb: db };
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  }

  before(async () => {
    emu = await startEmulator({ jobDelayMs: 100, limits: false });
    s3 = await S3TestServer.start('dq-lake');
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-sync-lake-'));
    env = {
      ...s3.env(),
      DQ_BASE_URL: emu.baseUrl,
      DQ_DATA_PREFIX: emu.dataPrefix,
      DQ_CLIENT_ID: emu.clientId,
      DQ_CLIENT_SECRET: emu.clientSecret,
      HOME: tmp,
      TMPDIR: tmp,
      AWS_ENDPOINT_URL_S3: s3.url,
      // s3rver does not check signatures: a secret of its own shows whether one is ever printed
      AWS_SECRET_ACCESS_KEY: 'lake-secret-7f3a9c',
    };
  });
  after(async () => {
    await emu.close();
    await s3.stop();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('syncs a snapshot and then the changes into the bucket, equal to the same table in DuckDB at each point', async () => {
    const until = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const first = await dq(['sync', NAMESPACE, TABLE, '--to', LAKE, '--until', until, '--json']);
    assert.equal(first.code, 0, first.stderr);
    const [snapshot] = (JSON.parse(first.stdout) as { tables: TableSyncReport[] }).tables;
    assert.equal(snapshot.outcome, 'synced');
    assert.equal(snapshot.kind, 'snapshot');
    const reference = await dq(['sync', NAMESPACE, TABLE, '--to', 'ref.duckdb', '--until', snapshot.point!, '--json']);
    assert.equal(reference.code, 0, reference.stderr);
    let both = await compare(path.join(tmp, 'ref.duckdb'));
    assert.equal(both.lake.length, snapshot.rows, 'the lake holds the rows the report gives');
    assert.deepEqual(both.lake, both.duckdb, 'the snapshot equals the DuckDB table at its point');

    const second = await dq(['sync', NAMESPACE, TABLE, '--to', LAKE, '--json']);
    assert.equal(second.code, 0, second.stderr);
    const [changes] = (JSON.parse(second.stdout) as { tables: TableSyncReport[] }).tables;
    assert.equal(changes.kind, 'changes');
    assert.equal((await stateOf()).point, changes.point, 'the state holds the point reached');
    const again = await dq(['sync', NAMESPACE, TABLE, '--to', 'ref.duckdb', '--until', changes.point!, '--json']);
    assert.equal(again.code, 0, again.stderr);
    both = await compare(path.join(tmp, 'ref.duckdb'));
    assert.deepEqual(both.lake, both.duckdb, 'after the changes, too');
    assert.equal(both.lake.length, changes.rows);
  });

  it('dq sync-status reads the lake without writing, and --ddl duckdb prints a view over the manifest\'s files', async () => {
    const before = (await fs.readdir(path.join(s3.folder, 'dq-lake'), { recursive: true })).sort();
    const status = await dq(['sync-status', '--to', LAKE, '--json']);
    assert.equal(status.code, 0, status.stderr);
    const listed = JSON.parse(status.stdout) as { tables: { namespace: string; table: string; point: string }[] };
    assert.deepEqual(listed.tables.map((t) => `${t.namespace}.${t.table}`), [`${NAMESPACE}.${TABLE}`]);
    const ddl = await dq(['sync-status', '--to', LAKE, '--ddl', 'duckdb', NAMESPACE, TABLE]);
    assert.equal(ddl.code, 0, ddl.stderr);
    for (const url of await manifest()) assert.ok(ddl.stdout.includes(url), `the view reads ${url}`);
    assert.match(ddl.stdout, /CREATE OR REPLACE VIEW "canvas"\."users"/);
    const athena = await dq(['sync-status', '--to', LAKE, '--ddl', 'athena', NAMESPACE, TABLE]);
    assert.equal(athena.code, 0, athena.stderr);
    assert.ok(athena.stdout.includes(`LOCATION '${LAKE}/${NAMESPACE}/${TABLE}/_symlink_format_manifest/'`), athena.stdout);
    assert.deepEqual((await fs.readdir(path.join(s3.folder, 'dq-lake'), { recursive: true })).sort(), before, 'nothing written');
  });

  it('a run stopped between its state and its manifest: readers keep the previous files, all there; the next run writes the manifest and ends equal, nothing left over', async () => {
    const lake = `${LAKE}-faults`;
    const proxy = await S3FaultProxy.start(s3.url);
    try {
      const until = new Date(Date.now() - 3 * 86_400_000).toISOString();
      const first = await dq(['sync', NAMESPACE, TABLE, '--to', lake, '--s3-endpoint', proxy.url, '--until', until]);
      assert.equal(first.code, 0, first.stderr);
      const before = await manifest(lake);
      proxy.faults.refuseWritesTo = /_symlink_format_manifest\/manifest$/;
      const stopped = await dq(['sync', NAMESPACE, TABLE, '--to', lake, '--s3-endpoint', proxy.url]);
      assert.notEqual(stopped.code, 0, 'the run fails');
      assert.match(stopped.stdout, /the state was written but its manifest was not .*Access was denied/, `saying what it could not write: ${stopped.stdout}`);
      assert.deepEqual(await manifest(lake), before, 'readers keep the previous files');
      for (const url of before) assert.ok(objectFile(url), `${url}, which the manifest lists, is there`);
      proxy.faults.refuseWritesTo = undefined;
      const again = await dq(['sync', NAMESPACE, TABLE, '--to', lake, '--s3-endpoint', proxy.url, '--json']);
      assert.equal(again.code, 0, again.stderr);
      const state = await stateOf(lake);
      assert.deepEqual(await manifest(lake), state.files.map((f) => `s3://dq-lake/${f.key}`), 'the manifest is the state\'s files');
      const reference = await dq(['sync', NAMESPACE, TABLE, '--to', 'faults-ref.duckdb', '--until', state.point, '--json']);
      assert.equal(reference.code, 0, reference.stderr);
      const both = await compare(path.join(tmp, 'faults-ref.duckdb'), lake);
      assert.deepEqual(both.lake, both.duckdb, 'equal to the table at the state\'s point');
      const known = new Set([...state.files.map((f) => f.key), ...state.retired.map((f) => f.key)]);
      const folder = path.join(s3.folder, 'dq-lake', 'warehouse-faults', NAMESPACE, TABLE, 'data');
      const objects = (await fs.readdir(folder)).filter((f) => f.endsWith('._S3rver_object')).map((f) => `warehouse-faults/${NAMESPACE}/${TABLE}/data/${f.replace(/\._S3rver_object$/, '')}`);
      assert.ok(objects.length > 0);
      for (const key of objects) assert.ok(known.has(key), `${key} is the table's or retired`);
    } finally {
      await proxy.stop();
    }
  });

  it('a bucket that does not exist is one clear line, and no run prints a credential', async () => {
    const missing = await dq(['sync', NAMESPACE, TABLE, '--to', 's3://no-such-bucket/x']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /no-such-bucket/);
    for (const run of runs) {
      for (const text of [run.stdout, run.stderr]) {
        assert.ok(!text.includes('lake-secret-7f3a9c'), 'no secret key');
        assert.ok(!text.includes(emu.clientSecret), 'no client secret');
        assert.ok(!/X-Amz-Signature|Signature=/i.test(text), 'no signature');
      }
    }
  });
});
