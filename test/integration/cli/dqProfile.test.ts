// dq profile over downloaded result files: the profile as text and as JSON, checked against
// bare DuckDB over the same files; its options; a damaged file and wrong arguments.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { EXIT } from '../../../src/cli/exitCodes';
import type { ResultProfile } from '../../../src/engine/engineProtocol';
import { runDq } from '../../support/cliHarness';
import { SampleResults, type DownloadedResult } from '../engine/sampleResults';

async function duckdbRow(sql: string): Promise<unknown[]> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    return (await conn.runAndReadAll(sql)).getRowsJson()[0];
  } finally {
    conn.closeSync();
  }
}

describe('dq profile', function () {
  this.timeout(120_000);
  let results: SampleResults;
  let parquet: DownloadedResult;
  let folder: string;

  before(async () => {
    results = await SampleResults.start();
    parquet = await results.download('canvas', 'courses', 'parquet');
    folder = path.dirname(parquet.paths[0]);
    // what else a folder may hold is not read as a result file
    await fs.writeFile(path.join(folder, 'notes.txt'), 'downloaded for the report\n');
  });

  after(async () => {
    await results.close();
  });

  const files = (): string => `read_parquet([${parquet.paths.map((p) => `'${p}'`).join(', ')}])`;

  it('prints the profile of a folder of result files as JSON, as DuckDB counts the same files', async () => {
    const run = await runDq(['profile', folder, '--json']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const profile = JSON.parse(run.stdout) as ResultProfile;
    const [rows, ids, minId, maxId, distinctIds, names] = await duckdbRow(
      `SELECT count(*), count("key.id"), min("key.id"), max("key.id"), count(DISTINCT "key.id"), count("value.name") FROM ${files()}`,
    );
    assert.equal(profile.rows, Number(rows));
    const id = profile.columns.find((c) => c.name === 'key.id')!;
    assert.deepEqual([id.count, id.min, id.max, id.distinct], [Number(ids), Number(minId), Number(maxId), Number(distinctIds)]);
    assert.equal(id.histogram!.reduce((s, b) => s + b.count, 0), Number(ids));
    assert.equal(profile.columns.find((c) => c.name === 'value.name')!.count, Number(names));
  });

  it('profiles the columns named and the rows --where keeps', async () => {
    const run = await runDq(['profile', folder, '--columns', 'key.id, value.workflow_state', '--where', '"key.id" % 2 = 0', '--json']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const profile = JSON.parse(run.stdout) as ResultProfile;
    assert.deepEqual(profile.columns.map((c) => c.name), ['key.id', 'value.workflow_state']);
    const [rows, top] = await duckdbRow(`SELECT count(*), max(n) FROM (SELECT "value.workflow_state" AS s, count(*) AS n FROM ${files()} WHERE "key.id" % 2 = 0 AND s IS NOT NULL GROUP BY s)`);
    const [kept] = await duckdbRow(`SELECT count(*) FROM ${files()} WHERE "key.id" % 2 = 0`);
    assert.equal(profile.rows, Number(kept));
    assert.ok(Number(rows) > 0);
    assert.equal(profile.columns[1].top![0].count, Number(top));
  });

  it('prints a readable block per column', async () => {
    const run = await runDq(['profile', parquet.paths[0], '--columns', 'key.id,value.workflow_state']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const [rows] = await duckdbRow(`SELECT count(*) FROM read_parquet('${parquet.paths[0]}')`);
    assert.match(run.stdout, new RegExp(`^${Number(rows).toLocaleString('en-US')} rows, 2 columns\n`));
    assert.match(run.stdout, /\nkey\.id \(int64\)\n {2}[\d,]+ values, 0 NULL, [\d,]+ distinct\n {2}min \d+, max \d+\n {2}mean [\d.]+, quartiles/);
    assert.match(run.stdout, /\n {2}histogram \d+ \|[▁▂▃▄▅▆▇█ ]+\| \d+\n/);
    assert.match(run.stdout, /\nvalue\.workflow_state \(string\)\n[^]*most common:\n {4}\w+ +[\d,]+\n/);
  });

  it('fails naming a damaged gzip file, with the exit code of local files', async () => {
    const users = await results.download('canvas', 'users', 'jsonl');
    const lines = gunzipSync(await fs.readFile(users.paths[0])).toString('utf8').trim().split('\n');
    const packed = gzipSync(`${Array.from({ length: 40 }, () => lines).flat().join('\n')}\n`);
    const damaged = path.join(results.dir, 'damaged');
    await fs.mkdir(damaged);
    await fs.writeFile(path.join(damaged, 'part-00000.jsonl.gz'), packed.subarray(0, Math.floor(packed.length * 0.8)));
    const run = await runDq(['profile', damaged]);
    assert.equal(run.code, EXIT.io, run.stderr);
    // without the table's schema the file is read as JSON from its start: the first rows already fail
    assert.match(run.stderr, /^dq: io: .*damaged\/part-00000\.jsonl\.gz.*Download the job again/);
    assert.equal(run.stdout, '');
  });

  it('refuses a column the files do not have, a missing folder, and no folder at all', async () => {
    const unknown = await runDq(['profile', folder, '--columns', 'nope']);
    assert.equal(unknown.code, EXIT.usage, unknown.stderr);
    assert.match(unknown.stderr, /^dq: usage: The result has no column "nope"/);
    const where = await runDq(['profile', folder, '--where', '"key.id" >']);
    assert.equal(where.code, EXIT.usage, where.stderr);
    assert.match(where.stderr, /^dq: usage: .*WHERE/);
    const missing = await runDq(['profile', path.join(results.dir, 'not-there')]);
    assert.equal(missing.code, EXIT.io, missing.stderr);
    assert.match(missing.stderr, /not-there does not exist/);
    const none = await runDq(['profile']);
    assert.equal(none.code, EXIT.usage);
    const empty = path.join(results.dir, 'empty');
    await fs.mkdir(empty);
    const nothing = await runDq(['profile', empty]);
    assert.equal(nothing.code, EXIT.io);
    assert.match(nothing.stderr, /holds no result files/);
  });
});
