import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { FORMATS } from '../../../src/core/contract';
import type { EngineClient } from '../../../src/engine/engineClient';
import { PROFILE_CHARS, type ColumnProfile, type ResultColumn, type ResultProfile, type View } from '../../../src/engine/engineProtocol';
import { rejection } from './engineRejection';
import { sampleEngine, type SampleResults } from './sampleResults';

const ALL = 1_000_000;

const NUMBER = /^U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)$|^DOUBLE$|^FLOAT$/;

/** Checks a column's profile against its values as the engine's pages give them, counted here. */
function checkAgainstRows(profile: ColumnProfile, column: ResultColumn, values: unknown[], label: string): void {
  const present = values.filter((v) => v !== null);
  assert.equal(profile.count, present.length, `${label}: count`);
  assert.equal(profile.nulls, values.length - present.length, `${label}: nulls`);
  const exact = new Set(present.map((v) => JSON.stringify(v))).size;
  assert.equal(profile.distinct, exact, `${label}: distinct`);
  assert.equal(profile.distinctApproximate, false);
  if (NUMBER.test(column.sqlType)) {
    const numbers = present.map(Number);
    if (numbers.length === 0) return assert.equal(profile.min, null, `${label}: min`);
    const [min, max] = [Math.min(...numbers), Math.max(...numbers)];
    assert.equal(Number(profile.min), min, `${label}: min`);
    assert.equal(Number(profile.max), max, `${label}: max`);
    const mean = numbers.reduce((a, b) => a + b, 0) / numbers.length;
    assert.ok(Math.abs((profile.mean ?? NaN) - mean) <= Math.abs(mean) * 1e-9 + 1e-9, `${label}: mean ${profile.mean}, here ${mean}`);
    const q = profile.quantiles!;
    assert.ok(min <= q.p25 && q.p25 <= q.p50 && q.p50 <= q.p75 && q.p75 <= max, `${label}: quartiles ${JSON.stringify(q)}`);
    checkHistogram(profile, numbers, label);
  } else if (column.sqlType.startsWith('TIMESTAMP')) {
    const times = (present as string[]).slice().sort();
    assert.equal(profile.min, times[0] ?? null, `${label}: earliest`);
    assert.equal(profile.max, times[times.length - 1] ?? null, `${label}: latest`);
    checkHistogram(profile, times.map((t) => Date.parse(t)), label, (edge) => Date.parse(String(edge)));
  } else if (column.sqlType === 'VARCHAR' || column.sqlType.startsWith('ENUM') || column.sqlType === 'BOOLEAN') {
    const counts = new Map<unknown, number>();
    for (const v of present) counts.set(v, (counts.get(v) ?? 0) + 1);
    const top = profile.top!;
    assert.ok(top.length === Math.min(10, counts.size), `${label}: ${top.length} top values of ${counts.size}`);
    const most = Math.max(0, ...counts.values());
    if (top.length > 0) assert.equal(top[0].count, most, `${label}: the most common value's count`);
    for (const t of top) if (!t.cut) assert.equal(t.count, counts.get(t.value), `${label}: count of ${String(t.value)}`);
  }
}

/** Each bucket holds the values in [from, to), the last one [from, to]; together every finite value. */
function checkHistogram(profile: ColumnProfile, values: number[], label: string, edge: (e: unknown) => number = Number): void {
  const buckets = profile.histogram!;
  assert.equal(buckets.reduce((sum, b) => sum + b.count, 0), values.length - (profile.nonFinite ?? 0), `${label}: histogram total`);
  buckets.forEach((b, i) => {
    const [from, to] = [edge(b.from), edge(b.to)];
    const last = i === buckets.length - 1;
    const inside = values.filter((v) => v >= from && (v < to || (last && v <= to))).length;
    assert.equal(b.count, inside, `${label}: bucket ${i} [${String(b.from)}, ${String(b.to)})`);
  });
}

