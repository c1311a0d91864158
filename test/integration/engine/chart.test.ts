// The engine's charts (resultChart.ts) against bare DuckDB's own aggregates of the same files:
// the sample logs as the service delivers them, and files made here of more rows than a chart
// shows as they are (so the engine groups them), and of odd values (only NULLs, NaN and
// infinities, 2 MB texts, one value). Also a console statement's kept rows, a view's filters,
// refusals that name the choices, and a cancel midway.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { CHART_BARS, CHART_LABEL_CHARS, CHART_POINTS, CHART_SERIES, LINE_BUCKETS, SCATTER_CELLS, type ChartData, type ChartSpec } from '../../../src/engine/chartProtocol';
import type { EngineClient } from '../../../src/engine/engineClient';
import type { View } from '../../../src/engine/engineProtocol';
import { rejection } from './engineRejection';
import { sampleEngine, type DownloadedResult, type SampleResults } from './sampleResults';

/** Every point of every series, with its series' name. */
function points(chart: ChartData): { series: string | null | undefined; other: boolean; x: number | string; y: number; rows?: number }[] {
  return chart.series.flatMap((s) => s.points.map(([x, y, rows]) => ({ series: s.name, other: s.other === true, x, y, rows })));
}

function near(a: number, b: number, what: string): void {
  assert.ok(Math.abs(a - b) <= Math.max(1e-9, Math.abs(b) * 1e-9), `${what}: ${a}, DuckDB says ${b}`);
}

