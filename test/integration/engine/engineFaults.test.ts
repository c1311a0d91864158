import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import type { EngineClient } from '../../../src/engine/engineClient';
import type { OpenedResult } from '../../../src/engine/engineProtocol';
import { rejection } from './engineRejection';
import { SampleResults, type DownloadedResult } from './sampleResults';

/** Runs for hours unless interrupted. */
const ENDLESS = 'SELECT count(*) FROM range(1000000000000) a(i) WHERE i % 7 = 3';

describe('engine: bad files, bad SQL, cancel and crashes', function () {
  this.timeout(60_000);
  let results: SampleResults;
  let engine: EngineClient;
  let users: DownloadedResult;
  let healthy: OpenedResult;

  before(async () => {
    results = await SampleResults.start();
    engine = results.engine();
    users = await results.download('canvas', 'users', 'jsonl');
    healthy = await engine.open(users);
  });

  after(async () => {
    await engine.dispose();
    await results.close();
  });

  async function stillServes(): Promise<void> {
    assert.equal((await engine.page(healthy.handle, {}, 0, 5)).rows.length, 5);
  }

  /** A gzip JSONL file of 40 copies of the users' records, cut off at 80%: damage well past the first rows. */
  async function cutLate(name: string): Promise<{ cut: string; usersRows: number }> {
    const lines = gunzipSync(await fs.readFile(users.paths[0])).toString('utf8').trim().split('\n');
    const many = Array.from({ length: 40 }, () => lines).flat();
    const packed = gzipSync(`${many.join('\n')}\n`);
    return { cut: await file(name, packed.subarray(0, Math.floor(packed.length * 0.8))), usersRows: lines.length };
  }

  async function file(name: string, bytes: Buffer): Promise<string> {
    const target = path.join(results.dir, name);
    await fs.writeFile(target, bytes);
    return target;
  }

  it('reports a truncated gzip result as damaged, and keeps serving other results', async () => {
    const whole = await fs.readFile(users.paths[0]);
    const cut = await file('cut.jsonl.gz', whole.subarray(0, Math.floor(whole.length / 2)));
    // opening reads the first rows, and here the damage lies among them
    const message = await rejection(engine.open({ paths: [cut], schema: users.schema }), 'corrupt');
    assert.match(message, /cut\.jsonl\.gz/);
    assert.match(message, /[Dd]ownload the job again/);
    await stillServes();
  });

  it('reports damage beyond the first rows when the rows there are read, and still serves the rows before it', async () => {
    const { cut, usersRows } = await cutLate('cut-late.jsonl.gz');
    const opened = await engine.open({ paths: [users.paths[0], cut], schema: users.schema });
    const message = await rejection(engine.count(opened.handle, {}), 'corrupt');
    assert.match(message, /cut-late\.jsonl\.gz/);
    const first = await engine.page(opened.handle, {}, 0, usersRows + 5);
    assert.equal(first.rows.length, usersRows + 5);
    await rejection(engine.page(opened.handle, { sort: [{ column: 'key.id', descending: false }] }, 0, 5), 'corrupt');
    await stillServes();
  });

  it('reports a gzip file cut short where its lines are whole as damaged: when opened, counted, or copied', async () => {
    const lines = gunzipSync(await fs.readFile(users.paths[0])).toString('utf8').trim().split('\n');
    const many = Array.from({ length: 40 }, () => lines).flat();
    const kept = Math.floor(many.length * 0.6);
    // the bytes of a gzip stream of all the lines up to a full flush after line `kept`: the
    // file a download that stopped there leaves, whose every line is whole
    const cutShort = (name: string, upTo: number): Promise<string> =>
      file(name, gzipSync(`${many.slice(0, upTo).join('\n')}\n`, { finishFlush: constants.Z_FULL_FLUSH }));
    const damage = /cut-flush\.jsonl\.gz is damaged \(it ends early\): download the job again/;

    const cut = await cutShort('cut-flush.jsonl.gz', kept);
    const opened = await engine.open({ paths: [cut], schema: users.schema });
    assert.match(await rejection(engine.count(opened.handle, {}), 'corrupt'), damage, `not ${kept} rows without a word`);
    await engine.closeHandle(opened.handle);
    assert.match(await rejection(engine.prepare({ paths: [cut], schema: users.schema }), 'corrupt'), damage, 'a copy made ahead of the preview stops there');

    const small = await cutShort('cut-flush-small.jsonl.gz', lines.length);
    const message = await rejection(engine.open({ paths: [small], schema: users.schema }), 'corrupt');
    assert.match(message, /cut-flush-small\.jsonl\.gz is damaged \(it ends early\)/, 'a file the first rows read to its cut');
    await stillServes();
  });

  it('fails the first console statement over a view whose gzip file is cut short where its lines are whole, naming the file, not a shorter count', async () => {
    const lines = gunzipSync(await fs.readFile(users.paths[0])).toString('utf8').trim().split('\n');
    const many = Array.from({ length: 40 }, () => lines).flat();
    const cut = await file('view-cut.jsonl.gz', gzipSync(`${many.slice(0, Math.floor(many.length * 0.6)).join('\n')}\n`, { finishFlush: constants.Z_FULL_FLUSH }));
    await engine.registerView('damaged.users', { paths: [cut], schema: users.schema });
    const damage = /view-cut\.jsonl\.gz is damaged \(it ends early\)/;
    assert.match(await rejection(engine.sqlKept('SELECT count(*) AS n FROM damaged.users', 10), 'corrupt'), damage, 'the first statement, asked at once');
    assert.match(await rejection(engine.sql('SELECT count(*) AS n FROM damaged.users', 0, 10), 'corrupt'), damage, 'and every one after it');
    assert.deepEqual((await engine.sqlKept('SELECT 41 + 1 AS answer', 10)).rows, [[42]], 'a statement that does not name it runs');

    // downloaded again, whole: the view reads it again; cut short once more: it fails again
    await fs.writeFile(cut, gzipSync(`${many.join('\n')}\n`));
    const later = new Date(Date.now() + 10_000);
    await fs.utimes(cut, later, later);
    assert.deepEqual((await engine.sqlKept('SELECT count(*) AS n FROM damaged.users', 10)).rows, [[String(many.length)]], 'the whole file, read again');
    await fs.writeFile(cut, gzipSync(`${many.slice(0, 100).join('\n')}\n`, { finishFlush: constants.Z_FULL_FLUSH }));
    assert.match(await rejection(engine.sqlKept('SELECT count(*) AS n FROM damaged.users', 10), 'corrupt'), damage, 'cut short again');
    await stillServes();
  });

  it('names the damage, not a malformed row, when a console statement reads a view whose gzip file is cut mid-line', async () => {
    const lines = gunzipSync(await fs.readFile(users.paths[0])).toString('utf8').trim().split('\n');
    const packed = gzipSync(`${Array.from({ length: 40 }, () => lines).flat().join('\n')}\n`);
    const cut = await file('view-mid-line.jsonl.gz', packed.subarray(0, Math.floor(packed.length * 0.7)));
    await engine.registerView('midline.users', { paths: [cut], schema: users.schema });
    const message = await rejection(engine.sqlKept('SELECT count(*) AS n FROM midline.users', 10), 'corrupt');
    assert.match(message, /view-mid-line\.jsonl\.gz is damaged \(it ends early\)/);
  });

  it('reports a gzip CSV or TSV result cut short as damaged, naming the file, whether cut mid-line or where its lines are whole', async () => {
    for (const format of ['csv', 'tsv'] as const) {
      const downloaded = await results.download('canvas', 'users', format);
      const eol = format === 'csv' ? '\r\n' : '\n';
      const [header, ...body] = gunzipSync(await fs.readFile(downloaded.paths[0])).toString('utf8').trim().split(eol);
      const many = [header, ...Array.from({ length: 40 }, () => body).flat()];
      const packed = gzipSync(`${many.join(eol)}${eol}`);
      const midLine = await file(`cut-mid.${format}.gz`, packed.subarray(0, Math.floor(packed.length * 0.8)));
      const flushed = await file(`cut-whole-lines.${format}.gz`, gzipSync(`${many.slice(0, Math.floor(many.length * 0.6)).join(eol)}${eol}`, { finishFlush: constants.Z_FULL_FLUSH }));
      const damage = (name: string): RegExp => new RegExp(`${name.replace(/\./g, '\\.')} is damaged \\(it ends early\\): download the job again`);

      const mid = await engine.open({ paths: [midLine], schema: downloaded.schema });
      assert.match(await rejection(engine.count(mid.handle, {}), 'corrupt'), damage(`cut-mid.${format}.gz`), `${format}: counted`);
      assert.match(await rejection(engine.page(mid.handle, { sort: [{ column: 'key.id', descending: true }] }, 0, 5), 'corrupt'), damage(`cut-mid.${format}.gz`), `${format}: sorted`);
      await engine.closeHandle(mid.handle);

      const whole = await engine.open({ paths: [flushed], schema: downloaded.schema });
      assert.match(await rejection(engine.count(whole.handle, {}), 'corrupt'), damage(`cut-whole-lines.${format}.gz`), `${format}: not ${many.length * 0.6} rows without a word`);
      await engine.closeHandle(whole.handle);
      assert.match(await rejection(engine.prepare({ paths: [flushed], schema: downloaded.schema }), 'corrupt'), damage(`cut-whole-lines.${format}.gz`), `${format}: a copy made ahead stops there`);
    }
    await stillServes();
  });

  it('reports a gzip CSV without a schema cut where its lines are whole as damaged when copied, and keeps no short copy', async () => {
    const downloaded = await results.download('canvas', 'users', 'csv');
    const [header, ...body] = gunzipSync(await fs.readFile(downloaded.paths[0])).toString('utf8').trim().split('\r\n');
    const many = [header, ...Array.from({ length: 40 }, () => body).flat()];
    const cut = await file('cut-noschema.csv.gz', gzipSync(`${many.slice(0, Math.floor(many.length * 0.6)).join('\r\n')}\r\n`, { finishFlush: constants.Z_FULL_FLUSH }));
    const damage = /cut-noschema\.csv\.gz is damaged \(it ends early\)/;
    assert.match(await rejection(engine.prepare({ paths: [cut] }), 'corrupt'), damage, 'the copy made ahead stops there');
    const opened = await engine.open({ paths: [cut] });
    assert.match(await rejection(engine.count(opened.handle, {}), 'corrupt'), damage, 'and no short copy was kept to count from');
    await engine.closeHandle(opened.handle);
    await stillServes();
  });

  it('counts a file with a malformed record deep inside by its lines, and reports the record when the rows there are read', async () => {
    const lines = gunzipSync(await fs.readFile(users.paths[0])).toString('utf8').trim().split('\n');
    const many = Array.from({ length: 40 }, () => lines).flat();
    const bad = Math.floor(many.length * 0.75);
    many[bad] = many[bad].slice(0, -10);
    const damaged = await file('bad-record.jsonl.gz', gzipSync(`${many.join('\n')}\n`));
    const opened = await engine.open({ paths: [users.paths[0], damaged], schema: users.schema });
    assert.equal(await engine.count(opened.handle, {}), lines.length + many.length);
    const before = await engine.page(opened.handle, {}, lines.length + bad - 10, 10);
    assert.equal(before.rows.length, 10, 'the rows before the malformed one are served');
    const message = await rejection(engine.page(opened.handle, {}, lines.length + bad - 5, 10), 'corrupt');
    assert.match(message, /bad-record\.jsonl\.gz/);
    await stillServes();
  });

  it('still reports damage to the files, not the WHERE, when a WHERE reads them', async () => {
    const { cut } = await cutLate('cut-where.jsonl.gz');
    const opened = await engine.open({ paths: [users.paths[0], cut], schema: users.schema });
    const message = await rejection(engine.count(opened.handle, { where: '"key.id" > 0' }), 'corrupt');
    assert.match(message, /cut-where\.jsonl\.gz/);
    assert.match(message, /[Dd]ownload the job again/);
    await engine.closeHandle(opened.handle);
  });

  it('reports a corrupt Parquet file as damaged when it is opened', async () => {
    const parquet = await fs.readFile((await results.download('canvas', 'users', 'parquet')).paths[0]);
    const broken = Buffer.from(parquet);
    broken.fill(0x55, 4, broken.length - 8);
    await rejection(engine.open({ paths: [await file('broken.parquet', broken)], schema: users.schema }), 'corrupt');
    await stillServes();
  });

  it('says a file that is not a result is not one, naming it', async () => {
    const notResult = await file('notes.txt', Buffer.from('meeting notes\nnothing tabular here\n'));
    const message = await rejection(engine.open({ paths: [notResult] }), 'corrupt');
    assert.match(message, /notes\.txt is not a result file/);
    await rejection(engine.open({ paths: [path.join(results.dir, 'gone.jsonl.gz')] }), 'io');
    await stillServes();
  });

  it('reports a file whose values do not fit the schema as a schema problem', async () => {
    const lines = '{"meta":{"action":"U","ts":"2026-11-20T08:00:00Z"},"key":{"id":"not a number"},"value":{}}\n';
    const odd = await file('odd.jsonl', Buffer.from(lines));
    const opened = engine.open({ paths: [odd], schema: users.schema });
    await rejection(opened, 'schema');
  });

  it('says there is no statement to run when the console runs only comments or semicolons', async () => {
    for (const text of ['-- Data Query SQL console\n-- a second comment', ';', '/* a note */ ;\n']) {
      assert.equal(await rejection(engine.sql(text, 0, 5), 'syntax'), 'There is no SQL statement to run. Write one, then run it.', JSON.stringify(text));
    }
    await stillServes();
  });

  it('answers a syntax error or an unknown name in the console with the SQL error', async () => {
    assert.match(await rejection(engine.sql('SELEC 1', 0, 10), 'syntax'), /syntax error at or near "SELEC"/);
    assert.match(await rejection(engine.sql('SELECT * FROM no_such_table', 0, 10), 'syntax'), /no_such_table/);
    assert.deepEqual((await engine.sql('SELECT 42 AS answer', 0, 10)).rows, [[42]]);
  });

  it('answers a mistake in a preview\'s WHERE as the WHERE\'s to correct, pointing into it, not as damaged files', async () => {
    const timestamp = healthy.columns.find((c) => c.sqlType === 'TIMESTAMPTZ')!.name;
    const where = `"${timestamp}" > 'yesterday'`;
    for (const failed of [() => engine.page(healthy.handle, { where }, 0, 10), () => engine.count(healthy.handle, { where })]) {
      const message = await rejection(failed(), 'syntax');
      assert.match(message, /^Conversion Error: invalid timestamp field format: "yesterday".* Correct the WHERE condition and apply it again\./);
      assert.doesNotMatch(message, /download the job|schema|dq_result/i);
      const [, quoted, caret] = message.split('\n');
      assert.equal(quoted, `WHERE ${where}`, 'the WHERE as typed');
      assert.equal(caret.indexOf('^'), quoted.indexOf("'yesterday'"), 'the caret under the value DuckDB could not read');
    }
    const typo = await rejection(engine.page(healthy.handle, { where: '"value.nam" = \'Ann\'' }, 0, 10), 'syntax');
    assert.match(typo, /Referenced column "value\.nam" not found/);
    assert.match(typo, /^Candidate bindings: .*"value\.name"/m, 'DuckDB\'s suggestions are kept');
    const cast = await rejection(engine.page(healthy.handle, { where: 'CAST("value.name" AS INTEGER) > 3' }, 0, 10), 'syntax');
    assert.match(cast, /Could not convert string .* Correct the WHERE condition/);
    await stillServes();
  });

  it('refuses a WHERE that closes itself and goes on with statements of its own, running none of them', async () => {
    const where = '1=1); CREATE TABLE dq_injected AS SELECT 1 AS x; SELECT (1';
    for (const refused of [() => engine.page(healthy.handle, { where }, 0, 10), () => engine.count(healthy.handle, { where })]) {
      assert.match(await rejection(refused(), 'syntax'), /The WHERE condition holds more than one statement/);
    }
    const made = await engine.sql("SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'dq_injected'", 0, 10);
    assert.equal(Number(made.rows[0][0]), 0, 'nothing after the WHERE ran');
    const quoted = await engine.count(healthy.handle, { where: '"value.name" = \'a;b\'' });
    assert.equal(quoted, 0, 'a ; inside quotes is part of one condition');
    await stillServes();
  });

  it('answers the console\'s own mistakes with advice on the SQL, keeping DuckDB\'s pointers', async () => {
    const parse = await rejection(engine.sql('SELEC 1', 0, 10), 'syntax');
    assert.match(parse, /^Parser Error: syntax error at or near "SELEC"\. Correct the SQL and run it again\.\nLINE 1: SELEC 1\n {8}\^$/);
    assert.doesNotMatch(await rejection(engine.sql('SELECT (1', 0, 10), 'syntax'), /Failed to extract statements/);
    assert.match(await rejection(engine.sql("SELECT lenght('abc')", 0, 10), 'syntax'), /^Did you mean "length"\?$/m);
    const conversion = await rejection(engine.sql("SELECT 'yesterday'::TIMESTAMP", 0, 10), 'syntax');
    assert.match(conversion, /Correct the SQL and run it again/);
    assert.doesNotMatch(conversion, /download the job|schema/i);

    const database = path.join(results.dir, 'synced-faults.duckdb');
    const db = await DuckDBInstance.create(database);
    const conn = await db.connect();
    await conn.run('CREATE SCHEMA canvas; CREATE TABLE canvas.users (id BIGINT, name TEXT)');
    conn.closeSync();
    db.closeSync();
    const readOnly = await rejection(engine.sql("INSERT INTO canvas.users VALUES (1, 'Ann')", 0, 10, undefined, { path: database, alias: 'synced' }), 'syntax');
    assert.match(readOnly, /read-only/);
    assert.match(readOnly, /a statement can read its tables but not change them/);
    assert.doesNotMatch(readOnly, /download the job|complete result/i);
  });

  it('reports a query that outgrows the memory limit as such, the engine answers the next one, and a raised limit lets it run', async () => {
    const small = results.engine({ memoryLimitMb: 64 });
    try {
      const huge = "SELECT length(string_agg(i::VARCHAR || 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', ',')) AS n FROM range(20000000) t(i)";
      const message = await rejection(small.sql(huge, 0, 1), 'outOfMemory');
      assert.match(message, /out of memory|memory limit/i);
      assert.match(message, /dataQuery\.preview\.memoryLimitMb/, 'the message names the setting that raises the limit');
      assert.deepEqual((await small.sql('SELECT 1 AS one', 0, 1)).rows, [[1]]);
      const pid = small.processId;
      await small.configure({ memoryLimitMb: 4096 });
      assert.equal(small.processId, pid, 'the running engine takes the new limit');
      assert.ok(Number((await small.sql(huge, 0, 1)).rows[0][0]) > 20_000_000);
    } finally {
      await small.dispose();
    }
  });

  it('interrupts a running query when its signal aborts, then answers the next one', async () => {
    const abort = new AbortController();
    const running = engine.sql(ENDLESS, 0, 10, abort.signal);
    abort.abort();
    await rejection(running, 'cancelled');
    assert.deepEqual((await engine.sql('SELECT 1 + 1 AS two', 0, 10)).rows, [[2]]);
  });

  it('rejects what was pending when the engine process dies, and the next call starts a new one with the results reopened', async () => {
    const running = engine.sql(ENDLESS, 0, 10);
    const first = engine.processId;
    assert.ok(first);
    process.kill(first, 'SIGKILL');
    assert.match(await rejection(running, 'crashed'), /SIGKILL/);
    await stillServes();
    assert.notEqual(engine.processId, first);
  });

  it('without a native binding for the platform, says so and names the platform', async () => {
    const preload = await file(
      'no-binding.js',
      Buffer.from(`const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request.startsWith('@duckdb/node-bindings-')) throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' });
  return resolve.call(this, request, ...rest);
};
`),
    );
    const before = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = `--require ${JSON.stringify(preload)}`;
    const bare = results.engine();
    try {
      const message = await rejection(bare.open(users), 'binding');
      assert.match(message, new RegExp(`native library for ${process.platform}-${process.arch}`));
      assert.match(message, /Install the Data Query Explorer package built for this platform/);
    } finally {
      if (before === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = before;
      await bare.dispose();
    }
    await stillServes();
  });
});
