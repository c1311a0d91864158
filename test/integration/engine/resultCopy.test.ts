// A result large enough that the engine answers while it copies the result into its own table:
// several files, each of several DuckDB row groups, with many ties in the sorted column. Every
// answer must be the same whether it comes from the files, from the table as it fills, or from
// the complete table, and the copy leaves nothing behind once the result is closed.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isEngineError } from '../../../src/engine/engineErrors';
import type { ResultSource, View } from '../../../src/engine/engineProtocol';
import { BY_SCORE, FILE_ROWS, idsOf, range, row, score, sortedIds, TOTAL, withEngine, writeResult, type LoggedEngine } from './copiedResult';
import { SampleResults } from './sampleResults';

describe('engine: a result read while it is copied into its own table', function () {
  this.timeout(120_000);
  let results: SampleResults;
  let source: ResultSource;
  const sorted = sortedIds();

  before(async () => {
    results = await SampleResults.start();
    source = await writeResult(results.dir);
  });

  after(async () => {
    await results.close();
  });

  // copies are not kept: every open copies the result anew, as these tests watch it do
  const fresh = (test: (e: LoggedEngine) => Promise<void>): Promise<void> => withEngine(results, { keptCopiesMb: 0 }, test);

  it('answers pages, far pages, sorts and counts alike before, during and after the copy', () =>
    fresh(async ({ engine, copied }) => {
      const opened = await engine.open(source);
      const check = async (when: string): Promise<void> => {
        assert.deepEqual((await engine.page(opened.handle, {}, 0, 3)).rows, [row(0), row(1), row(2)], when);
        assert.equal(await engine.count(opened.handle, {}), TOTAL, when);
        // across the tiny middle file, and the last rows
        assert.deepEqual(await idsOf(engine, opened.handle, {}, FILE_ROWS[0] - 2, 12), range(FILE_ROWS[0] - 2, FILE_ROWS[0] + 10), when);
        assert.deepEqual(await idsOf(engine, opened.handle, {}, TOTAL - 150, 200), range(TOTAL - 150, TOTAL), when);
        assert.deepEqual(await idsOf(engine, opened.handle, BY_SCORE, 0, 200), sorted.slice(0, 200), when);
        assert.deepEqual(await idsOf(engine, opened.handle, BY_SCORE, 900, 50), sorted.slice(900, 950), when);
        const over = { ...BY_SCORE, filters: [{ column: 'value.score', op: '>=' as const, value: '990' }] };
        const kept = sorted.filter((id) => (score(id) ?? -1) >= 990);
        assert.equal(await engine.count(opened.handle, over), kept.length, when);
        assert.deepEqual(await idsOf(engine, opened.handle, over, 100, 200), kept.slice(100, 300), when);
      };
      await check('at once');
      await check('while copying');
      await copied();
      await check('once copied');
      // deep into a sort: the view's row positions, built once and read again
      assert.deepEqual(await idsOf(engine, opened.handle, BY_SCORE, 200_000, 200), sorted.slice(200_000, 200_200));
      assert.deepEqual(await idsOf(engine, opened.handle, BY_SCORE, TOTAL - 10, 100), sorted.slice(TOTAL - 10));
      const onlyNull = { filters: [{ column: 'value.score', op: 'is null' as const }] };
      const nulls = range(0, TOTAL).filter((id) => score(id) === null);
      assert.deepEqual(await idsOf(engine, opened.handle, onlyNull, 30_000, 20), nulls.slice(30_000, 30_020));
      const whole = (await engine.page(opened.handle, BY_SCORE, 0, TOTAL)).rows;
      assert.deepEqual(whole.map((r) => Number(r[0])), sorted);
      assert.deepEqual(whole[0], row(sorted[0]));
    }));

  it('copies several files at once while a profile waits for the copy, rows in the files\' order', () =>
    fresh(async ({ engine }) => {
      const opened = await engine.open(source);
      const profile = await engine.profile(opened.handle, {}, { columns: ['key.id', 'value.score'] });
      const [ids, scores] = profile.columns;
      assert.deepEqual([profile.rows, ids.count, ids.min, ids.max], [TOTAL, TOTAL, 0, TOTAL - 1]);
      const values = range(0, TOTAL).map(score);
      const present = new Set(values.filter((v) => v !== null));
      const [least, greatest] = [...present].reduce(([lo, hi], v) => [Math.min(lo, v!), Math.max(hi, v!)], [Infinity, -Infinity]);
      const missing = values.filter((v) => v === null).length;
      assert.deepEqual([scores.nulls, scores.distinct, scores.min, scores.max], [missing, present.size, least, greatest]);
      assert.deepEqual((await engine.page(opened.handle, {}, 0, 3)).rows, [row(0), row(1), row(2)]);
      assert.deepEqual(await idsOf(engine, opened.handle, {}, FILE_ROWS[0] - 2, 12), range(FILE_ROWS[0] - 2, FILE_ROWS[0] + 10), 'across the tiny middle file');
      assert.deepEqual(await idsOf(engine, opened.handle, {}, TOTAL - 150, 200), range(TOTAL - 150, TOTAL), 'the last rows');
      assert.deepEqual(await idsOf(engine, opened.handle, BY_SCORE, 0, 200), sorted.slice(0, 200), 'ties in the files\' order');
      assert.deepEqual(await idsOf(engine, opened.handle, BY_SCORE, 200_000, 200), sorted.slice(200_000, 200_200));
    }));

  it('shows the windows next to a far one not yet copied from the lines read with it, without reading the file again', () =>
    fresh(async ({ engine }) => {
      const own = await writeResult(path.join(results.dir, 'neighbours'));
      const opened = await engine.open(own);
      assert.equal(await engine.count(opened.handle, {}), TOTAL);
      // 148,800 records into the last file
      const far = TOTAL - 1200;
      assert.deepEqual(await idsOf(engine, opened.handle, {}, far, 200), range(far, far + 200));
      await fs.writeFile(own.paths[2], 'no longer a gzip file');
      assert.deepEqual(await idsOf(engine, opened.handle, {}, far + 200, 200), range(far + 200, far + 400), 'the window after it');
      assert.deepEqual(await idsOf(engine, opened.handle, {}, far - 600, 200), range(far - 600, far - 400), 'a window before it');
      assert.deepEqual(await idsOf(engine, opened.handle, {}, TOTAL - 100, 200), range(TOTAL - 100, TOTAL), 'the last rows');
      await assert.rejects(engine.page(opened.handle, {}, far - 50_000, 200), (err: Error) => isEngineError(err) && err.kind === 'corrupt', 'a window away from it reads the file');
    }));

  it('exports a sorted view in the same order before and after the copy', () =>
    fresh(async ({ engine, copied }) => {
      const opened = await engine.open(source);
      const view: View = { ...BY_SCORE, filters: [{ column: 'value.score', op: '>', value: '995' }] };
      const expected = sorted.filter((id) => (score(id) ?? -1) > 995).map(String);
      const exported = async (name: string): Promise<string[]> => {
        const target = path.join(results.dir, name);
        await engine.export({ handle: opened.handle, view }, { path: target, format: 'csv' });
        return (await fs.readFile(target, 'utf8')).trim().split('\n').slice(1).map((l) => l.split(',')[0]);
      };
      assert.deepEqual(await exported('early.csv'), expected);
      await copied();
      assert.deepEqual(await exported('late.csv'), expected);
    }));

  it('cancels a request while the copy goes on, and the copy still completes', () =>
    fresh(async ({ engine, copied }) => {
      const opened = await engine.open(source);
      const abort = new AbortController();
      const sorting = engine.page(opened.handle, BY_SCORE, 0, 200, abort.signal);
      abort.abort();
      const err = await sorting.then(
        () => undefined,
        (e: unknown) => e,
      );
      // a sort that finished before the cancel arrived is no failure; a cancelled one says so
      if (err !== undefined) assert.ok(isEngineError(err) && err.kind === 'cancelled', String(err));
      await copied();
      assert.deepEqual(await idsOf(engine, opened.handle, BY_SCORE, 0, 5), sorted.slice(0, 5));
    }));

  it('deletes the copy when the result is closed and copies are not kept, also while it is being made', () =>
    fresh(async ({ engine, copied, log }) => {
      const workFiles = async (): Promise<string[]> => {
        const root = path.join(results.dir, 'engine');
        const dirs = (await fs.readdir(root)).filter((d) => d.startsWith('engine-'));
        return (await Promise.all(dirs.map(async (d) => (await fs.readdir(path.join(root, d))).filter((f) => f.startsWith('result-'))))).flat();
      };
      const early = await engine.open(source);
      await engine.closeHandle(early.handle);
      assert.deepEqual(await workFiles(), []);

      const late = await engine.open(source);
      await copied();
      assert.deepEqual(await idsOf(engine, late.handle, {}, TOTAL - 1, 5), [TOTAL - 1]);
      await engine.closeHandle(late.handle);
      assert.deepEqual(await workFiles(), []);
      assert.ok(!log.some((l) => /stays read from its files/.test(l)), log.join('\n'));
    }));
});
