import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { EngineClient } from '../../../src/engine/engineClient';
import { isEngineError } from '../../../src/engine/engineErrors';
import type { OpenedResult, View } from '../../../src/engine/engineProtocol';
import { parseCsv } from '../../support/csvRows';
import { SampleResults, expectedRow, exportsBeingWritten, jsonlRecords, type JsonRecord } from './sampleResults';

describe('engine: paging, sorting, filtering, SQL and export over a whole result', function () {
  this.timeout(60_000);
  let results: SampleResults;
  let engine: EngineClient;
  let users: OpenedResult;
  let records: JsonRecord[];

  before(async () => {
    results = await SampleResults.start();
    engine = results.engine();
    const files = await results.download('canvas', 'users', 'jsonl');
    records = await jsonlRecords(files.paths);
    users = await engine.open(files);
  });

  after(async () => {
    await engine.dispose();
    await results.close();
  });

  const column = (name: string): number => users.columns.findIndex((c) => c.name === name);

  async function pagesOf(view: View, size: number): Promise<unknown[][]> {
    const rows: unknown[][] = [];
    for (let offset = 0; ; offset += size) {
      const page = await engine.page(users.handle, view, offset, size);
      assert.equal(page.offset, offset);
      rows.push(...page.rows);
      if (page.rows.length < size) return rows;
    }
  }

  it('pages through the records in file order, each row once', async () => {
    assert.deepEqual(await pagesOf({}, 37), records.map((r) => expectedRow(r, users.columns)));
  });

  it('sorts the whole result, nulls last, with the same order however it is paged', async () => {
    const view: View = { sort: [{ column: 'value.login_count', descending: true }] };
    const whole = (await engine.page(users.handle, view, 0, records.length)).rows;
    assert.deepEqual(await pagesOf(view, 13), whole);
    const counts = whole.map((row) => row[column('value.login_count')] as number | null);
    const present = counts.filter((c): c is number => c !== null);
    assert.deepEqual(present, [...present].sort((a, b) => b - a));
    assert.deepEqual(counts.slice(present.length), counts.slice(present.length).map(() => null));
    assert.deepEqual(new Set(whole.map((row) => row[0])), new Set(records.map((r) => String(r.key.id))));
  });

  it('filters per column and by the user\'s own WHERE, and counts what the filter keeps', async () => {
    const name = records[7].value?.name as string;
    const contains: View = { filters: [{ column: 'value.name', op: 'contains', value: name.slice(1, 6).toUpperCase() }] };
    const expectedNames = records.filter((r) => String(r.value?.name ?? '').toLowerCase().includes(name.slice(1, 6).toLowerCase()));
    assert.equal(await engine.count(users.handle, contains), expectedNames.length);
    const over = { filters: [{ column: 'value.login_count', op: '>' as const, value: '2500' }], where: `"value.public" OR "value.public" IS NULL` };
    const expected = records.filter((r) => ((r.value?.login_count as number) ?? -1) > 2500 && r.value?.public !== false);
    assert.equal(await engine.count(users.handle, over), expected.length);
    const page = await engine.page(users.handle, over, 0, records.length);
    assert.deepEqual(page.rows, expected.map((r) => expectedRow(r, users.columns)));
  });

  it('matches a date-time column\'s "contains" filter against the text the grid shows', async () => {
    const at = users.columns.find((c) => c.sqlType.startsWith('TIMESTAMP'));
    assert.ok(at, 'the users have a date-time column');
    const shown = (await engine.page(users.handle, {}, 0, records.length)).rows.map((row) => row[users.columns.indexOf(at)]).find((v): v is string => typeof v === 'string');
    assert.ok(shown && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(shown), `shown in ISO 8601: ${shown}`);
    for (const part of [shown, shown.slice(0, 13)]) {
      const view: View = { filters: [{ column: at.name, op: 'contains', value: part }] };
      const matching = (await engine.page(users.handle, view, 0, records.length)).rows;
      assert.ok(matching.length > 0, `"${part}" finds the row that shows it`);
      assert.ok(matching.every((row) => String(row[users.columns.indexOf(at)]).includes(part)), `every row found shows "${part}"`);
    }
  });

  it('takes a filter value as a value, never as SQL', async () => {
    const injected: View = { filters: [{ column: 'value.name', op: '=', value: "x' OR '1'='1" }] };
    assert.equal(await engine.count(users.handle, injected), 0);
    const quoted = records[3].value?.name as string;
    assert.equal(await engine.count(users.handle, { filters: [{ column: 'value.name', op: '=', value: quoted }] }), records.filter((r) => r.value?.name === quoted).length);
  });

  it('refuses a filter value that is not of its column\'s type, saying which column', async () => {
    const err = await engine.count(users.handle, { filters: [{ column: 'key.id', op: '=', value: '1 OR 1=1' }] }).catch((e: unknown) => e);
    assert.ok(isEngineError(err));
    assert.equal(err.kind, 'syntax');
    assert.match(err.message, /key\.id/);
  });

  it('runs console SQL over registered views and pages its answer', async () => {
    await engine.registerView('canvas.users', await results.download('canvas', 'users', 'parquet'));
    const views = await engine.listViews();
    assert.deepEqual(views.map((v) => v.name), ['canvas.users']);
    assert.deepEqual(views[0].columns.map((c) => c.name), users.columns.map((c) => c.name));
    const page = await engine.sql('CREATE TEMP TABLE ids AS SELECT "key.id" AS id FROM canvas.users;\nSELECT id FROM ids ORDER BY id;', 5, 3);
    assert.equal(page.statementKind, 'SELECT');
    const ids = records.map((r) => r.key.id as number).sort((a, b) => a - b);
    assert.deepEqual(page.rows, ids.slice(5, 8).map((id) => [String(id)]));
    assert.deepEqual(page.columns, [{ name: 'id', type: 'int64', sqlType: 'BIGINT' }]);
  });

  it('exports the filtered, sorted result to CSV and Parquet with progress, under the name asked for only when complete', async () => {
    const view: View = { filters: [{ column: 'value.login_count', op: '<', value: '1000' }], sort: [{ column: 'key.id', descending: true }] };
    const expected = (await engine.page(users.handle, view, 0, records.length)).rows;
    const csvPath = path.join(results.dir, 'export.csv');
    const progress: number[] = [];
    const csv = await engine.export({ handle: users.handle, view }, { path: csvPath, format: 'csv' }, (rows) => progress.push(rows));
    assert.deepEqual(csv, { rows: expected.length, path: csvPath });
    assert.equal(progress.at(-1), expected.length);
    const lines = (await fs.readFile(csvPath, 'utf8')).trim().split('\n');
    assert.equal(lines[0], users.columns.map((c) => c.name).join(','));
    assert.deepEqual(lines.slice(1).map((l) => l.split(',')[0]), expected.map((row) => row[0]));

    const parquetPath = path.join(results.dir, 'export.parquet');
    await engine.export({ handle: users.handle, view }, { path: parquetPath, format: 'parquet' });
    const reopened = await engine.open({ paths: [parquetPath] });
    assert.deepEqual((await engine.page(reopened.handle, {}, 0, records.length)).rows, expected);
    assert.deepEqual((await fs.readdir(results.dir)).filter((f) => f.endsWith('.partial')), []);
  });

  it('writes times in an exported CSV as the service writes them in its own CSV results', async () => {
    const target = path.join(results.dir, 'times.csv');
    await engine.export({ handle: users.handle, view: { sort: [{ column: 'key.id', descending: false }] } }, { path: target, format: 'csv' });
    const [header, ...exported] = parseCsv(await fs.readFile(target, 'utf8'));
    const serviceFiles = await results.download('canvas', 'users', 'csv');
    const serviceText = (await Promise.all(serviceFiles.paths.map((p) => fs.readFile(p)))).map((b) => gunzipSync(b).toString('utf8'));
    const [serviceHeader] = parseCsv(serviceText[0]);
    const serviceRows = new Map(serviceText.flatMap((t) => parseCsv(t).slice(1)).map((row) => [row[serviceHeader.indexOf('key.id')], row]));
    const times = users.columns.filter((c) => c.type === 'date-time').map((c) => c.name);
    assert.ok(times.length > 0 && exported.length === records.length, 'the users table has times');
    for (const row of exported) {
      const service = serviceRows.get(row[header.indexOf('key.id')]);
      for (const name of times) assert.equal(row[header.indexOf(name)], service?.[serviceHeader.indexOf(name)], `${name} of ${row[0]}`);
    }
    assert.match(exported[0][header.indexOf(times[0])], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it('leaves neither the file asked for nor a partial one when an export is cancelled, and answers the next query', async () => {
    const target = path.join(results.dir, 'cancelled.csv');
    const abort = new AbortController();
    // rows enough for minutes of writing: the cancel comes while the file grows
    const exporting = engine.export({ sql: "SELECT x, repeat('y', 200) AS filler FROM range(10000000000) t(x)" }, { path: target, format: 'csv' }, () => undefined, abort.signal);
    const deadline = Date.now() + 30_000;
    // DuckDB writes it in the engine's work folder, and moves it under its name once complete
    while (!(await exportsBeingWritten(path.join(results.dir, 'engine'))).some((file) => file.size > 0)) {
      assert.ok(Date.now() < deadline, 'the export started writing');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    abort.abort();
    const err = await exporting.then(() => assert.fail('the export was cancelled'), (e: unknown) => e);
    assert.ok(isEngineError(err) && err.kind === 'cancelled', String(err));
    assert.deepEqual((await engine.sql('SELECT 1 + 1 AS two', 0, 1)).rows, [[2]]);
    const left = (await fs.readdir(results.dir)).filter((f) => f.startsWith('cancelled.csv'));
    assert.deepEqual(left, [], 'no file of the cancelled export is left');
    assert.deepEqual(await exportsBeingWritten(path.join(results.dir, 'engine')), [], "nor in the engine's work folder");
  });

  it('says which file it could not write when the export\'s folder is missing, naming the file chosen', async () => {
    const target = path.join(results.dir, 'no such folder', 'users.csv');
    const err = await engine.export({ handle: users.handle, view: {} }, { path: target, format: 'csv' }).then(() => assert.fail('the folder is missing'), (e: unknown) => e);
    assert.ok(isEngineError(err) && err.kind === 'io', String(err));
    assert.equal(err.message, `Cannot write ${target} (No such file or directory). Choose a folder that exists and that you may write to.`);
  });
});