describe('engine: charts', function () {
  this.timeout(180_000);
  let results: SampleResults;
  let engine: EngineClient;
  let db: DuckDBInstance;
  let duck: DuckDBConnection;
  let logs: string;

  sampleEngine((r, e) => ([results, engine] = [r, e]));

  /** Bare DuckDB's answer to `sql`, rows as JSON. */
  async function bare(sql: string): Promise<unknown[][]> {
    return (await duck.runAndReadAll(sql)).getRowsJson() as unknown[][];
  }

  async function chartOf(paths: string[] | DownloadedResult, spec: ChartSpec, view: View = {}): Promise<ChartData> {
    const chart = await engine.chartFiles(Array.isArray(paths) ? { paths } : paths, view, spec);
    assert.ok(JSON.stringify(chart).length < 2_000_000, 'the answer stays small');
    return chart;
  }

  before(async () => {
    db = await DuckDBInstance.create(':memory:');
    duck = await db.connect();
    await duck.run("SET TimeZone = 'UTC'");
    const files = await results.download('canvas_logs', 'web_logs', 'parquet');
    logs = `read_parquet([${files.paths.map((p) => `'${p}'`).join(', ')}])`;
  });

  after(() => duck?.closeSync());

  /** The logs' files with their table's schema, as a preview opens them. */
  function logFiles(): Promise<DownloadedResult> {
    return results.download('canvas_logs', 'web_logs', 'parquet');
  }

  describe('the sample logs, fewer rows than a chart shows as they are', () => {
    it('a bar chart of a text column counts its rows per value, as DuckDB groups them', async () => {
      const chart = await chartOf(await logFiles(), { kind: 'bar', x: 'value.http_method' });
      const expected = await bare(`SELECT "value.http_method", count(*) AS n FROM ${logs} GROUP BY ALL ORDER BY n DESC, 1`);
      assert.deepEqual(chart.categories, expected.map((r) => r[0]), 'the values, most rows first');
      assert.deepEqual(points(chart).map((p) => [chart.categories![p.x as number], p.y]), expected.map((r) => [r[0], Number(r[1])]));
      assert.equal(chart.measure, 'count');
      assert.equal(chart.x.axis, 'category');
      assert.match(chart.note, /^Rows per value of value\.http_method\./);
    });

    it('a bar chart with y sums it per value and per colour, as DuckDB does', async () => {
      const chart = await chartOf(await logFiles(), { kind: 'bar', x: 'value.http_status', y: 'value.duration_ms', color: 'value.http_method' });
      assert.equal(chart.measure, 'sum');
      const expected = await bare(`SELECT CAST("value.http_status" AS VARCHAR), "value.http_method", sum("value.duration_ms") FROM ${logs} WHERE "value.duration_ms" IS NOT NULL GROUP BY ALL`);
      const got = points(chart).map((p) => [chart.categories![p.x as number], p.series, p.y]);
      assert.equal(got.length, expected.length);
      for (const [status, method, sum] of expected) {
        const found = got.find(([s, m]) => s === status && m === method);
        assert.ok(found, `a bar for ${String(status)} ${String(method)}`);
        near(found[2] as number, Number(sum), `the sum for ${String(status)} ${String(method)}`);
      }
      assert.deepEqual(chart.categories, ['200', '302', '401', '404', '500'], 'whole numbers as their values, in order');
      const [[nulls]] = await bare(`SELECT count(*) FROM ${logs} WHERE "value.duration_ms" IS NULL`);
      assert.equal(chart.skipped, Number(nulls));
    });

    it('a line chart of fewer rows than it shows as they are draws every row, in the order of x', async () => {
      const chart = await chartOf(await logFiles(), { kind: 'line', x: 'value.timestamp', y: 'value.duration_ms' });
      assert.equal(chart.aggregated, false);
      assert.equal(chart.measure, 'value');
      assert.equal(chart.x.axis, 'time');
      const expected = await bare(`SELECT epoch_ms(CAST("value.timestamp" AS TIMESTAMPTZ)), "value.duration_ms" FROM ${logs} WHERE "value.duration_ms" IS NOT NULL ORDER BY 1`);
      const got = points(chart);
      assert.equal(got.length, expected.length);
      assert.deepEqual(got.map((p) => p.x), expected.map((r) => Number(r[0])), 'x in milliseconds, in order');
      assert.deepEqual([...got.map((p) => p.y)].sort((a, b) => a - b), expected.map((r) => Number(r[1])).sort((a, b) => a - b));
      assert.match(chart.note, /points, one per row/);
    });

    it('a histogram of times counts the rows in equal ranges', async () => {
      const chart = await chartOf(await logFiles(), { kind: 'histogram', x: 'value.timestamp' });
      const [[rows]] = await bare(`SELECT count(*) FROM ${logs}`);
      assert.equal(points(chart).reduce((s, p) => s + p.y, 0), Number(rows));
      const { start, width, count } = chart.ranges!;
      assert.ok(count <= CHART_BARS + 1 && count >= CHART_BARS / 3, `${count} ranges`);
      assert.equal(width, 86_400_000, 'the sample\'s month in ranges of a day');
      assert.equal(start % width, 0, 'starting at midnight');
      assert.equal(chart.categories!.length, count);
      assert.match(chart.categories![0], /^\d{4}-\d\d-\d\d – \d{4}-\d\d-\d\d$/, 'ranges of days named by their dates');
      const [[first, last]] = await bare(`SELECT epoch_ms(min(CAST("value.timestamp" AS TIMESTAMPTZ))), epoch_ms(max(CAST("value.timestamp" AS TIMESTAMPTZ))) FROM ${logs}`);
      assert.ok(start <= Number(first) && Number(first) < start + width && Number(last) < start + count * width, 'the ranges hold the first and the last time');
      assert.match(chart.note, new RegExp(`^Rows in ${count} ranges of value\\.timestamp, each 1 day wide\\.`));
    });

    it('follows the view: its filters and its WHERE', async () => {
      const view: View = { where: '"value.http_status" <> 200', filters: [{ column: 'value.http_method', op: '=', value: 'GET' }] };
      const chart = await chartOf(await logFiles(), { kind: 'bar', x: 'value.http_status' }, view);
      const expected = await bare(`SELECT CAST("value.http_status" AS VARCHAR), count(*) FROM ${logs} WHERE "value.http_status" <> 200 AND "value.http_method" = 'GET' GROUP BY 1 ORDER BY 1`);
      assert.deepEqual(points(chart).map((p) => [chart.categories![p.x as number], p.y]), expected.map((r) => [r[0], Number(r[1])]));
      assert.ok(!chart.categories!.includes('200'));
    });

    it('charts a SQL console statement\'s kept rows', async () => {
      const files = (await logFiles()).paths;
      const first = await engine.sqlKept(`SELECT "value.http_method" AS method, "value.duration_ms" AS ms FROM read_parquet([${files.map((p) => `'${p}'`).join(', ')}])`, 10);
      try {
        const chart = await engine.chart({ kept: first.id }, { kind: 'bar', x: 'method', y: 'ms' });
        const expected = await bare(`SELECT "value.http_method", sum("value.duration_ms"), count(*) FROM ${logs} WHERE "value.duration_ms" IS NOT NULL GROUP BY 1 ORDER BY 3 DESC, 1`);
        assert.deepEqual(chart.categories, expected.map((r) => r[0]));
        points(chart).forEach((p, i) => near(p.y, Number(expected[i][1]), `the sum for ${String(expected[i][0])}`));
      } finally {
        await engine.dropKept(first.id);
      }
    });

    it('refuses a kind or column that does not fit, naming the choices', async () => {
      const files = await logFiles();
      assert.match(await rejection(chartOf(files, { kind: 'pie' as ChartSpec['kind'], x: 'value.http_status' }), 'syntax'), /"pie" is not a kind of chart\. Choose one of: bar, line, area, scatter, histogram\./);
      assert.match(await rejection(chartOf(files, { kind: 'bar', x: 'nope' }), 'syntax'), /no column "nope"\. Its columns: key\.id, /);
      const message = await rejection(chartOf(files, { kind: 'scatter', x: 'value.timestamp', y: 'value.participated' }), 'syntax');
      assert.match(message, /The y of a scatter chart must be a column of numbers \(or text read as numbers\): "value\.participated" is boolean\. Columns that fit: .*value\.duration_ms/);
      assert.doesNotMatch(message.split('fit:')[1], /value\.timestamp|value\.participated/, 'times and booleans are not offered for y');
      assert.match(await rejection(chartOf(files, { kind: 'scatter', x: 'value.timestamp' }), 'syntax'), /A scatter chart needs a column for y\. Columns that fit: /);
    });
  });

  describe('more rows than a chart shows as they are', () => {
    const N = 60_000;
    let file = '';
    let rel = '';

    before(async () => {
      file = path.join(results.dir, 'chart-many.parquet');
      await duck.run(`COPY (
        SELECT i,
          TIMESTAMP '2026-01-01 00:00:00' + to_seconds(i * 7) AS t,
          (i % 977) * 0.37 + sin(i) AS v,
          'group ' || CAST(i % 12 AS VARCHAR) AS g,
          'name ' || CAST((i * i) % 1013 AS VARCHAR) AS name
        FROM range(${N}) r(i)) TO '${file}' (FORMAT parquet)`);
      rel = `read_parquet('${file}')`;
    });

    it('a line chart sums y in equal ranges of x', async () => {
      const chart = await chartOf([file], { kind: 'line', x: 't', y: 'v' });
      assert.equal(chart.aggregated, true);
      assert.equal(chart.measure, 'sum');
      const [[lo, hi, total]] = await bare(`SELECT epoch_ms(min(t)), epoch_ms(max(t)), sum(v) FROM ${rel}`);
      const { start, width, count } = chart.ranges!;
      assert.equal(width, 3_600_000, '60,000 rows 7 s apart, about 4.9 days: in ranges of an hour, the round width next above 35 minutes');
      assert.ok(start <= Number(lo) && Number(hi) < start + count * width && count <= LINE_BUCKETS + 1);
      const got = points(chart);
      assert.equal(got.length, count, 'every range holds rows');
      near(got.reduce((s, p) => s + p.y, 0), Number(total), 'the sums together');
      const sums = await bare(`SELECT CAST(floor((epoch_ms(t) - ${start}) / ${width}) AS BIGINT) AS r, sum(v) FROM ${rel} GROUP BY r ORDER BY r`);
      for (const [i, p] of got.entries()) {
        assert.equal(p.x, start + i * width, `range ${i} starts where it should`);
        const [[sum]] = await bare(`SELECT sum(v) FROM ${rel} WHERE epoch_ms(t) >= ${p.x} AND epoch_ms(t) < ${p.x + width}`);
        near(p.y, Number(sum), `the sum in range ${i}`);
        near(p.y, Number(sums[i][1]), `the sum in range ${i}, grouped`);
      }
      assert.match(chart.note, new RegExp(`^The sum of v in ${count} ranges of t, each 1 hour wide \\(60,000 rows, more than 20,000\\)\\.`));
    });

    it('an area chart without y counts the rows in each range', async () => {
      const chart = await chartOf([file], { kind: 'area', x: 'i' });
      assert.equal(chart.measure, 'count');
      const got = points(chart);
      assert.equal(got.reduce((s, p) => s + p.y, 0), N);
      assert.deepEqual(chart.ranges, { start: 0, width: 500, count: N / 500 }, 'ranges of a round width: 300 would do, 500 is round');
      assert.deepEqual(got.map((p) => p.y), got.map(() => 500), 'whole numbers in ranges of equal width hold equal counts');
    });

    it('a histogram of numbers counts the rows in equal ranges, as DuckDB counts them between the same bounds', async () => {
      const chart = await chartOf([file], { kind: 'histogram', x: 'v' });
      const [[lo, hi]] = await bare(`SELECT min(v), max(v) FROM ${rel}`);
      const { start, width, count } = chart.ranges!;
      assert.equal(width, 10, `(${Number(lo)} to ${Number(hi)}) / 40 is about 9: ranges of 10`);
      assert.ok(start <= Number(lo) && Number(hi) < start + count * width);
      assert.deepEqual(chart.categories!.slice(0, 2), [`${start} – ${start + 10}`, `${start + 10} – ${start + 20}`]);
      const conditions = Array.from({ length: count }, (_, i) => `count(*) FILTER (WHERE v >= ${start + i * width} AND v < ${start + (i + 1) * width})`);
      const [counts] = await bare(`SELECT ${conditions.join(', ')} FROM ${rel}`);
      const got = new Array<number>(count).fill(0);
      for (const p of points(chart)) got[p.x as number] = p.y;
      assert.deepEqual(got, counts.map(Number));
    });

    it('a bar chart of many names shows the most common ones and the rest together as "other"', async () => {
      const chart = await chartOf([file], { kind: 'bar', x: 'name', y: 'v' });
      const expected = await bare(`SELECT name, count(*) AS n, sum(v) FROM ${rel} GROUP BY name ORDER BY n DESC, name LIMIT ${CHART_BARS}`);
      const [[groups, total]] = await bare(`SELECT count(DISTINCT name), sum(v) FROM ${rel}`);
      assert.deepEqual(chart.categories!.slice(0, CHART_BARS), expected.map((r) => r[0]));
      assert.equal(chart.categories![CHART_BARS], `other (${(Number(groups) - CHART_BARS).toLocaleString('en-US')} values)`);
      assert.equal(chart.otherCategory, true);
      const got = points(chart);
      expected.forEach((r, i) => near(got[i].y, Number(r[2]), `the sum for ${String(r[0])}`));
      near(got.reduce((s, p) => s + p.y, 0), Number(total), 'the other values\' sum makes up the rest');
      assert.match(chart.note, new RegExp(`^The sum of v per value of name: the 40 most common of ${Number(groups).toLocaleString('en-US')}, the other .* together as "other"\\.`));
    });

    it('a chart coloured by a column of many values has a series for each of the most common, and one for the rest', async () => {
      const chart = await chartOf([file], { kind: 'histogram', x: 'i', color: 'g' });
      const top = await bare(`SELECT g, count(*) AS n FROM ${rel} GROUP BY g ORDER BY n DESC, g LIMIT ${CHART_SERIES}`);
      assert.deepEqual(chart.series.map((s) => s.name), [...top.map((r) => r[0]), 'other']);
      assert.equal(chart.series.at(-1)!.other, true);
      const sums = chart.series.map((s) => s.points.reduce((n, [, y]) => n + y, 0));
      assert.deepEqual(sums.slice(0, CHART_SERIES), top.map((r) => Number(r[1])));
      assert.equal(sums.at(-1), N - top.reduce((n, r) => n + Number(r[1]), 0));
      assert.match(chart.note, /One series per value of g: the 8 most common of 12, the other 4 values together as "other"\./);
    });

    it('a scatter chart of more points than it draws shows the cells of a grid that hold any, sized by their rows', async () => {
      const chart = await chartOf([file], { kind: 'scatter', x: 'i', y: 'v' });
      assert.equal(chart.aggregated, true);
      const got = points(chart);
      assert.equal(got.reduce((s, p) => s + (p.rows ?? 0), 0), N, 'every row in a cell');
      assert.ok(got.length <= SCATTER_CELLS.x * SCATTER_CELLS.y);
      const [[lo, hi, ylo, yhi]] = await bare(`SELECT min(i), max(i), min(v), max(v) FROM ${rel}`);
      const [wx, wy] = [(Number(hi) - Number(lo)) / SCATTER_CELLS.x, (Number(yhi) - Number(ylo)) / SCATTER_CELLS.y];
      const sample = got.filter((_, i) => i % 97 === 0);
      for (const p of sample) {
        const [x, y] = [p.x as number, p.y];
        const [[n]] = await bare(
          `SELECT count(*) FROM ${rel} WHERE i >= ${x - wx / 2} AND i ${x + wx / 2 >= Number(hi) ? '<=' : '<'} ${x + wx / 2} AND v >= ${y - wy / 2} AND v ${y + wy / 2 >= Number(yhi) ? '<=' : '<'} ${y + wy / 2}`,
        );
        assert.equal(p.rows, Number(n), `the cell at ${x}, ${y}`);
      }
      assert.match(chart.note, /^60,000 points, more than 20,000: shown as the .* cells of a 100 × 50 grid/);
      const coloured = await chartOf([file], { kind: 'scatter', x: 'i', y: 'v', color: 'g' });
      const cells = points(coloured);
      assert.equal(cells.reduce((s, p) => s + (p.rows ?? 0), 0), N, 'every row in a cell of its series');
      assert.ok(cells.length <= CHART_POINTS, `${cells.length} cells in 9 series: no more than a chart draws`);
      assert.match(coloured.note, /cells of a 66 × 33 grid/, 'a coarser grid for 9 series');
    });

    it('stops when cancelled midway, and the engine serves the next request', async () => {
      const wide = path.join(results.dir, 'chart-wide.parquet');
      await duck.run(`COPY (SELECT md5(CAST(i AS VARCHAR)) AS h, i FROM range(3000000) t(i)) TO '${wide}' (FORMAT parquet)`);
      const opened = await engine.open({ paths: [wide] });
      try {
        // the copy done first, so the cancel lands in the chart's own queries
        await engine.chart({ handle: opened.handle }, { kind: 'histogram', x: 'i' });
        const abort = new AbortController();
        const started = Date.now();
        const chart = engine.chart({ handle: opened.handle }, { kind: 'bar', x: 'h', color: 'h' }, undefined, abort.signal);
        setTimeout(() => abort.abort(), 150);
        await rejection(chart, 'cancelled');
        assert.ok(Date.now() - started < 5_000, `stopped within ${Date.now() - started} ms`);
        const again = await engine.chart({ handle: opened.handle }, { kind: 'histogram', x: 'i' });
        assert.equal(points(again).reduce((s, p) => s + p.y, 0), 3_000_000);
      } finally {
        await engine.closeHandle(opened.handle);
      }
    });
  });

  describe('odd values', () => {
    const N = 5000;
    let file = '';

    before(async () => {
      file = path.join(results.dir, 'chart-odd.parquet');
      await duck.run(`COPY (
        SELECT i,
          CAST(NULL AS INTEGER) AS nothing,
          7 AS same,
          CASE i % 5 WHEN 0 THEN 'nan'::DOUBLE WHEN 1 THEN 'inf'::DOUBLE WHEN 2 THEN '-inf'::DOUBLE WHEN 3 THEN NULL ELSE i / 2 END AS odd_number,
          CASE WHEN i = 0 THEN 'infinity'::TIMESTAMP WHEN i = 1 THEN '-infinity'::TIMESTAMP ELSE TIMESTAMP '2026-01-01' + to_days(i % 30) END AS odd_time,
          CASE WHEN i < 4 THEN repeat(CAST(i AS VARCHAR), 2 * 1024 * 1024) ELSE 'short' END AS long_text,
          CASE WHEN i % 2 = 0 THEN CAST(i AS VARCHAR) ELSE 'not a number' END AS text_number
        FROM range(${N}) t(i)) TO '${file}' (FORMAT parquet)`);
    });

    it('a column of only NULLs: nothing to draw, and every row said to be left out', async () => {
      for (const kind of ['bar', 'line', 'area', 'histogram'] as const) {
        const chart = await chartOf([file], { kind, x: 'nothing' });
        assert.deepEqual([chart.rows, chart.skipped, points(chart).length], [N, N, 0], kind);
        assert.match(chart.note, /^No row has a value to draw\. 5,000 rows without a usable nothing \(NULL, NaN, infinite or not a number\) are left out\./, kind);
      }
      const scatter = await chartOf([file], { kind: 'scatter', x: 'i', y: 'nothing' });
      assert.deepEqual([scatter.skipped, points(scatter).length], [N, 0]);
    });

    it('NaN and infinities of y and x are left out and counted; the rest is drawn', async () => {
      const line = await chartOf([file], { kind: 'line', x: 'i', y: 'odd_number' });
      assert.equal(line.skipped, (4 * N) / 5);
      assert.equal(points(line).length, N / 5);
      assert.ok(points(line).every((p) => Number.isFinite(p.y)));
      const histogram = await chartOf([file], { kind: 'histogram', x: 'odd_number' });
      assert.equal(points(histogram).reduce((s, p) => s + p.y, 0), N / 5);
      const times = await chartOf([file], { kind: 'bar', x: 'odd_time' });
      assert.equal(times.skipped, 2, 'infinite times are left out');
      assert.equal(times.categories!.length, 30);
      assert.equal(times.categories![0], '2026-01-01', 'midnights as dates');
      assert.equal(points(times).reduce((s, p) => s + p.y, 0), N - 2);
    });

    it('2 MB texts are cut to their first characters as names of bars and series', async () => {
      const chart = await chartOf([file], { kind: 'bar', x: 'long_text', color: 'long_text' });
      assert.deepEqual(chart.categories, ['short', ...['0', '1', '2', '3'].map((d) => d.repeat(CHART_LABEL_CHARS))]);
      assert.deepEqual(chart.series.map((s) => s.name), chart.categories);
      assert.ok(JSON.stringify(chart).length < 10_000, 'no long value travels whole');
    });

    it('a single value: one bar, one range', async () => {
      const bar = await chartOf([file], { kind: 'bar', x: 'same' });
      assert.deepEqual([bar.categories, points(bar).map((p) => p.y)], [['7'], [N]]);
      const histogram = await chartOf([file], { kind: 'histogram', x: 'same' });
      assert.deepEqual([histogram.categories, points(histogram).map((p) => p.y)], [['7 – 8'], [N]]);
      const scatter = await chartOf([file], { kind: 'scatter', x: 'same', y: 'same' });
      assert.deepEqual(points(scatter)[0], { series: undefined, other: false, x: 7, y: 7, rows: undefined });
      assert.equal(points(scatter).length, N, 'fewer rows than a chart shows: each as it is');
    });

    it('text where numbers are needed: the values that read as numbers are drawn, the others left out', async () => {
      const chart = await chartOf([file], { kind: 'scatter', x: 'text_number', y: 'i' });
      assert.equal(chart.skipped, N / 2);
      assert.ok(points(chart).every((p) => p.x === p.y), 'each text read as its number');
    });

    it('no more than the chart shows as they are: a line of CHART_POINTS rows is drawn whole', async () => {
      const exact = path.join(results.dir, 'chart-exact.parquet');
      await duck.run(`COPY (SELECT i, i * 2 AS y FROM range(${CHART_POINTS}) t(i)) TO '${exact}' (FORMAT parquet)`);
      const whole = await chartOf([exact], { kind: 'line', x: 'i', y: 'y' });
      assert.deepEqual([whole.aggregated, points(whole).length], [false, CHART_POINTS]);
    });
  });
});
