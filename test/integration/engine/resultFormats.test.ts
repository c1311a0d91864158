import * as assert from 'node:assert/strict';
import { FORMATS } from '../../../src/core/contract';
import { COMMIT_INTERVAL_MS } from '../../../src/emulator/sampleData/changeHistory';
import type { EngineClient } from '../../../src/engine/engineClient';
import type { ResultColumn } from '../../../src/engine/engineProtocol';
import { sampleEngine, type SampleResults, comparable, csvHeader, expectedRow, jsonlRecords } from './sampleResults';

const BY_KEY = { sort: [{ column: 'key.id', descending: false }] };
const ALL = 100_000;

/** JSONL records carry every fixed object whole, so the engine flattens each one the schema describes, even where the CSV keeps it as JSON. */
function withMembers(header: string[], names: string[]): string[] {
  return header.flatMap((h) => {
    const members = names.filter((n) => n.startsWith(`${h}.`));
    return members.length > 0 ? members : [h];
  });
}

describe('engine: result files of every format', function () {
  this.timeout(60_000);
  let results: SampleResults;
  let engine: EngineClient;

  sampleEngine((r, e) => ([results, engine] = [r, e]));

  // accounts: a free object; users: int32, a fixed object, $ref'd enum and timestamps;
  // courses: numbers, arrays, a $defs object; submissions: a oneOf of text and object.
  for (const table of ['accounts', 'users', 'courses', 'submissions']) {
    it(`canvas.${table}: JSONL, CSV, TSV and Parquet show the service's flat columns, typed by the schema, with the records' values`, async () => {
      const csv = await results.download('canvas', table, 'csv');
      const header = await csvHeader(csv.paths[0]);
      const records = await jsonlRecords((await results.download('canvas', table, 'jsonl')).paths);
      const typed = new Map<string, ResultColumn>();
      for (const format of FORMATS) {
        const files = await results.download('canvas', table, format);
        const opened = await engine.open(files);
        assert.equal(opened.typesInferred, false);
        const names = opened.columns.map((c) => c.name);
        assert.deepEqual(names, format === 'jsonl' ? withMembers(header, names) : header, `${format} column names`);
        for (const column of opened.columns) {
          assert.deepEqual(column, typed.get(column.name) ?? column, `${format} ${column.name}`);
          typed.set(column.name, column);
        }
        const page = await engine.page(opened.handle, BY_KEY, 0, ALL);
        const expected = records.map((r) => expectedRow(r, opened.columns)).sort((a, b) => Number(a[0]) - Number(b[0]));
        assert.deepEqual(comparable(page.rows, opened.columns), expected, `${format} rows`);
        assert.equal(await engine.count(opened.handle, {}), records.length, `${format} count`);
        await engine.closeHandle(opened.handle);
      }
    });
  }

  it('names each column as the schema does: key columns marked, descriptions, readable and DuckDB types', async () => {
    const opened = await engine.open(await results.download('canvas', 'users', 'jsonl'));
    const column = (name: string): ResultColumn | undefined => opened.columns.find((c) => c.name === name);
    assert.deepEqual(column('key.id'), { name: 'key.id', type: 'int64', sqlType: 'BIGINT', key: true });
    assert.equal(column('value.login_count')?.type, 'int32');
    assert.ok(column('value.login_count')?.description);
    assert.equal(column('value.preferences.font_size')?.sqlType, 'INTEGER');
    assert.equal(column('value.created_at')?.type, 'date-time');
    assert.equal(column('value.workflow_state')?.type, 'enum');
    assert.deepEqual(column('meta.action'), { name: 'meta.action', type: 'enum', sqlType: 'VARCHAR', description: 'U = upsert, D = delete' });
  });

  it('shows the deletes of an incremental result as delete rows with their key and no values', async () => {
    const jsonl = await results.download('canvas', 'submissions', 'jsonl', { sinceDaysAgo: 5 });
    const deletes = (await jsonlRecords(jsonl.paths)).filter((r) => r.meta.action === 'D');
    assert.ok(deletes.length > 0, 'the sample history deletes rows within five days');
    for (const format of FORMATS) {
      const files = format === 'jsonl' ? jsonl : await results.download('canvas', 'submissions', format, { sinceDaysAgo: 5 });
      const opened = await engine.open(files);
      const onlyDeletes = { filters: [{ column: 'meta.action', op: '=' as const, value: 'D' }], ...BY_KEY };
      assert.equal(await engine.count(opened.handle, onlyDeletes), deletes.length, format);
      const page = await engine.page(opened.handle, onlyDeletes, 0, ALL);
      const expected = deletes.map((r) => expectedRow(r, opened.columns)).sort((a, b) => Number(a[0]) - Number(b[0]));
      assert.deepEqual(page.rows, expected, format);
      const valueColumns = opened.columns.flatMap((c, i) => (c.name.startsWith('value.') ? [i] : []));
      assert.ok(page.rows.every((row) => row[0] !== null && valueColumns.every((i) => row[i] === null)), format);
    }
  });

  it('opens an incremental result with nothing new as no rows with the schema\'s columns, in every format', async () => {
    // the latest commit itself: the service accepts it, and nothing changed after it
    const since = new Date(Math.floor(Date.now() / COMMIT_INTERVAL_MS) * COMMIT_INTERVAL_MS).toISOString().replace('.000Z', 'Z');
    for (const format of FORMATS) {
      const files = await results.download('canvas', 'users', format, { since });
      if (format === 'jsonl') assert.deepEqual(await jsonlRecords(files.paths), [], 'the service sent no records');
      const full = await engine.open(await results.download('canvas', 'users', format));
      for (const source of [files, { ...files, format }]) {
        const opened = await engine.open(source);
        assert.deepEqual(opened.columns, full.columns, `${format}: the columns of a full result`);
        assert.equal(await engine.count(opened.handle, {}), 0, format);
        assert.deepEqual((await engine.page(opened.handle, BY_KEY, 0, 10)).rows, [], format);
        await engine.closeHandle(opened.handle);
      }
      await engine.closeHandle(full.handle);
    }
  });

  it('reads a condensed CSV, where a fixed object is one JSON column', async () => {
    const opened = await engine.open(await results.download('canvas', 'users', 'csv', { mode: 'condensed' }));
    const index = opened.columns.findIndex((c) => c.name === 'value.preferences');
    assert.equal(opened.columns[index].type, 'object');
    assert.ok(!opened.columns.some((c) => c.name.startsWith('value.preferences.')));
    const page = await engine.page(opened.handle, BY_KEY, 0, 5);
    assert.equal(typeof JSON.parse(page.rows[0][index] as string), 'object');
  });

  it('without a schema reads the fields as text, says so, and still flattens key, value and meta', async () => {
    const files = await results.download('canvas', 'submissions', 'jsonl');
    const withSchema = await engine.open(files);
    const inferred = await engine.open({ paths: files.paths });
    assert.equal(inferred.typesInferred, true);
    assert.deepEqual(new Set(inferred.columns.map((c) => c.name)), new Set(withSchema.columns.map((c) => c.name)));
    assert.equal(inferred.columns[0].name, 'key.id');
    // a type guessed from the first rows could fail on a later one: the ids come as their digits
    assert.equal(inferred.columns[0].type, 'string');
    const ids = (await engine.page(withSchema.handle, {}, 0, 5)).rows.map((row) => String(row[0]));
    assert.deepEqual((await engine.page(inferred.handle, {}, 0, 5)).rows.map((row) => row[0]), ids);
    assert.equal(await engine.count(inferred.handle, {}), await engine.count(withSchema.handle, {}));
  });
});