describe('engine: column profiles', function () {
  this.timeout(120_000);
  let results: SampleResults;
  let engine: EngineClient;

  sampleEngine((r, e) => ([results, engine] = [r, e]));

  async function checkProfile(paths: string[], view: View, label: string, source: Partial<Parameters<EngineClient['open']>[0]> = {}): Promise<ResultProfile> {
    const opened = await engine.open({ paths, ...source });
    try {
      const arrived: string[] = [];
      const profile = await engine.profile(opened.handle, view, { onColumn: (c) => arrived.push(c.name) });
      assert.deepEqual(arrived, opened.columns.map((c) => c.name), `${label}: each column sent as it is done`);
      const { rows } = await engine.page(opened.handle, { ...view, sort: undefined }, 0, ALL);
      assert.equal(profile.rows, rows.length, `${label}: rows`);
      opened.columns.forEach((column, i) => {
        const values = rows.map((r) => r[i]).map((v) => (v !== null && typeof v === 'object' && 'cut' in v ? null : v));
        if (rows.some((r) => r[i] !== null && typeof r[i] === 'object' && 'cut' in (r[i] as object))) return;
        checkAgainstRows(profile.columns[i], column, values, `${label} ${column.name}`);
      });
      return profile;
    } finally {
      await engine.closeHandle(opened.handle);
    }
  }

  for (const format of FORMATS) {
    it(`profiles canvas.users and canvas.courses as ${format}: counts, NULLs, distinct, range, mean, histogram and top values match the rows`, async () => {
      for (const table of ['users', 'courses']) {
        const files = await results.download('canvas', table, format);
        await checkProfile(files.paths, {}, `${format} ${table}`, { schema: files.schema });
      }
    });
  }

  it('follows the view: its filters and its WHERE', async () => {
    const files = await results.download('canvas', 'users', 'jsonl');
    const where: View = { where: '"key.id" % 3 = 0', filters: [{ column: 'value.workflow_state', op: '!=', value: 'deleted' }] };
    const profile = await checkProfile(files.paths, where, 'filtered users', { schema: files.schema });
    const opened = await engine.open(files);
    const whole = await engine.profile(opened.handle, {});
    await engine.closeHandle(opened.handle);
    assert.ok(profile.rows > 0 && profile.rows < whole.rows / 2, `${profile.rows} of ${whole.rows} rows`);
    const ids = profile.columns.find((c) => c.name === 'key.id')!;
    assert.ok(ids.histogram!.every((b) => b.count >= 0));
    const states = profile.columns.find((c) => c.name === 'value.workflow_state')!;
    assert.ok(!states.top!.some((t) => t.value === 'deleted'), 'the filtered value is not among the top values');
  });

  it('agrees with bare DuckDB aggregates over the same Parquet files', async () => {
    const files = await results.download('canvas', 'courses', 'parquet');
    const profile = await engine.profileFiles({ paths: files.paths }, {}, { columns: ['key.id', 'value.name'] });
    assert.deepEqual(profile.columns.map((c) => c.name), ['key.id', 'value.name']);
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    const list = files.paths.map((p) => `'${p}'`).join(', ');
    const [[rows, ids, idsDistinct, minId, maxId, names, namesDistinct]] = (
      await conn.runAndReadAll(`SELECT count(*), count("key.id"), count(DISTINCT "key.id"), min("key.id"), max("key.id"), count("value.name"), count(DISTINCT "value.name") FROM read_parquet([${list}])`)
    ).getRowsJson();
    conn.closeSync();
    assert.equal(profile.rows, Number(rows));
    const [id, name] = profile.columns;
    assert.deepEqual([id.count, id.min, id.max], [Number(ids), Number(minId), Number(maxId)]);
    assert.equal(id.distinct, Number(idsDistinct));
    assert.equal(name.count, Number(names));
    assert.equal(name.distinct, Number(namesDistinct));
  });

  describe('odd values', () => {
    const N = 5000;
    let file = '';

    before(async () => {
      file = path.join(results.dir, 'odd.parquet');
      const db = await DuckDBInstance.create(':memory:');
      const conn = await db.connect();
      await conn.run("SET TimeZone = 'UTC'");
      await conn.run(`COPY (
        SELECT
          CAST(NULL AS INTEGER) AS nothing,
          7 AS same,
          i AS every,
          CASE i % 5 WHEN 0 THEN 'nan'::DOUBLE WHEN 1 THEN 'inf'::DOUBLE WHEN 2 THEN '-inf'::DOUBLE WHEN 3 THEN NULL ELSE i / 2 END AS odd_number,
          CASE WHEN i = 0 THEN 'infinity'::TIMESTAMPTZ WHEN i = 1 THEN TIMESTAMPTZ '290000-01-01 00:00:00+00' WHEN i = 2 THEN TIMESTAMPTZ '0001-01-01 00:00:00+00'
               ELSE TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(i) END AS odd_time,
          CASE WHEN i < 4 THEN repeat('0', 2 * 1024 * 1024) || CAST(i AS VARCHAR) ELSE 'short' END AS long_text,
          i % 3 = 0 AS flag
        FROM range(${N}) t(i)
      ) TO '${file}' (FORMAT parquet)`);
      conn.closeSync();
    });

    it('a column of NULLs, of one value, of all distinct values, NaN and infinities, times out of range, 2 MB text', async () => {
      const profile = await engine.profileFiles({ paths: [file] }, {});
      const [nothing, same, every, oddNumber, oddTime, longText, flag] = profile.columns;
      assert.equal(profile.rows, N);
      assert.deepEqual(
        [nothing.count, nothing.nulls, nothing.distinct, nothing.min, nothing.max, nothing.mean, nothing.histogram],
        [0, N, 0, null, null, undefined, []],
        'only NULLs',
      );
      assert.deepEqual([same.distinct, same.min, same.max, same.mean, same.quantiles], [1, 7, 7, 7, { p25: 7, p50: 7, p75: 7 }], 'one value');
      assert.deepEqual(same.histogram, [{ from: 7, to: 8, count: N }], 'one value: one bucket');
      assert.deepEqual([every.distinct, every.distinctApproximate], [N, false], 'all distinct');
      assert.equal(every.histogram!.length, 20);
      assert.ok(every.histogram!.every((b) => b.count === N / 20), 'equal buckets of whole numbers');
      // NaN and infinities are values (counted, distinct) but not part of the range, mean or histogram
      assert.equal(oddNumber.count, N - N / 5);
      assert.equal(oddNumber.nonFinite, (3 * N) / 5);
      assert.equal(oddNumber.distinct, N / 5 + 3);
      assert.deepEqual([oddNumber.min, oddNumber.max], [2, (N - 1) / 2]);
      assert.equal(oddNumber.histogram!.reduce((s, b) => s + b.count, 0), N / 5);
      assert.ok(Number.isFinite(oddNumber.mean));
      assert.equal(oddTime.nonFinite, 1, 'infinity is a value out of the range');
      assert.deepEqual([oddTime.min, oddTime.max], ['0001-01-01T00:00:00Z', '290000-01-01T00:00:00Z']);
      assert.equal(oddTime.histogram!.length, 20);
      assert.equal(oddTime.histogram![0].from, '0001-01-01T00:00:00Z');
      assert.equal(oddTime.histogram![19].to, '290000-01-01T00:00:00Z');
      assert.equal(oddTime.histogram!.reduce((s, b) => s + b.count, 0), N - 1);
      assert.deepEqual(
        longText.top,
        [
          { value: 'short', count: N - 4 },
          { value: '0'.repeat(PROFILE_CHARS), count: 4, cut: true },
        ],
        '2 MB values grouped by their first characters',
      );
      assert.deepEqual([longText.distinct, longText.distinctApproximate], [5, false], 'long values that differ past their first characters are distinct');
      assert.equal(longText.max, 'short');
      assert.equal(String(longText.min).length, PROFILE_CHARS);
      assert.deepEqual(flag.top, [
        { value: false, count: N - Math.ceil(N / 3) },
        { value: true, count: Math.ceil(N / 3) },
      ]);
      assert.ok(JSON.stringify(profile).length < 100_000, 'no long value travels whole');
    });

    it('refuses a column the result does not have, naming it', async () => {
      const message = await rejection(engine.profileFiles({ paths: [file] }, {}, { columns: ['every', 'nope'] }), 'syntax');
      assert.match(message, /no column "nope"/);
    });
  });

  it('fails naming a damaged gzip file, as the count does', async () => {
    const users = await results.download('canvas', 'users', 'jsonl');
    const lines = gunzipSync(await fs.readFile(users.paths[0])).toString('utf8').trim().split('\n');
    const packed = gzipSync(`${Array.from({ length: 40 }, () => lines).flat().join('\n')}\n`);
    const cut = path.join(results.dir, 'profile-cut.jsonl.gz');
    await fs.writeFile(cut, packed.subarray(0, Math.floor(packed.length * 0.8)));
    const message = await rejection(engine.profileFiles({ paths: [cut], schema: users.schema }, {}), 'corrupt');
    assert.match(message, /profile-cut\.jsonl\.gz is damaged/);
  });

  it('stops within a second when cancelled midway, and the engine serves the next request', async () => {
    // more columns than one chunk of the profile, each of a million distinct texts
    const wide = path.join(results.dir, 'wide.parquet');
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    const columns = Array.from({ length: 8 }, (_, c) => `md5(CAST(i * ${c + 1} AS VARCHAR)) AS c${c}`).join(', ');
    await conn.run(`COPY (SELECT ${columns} FROM range(1000000) t(i)) TO '${wide}' (FORMAT parquet)`);
    conn.closeSync();
    const opened = await engine.open({ paths: [wide] });
    const abort = new AbortController();
    const arrived: string[] = [];
    let cancelledAt = 0;
    const onColumn = (c: ColumnProfile): void => {
      arrived.push(c.name);
      cancelledAt ||= Date.now();
      abort.abort();
    };
    await rejection(engine.profile(opened.handle, {}, { onColumn }, abort.signal), 'cancelled');
    const stoppedAfter = Date.now() - cancelledAt;
    assert.ok(arrived.length >= 1 && arrived.length < opened.columns.length, `${arrived.length} of ${opened.columns.length} columns before the cancel`);
    const again = await engine.profile(opened.handle, {}, { columns: ['c0'] });
    assert.deepEqual([again.rows, again.columns.length, again.columns[0].count], [1_000_000, 1, 1_000_000]);
    assert.ok(stoppedAfter < 1000, `stopped ${stoppedAfter} ms after the cancel`);
    await engine.closeHandle(opened.handle);
  });

  it('estimates many distinct values, and finds the most common among them with their exact counts', async () => {
    const file = path.join(results.dir, 'many.parquet');
    const rows = 300_000;
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    await conn.run(`COPY (
      SELECT CASE WHEN i % 10 = 0 THEN 'common ' || (i % 30 // 10) WHEN i % 10 = 1 THEN 'usual' ELSE md5(CAST(i AS VARCHAR)) END AS text, i AS number
      FROM range(${rows}) t(i)
    ) TO '${file}' (FORMAT parquet)`);
    conn.closeSync();
    // a filter that keeps every row: its value is bound beside the candidates'
    const [text, number] = (await engine.profileFiles({ paths: [file] }, { filters: [{ column: 'number', op: '<', value: String(rows) }] })).columns;
    const distinctTexts = 0.8 * rows + 4;
    assert.equal(text.distinctApproximate, true);
    assert.ok(text.distinct > 0.7 * distinctTexts && text.distinct <= rows, `about ${distinctTexts} distinct texts: ${text.distinct}`);
    assert.deepEqual(text.top!.slice(0, 4), [
      { value: 'usual', count: rows / 10 },
      { value: 'common 0', count: rows / 30 },
      { value: 'common 1', count: rows / 30 },
      { value: 'common 2', count: rows / 30 },
    ]);
    assert.equal(text.top!.length, 10);
    assert.ok(text.top!.slice(4).every((t) => t.count === 1), JSON.stringify(text.top));
    assert.deepEqual([number.distinctApproximate, number.min, number.max], [true, 0, rows - 1]);
    assert.ok(number.distinct > 0.7 * rows && number.distinct <= rows, `${rows} distinct numbers: ${number.distinct}`);
    assert.deepEqual(number.histogram!.map((b) => b.count), new Array<number>(20).fill(rows / 20), 'exact buckets');
  });
});
