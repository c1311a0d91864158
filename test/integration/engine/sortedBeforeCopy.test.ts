// A sorted page deep into a result of several files not yet copied into the engine's own table:
// DuckDB sorting every row of the files for it ran out of memory on large results, so the page
// waits for the copy and is read from it, with the rows the copied result has there.

import * as assert from 'node:assert/strict';
import type { ResultSource } from '../../../src/engine/engineProtocol';
import { BY_SCORE, COPIED, withEngine, writeResult } from './copiedResult';
import { SampleResults, expectedRow, jsonlRecords, type JsonRecord } from './sampleResults';

/** far past the 5,000 rows a sort of the files is still asked to keep */
const DEEP = 200_000;
const WINDOW = 200;

describe('engine: a sorted page deep into a result not yet copied', function () {
  this.timeout(180_000);
  let results: SampleResults;
  let source: ResultSource;
  /** the records of the page, as the view sorts them: by score, highest first, nulls last, ties in the result's order */
  let pageRecords: JsonRecord[];

  before(async () => {
    results = await SampleResults.start();
    source = await writeResult(results.dir);
    const records = await jsonlRecords(source.paths);
    const rank = (r: JsonRecord): number => (r.value?.score as number | null) ?? -Infinity;
    const order = records.map((r, place) => ({ r, place })).sort((a, b) => rank(b.r) - rank(a.r) || a.place - b.place);
    pageRecords = order.slice(DEEP, DEEP + WINDOW).map(({ r }) => r);
  });

  after(async () => {
    await results.close();
  });

  it('waits for the copy, then answers with the rows the copied result has there', () =>
    withEngine(results, { keptCopiesMb: 0 }, async ({ engine, copied, log }) => {
      const copyDone = (): boolean => log.some((line) => COPIED.test(line));
      const opened = await engine.open(source);
      assert.ok(!copyDone(), 'the result is still being copied when the page is asked for');
      const page = await engine.page(opened.handle, BY_SCORE, DEEP, WINDOW);
      // the copy's log line is written before the page is read from the copy; it comes on
      // stderr, beside the answer's channel, so it is given a moment to arrive
      for (let waited = 0; !copyDone() && waited < 250; waited += 25) await new Promise((resolve) => setTimeout(resolve, 25));
      assert.ok(copyDone(), 'the page waited for the copy');
      assert.deepEqual(page.rows, pageRecords.map((r) => expectedRow(r, opened.columns)));
      await copied();
      assert.deepEqual((await engine.page(opened.handle, BY_SCORE, DEEP, WINDOW)).rows, page.rows, 'the same rows once the copy is complete');
    }));
});
