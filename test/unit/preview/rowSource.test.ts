import * as assert from 'node:assert/strict';
import type { SqlPage } from '../../../src/engine/engineProtocol';
import { runSqlStatement, type PreviewEngine } from '../../../src/extension/preview/rowSource';

/** An engine whose SQL returns rows 0..total-1 of one column, and counts its runs. */
function engine(total: number, statementKind = 'SELECT'): PreviewEngine & { runs: number } {
  const fake = {
    runs: 0,
    sql: (_text: string, offset: number, limit: number): Promise<SqlPage> => {
      fake.runs += 1;
      const rows = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => [offset + i]);
      return Promise.resolve({ columns: [{ name: 'n', type: 'int64', sqlType: 'BIGINT' }], rows, offset, statementKind });
    },
  };
  return fake as unknown as PreviewEngine & { runs: number };
}

describe('a SQL statement as a preview source', () => {
  const signal = new AbortController().signal;

  it('serves the first window from the first run and later windows by running the query again', async () => {
    const e = engine(1_000);
    const source = await runSqlStatement(e, 'SELECT n FROM t', 200, signal);
    assert.equal(source.canShape, false, 'sort and filter are not offered over a statement');
    assert.deepEqual(await source.page({}, 0, 2, signal), [[0], [1]]);
    assert.equal(e.runs, 1);
    assert.deepEqual(await source.page({}, 800, 2, signal), [[800], [801]]);
    assert.equal(e.runs, 2);
    assert.equal(await source.count({}, signal), undefined, 'the row count of a long query is not guessed');
  });

  it('knows the row count of a short result, and never runs other statements twice', async () => {
    assert.equal(await (await runSqlStatement(engine(17), 'SELECT 1', 200, signal)).count({}, signal), 17);
    const e = engine(1, 'CREATE');
    const source = await runSqlStatement(e, 'CREATE VIEW v AS SELECT 1', 200, signal);
    await source.page({}, 0, 200, signal);
    await source.page({}, 200, 200, signal);
    assert.equal(e.runs, 1);
  });
});
