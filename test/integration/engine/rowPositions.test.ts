// Pages deep into a sorted view of a copied result: each must hold exactly the rows the whole
// sort puts there, whether the engine put only the rows around the page in order or all of
// them, for every kind of first key (many values, text, values in the result's order, one
// value in every row), both directions, a second key, filters and the last page.

import * as assert from 'node:assert/strict';
import type { ResultSource, View } from '../../../src/engine/engineProtocol';
import { BY_SCORE, idsOf, range, row, TOTAL, withEngine, writeResult, type LoggedEngine } from './copiedResult';
import { SampleResults } from './sampleResults';

/** The result's ids in a view's order, from the rows as the engine shows them (nulls last, ties in the result's order). */
function expectedIds(view: View, keep: (values: unknown[]) => boolean = () => true): number[] {
  const columns = ['key.id', 'value.score', 'value.label', 'meta.action', 'meta.ts'];
  const keys = (view.sort ?? []).map((s) => ({ at: columns.indexOf(s.column), sign: s.descending ? -1 : 1 }));
  const numeric = new Set([0, 1]);
  const rows = range(0, TOTAL).map(row).filter(keep);
  const compare = (a: unknown[], b: unknown[]): number => {
    for (const { at, sign } of keys) {
      const x = a[at];
      const y = b[at];
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      const order = numeric.has(at) ? Number(x) - Number(y) : String(x) < String(y) ? -1 : 1;
      if (order !== 0) return sign * order;
    }
    return Number(a[0]) - Number(b[0]);
  };
  return rows.sort(compare).map((r) => Number(r[0]));
}

describe('engine: pages deep into a sorted view', function () {
  this.timeout(180_000);
  let results: SampleResults;
  let source: ResultSource;

  before(async () => {
    results = await SampleResults.start();
    source = await writeResult(results.dir);
  });

  after(async () => {
    await results.close();
  });

  const copiedResult = (test: (e: LoggedEngine, handle: string) => Promise<void>): Promise<void> =>
    withEngine(results, { keptCopiesMb: 0 }, async (e) => {
      const { handle } = await e.engine.open(source);
      await e.copied();
      await test(e, handle);
    });

  /** The rows the largest table of row positions holds. */
  const mostPositions = async (e: LoggedEngine): Promise<number> =>
    Number((await e.engine.sql(`SELECT coalesce(max(estimated_size), 0) FROM duckdb_tables() WHERE table_name LIKE 'positions_%'`, 0, 1)).rows[0][0]);

  it('puts only the rows around a deep page in order, and the next pages read them', () =>
    copiedResult(async (e, handle) => {
      const sorted = expectedIds(BY_SCORE);
      for (const offset of [150_000, 150_200, 149_800, 360_000]) {
        assert.deepEqual(await idsOf(e.engine, handle, BY_SCORE, offset, 200), sorted.slice(offset, offset + 200), `from row ${offset}`);
      }
      const kept = await mostPositions(e);
      assert.ok(kept > 0 && kept < TOTAL / 10, `the positions kept for a page: ${kept} of ${TOTAL} rows`);
    }));

  it('places pages exactly for every kind of first key, direction, second key and filter', () =>
    copiedResult(async (e, handle) => {
      const views: [string, View, number[], ((values: unknown[]) => boolean)?][] = [
        ['score ascending', { sort: [{ column: 'value.score', descending: false }] }, [50_000, 300_000]],
        ['label then score', { sort: [{ column: 'value.label', descending: false }, { column: 'value.score', descending: true }] }, [123_456, TOTAL - 50]],
        ['id descending (values in the result order)', { sort: [{ column: 'key.id', descending: true }] }, [300_000, 12_345]],
        ['one value in every row', { sort: [{ column: 'meta.action', descending: false }] }, [200_000]],
      ];
      const filtered: View = { ...BY_SCORE, filters: [{ column: 'value.label', op: 'contains', value: '1' }], where: `"key.id" % 3 <> 0` };
      const kept = (values: unknown[]): boolean => String(values[2]).includes('1') && Number(values[0]) % 3 !== 0;
      views.push(['score, filtered', filtered, [20_000, 20_150], kept]);
      for (const [name, view, offsets, keep] of views) {
        const sorted = expectedIds(view, keep);
        for (const offset of offsets) {
          assert.deepEqual(await idsOf(e.engine, handle, view, offset, 100), sorted.slice(offset, offset + 100), `${name}, from row ${offset}`);
        }
      }
    }));
});
