import * as assert from 'node:assert/strict';
import type { KeptSqlPage } from '../../../src/engine/engineProtocol';
import { runSqlStatement, type PreviewEngine } from '../../../src/extension/preview/rowSource';
import { statementTitle } from '../../../src/extension/preview/sqlStatements';

/** An engine whose statement gives rows 0..total-1 of one column, kept after one run; counts its calls. */
function engine(total: number): PreviewEngine & { calls: string[] } {
  const rows = (offset: number, limit: number): unknown[][] => Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => [offset + i]);
  const fake = {
    calls: [] as string[],
    sqlKept: (_text: string, limit: number): Promise<KeptSqlPage & { id: string }> => {
      fake.calls.push('run');
      const first = rows(0, limit);
      return Promise.resolve({ id: 'k1', columns: [{ name: 'n', type: 'int64', sqlType: 'BIGINT' }], rows: first, offset: 0, statementKind: 'SELECT', ...(total <= limit ? { total } : {}) });
    },
    keptRows: (id: string, offset: number, limit: number): Promise<unknown[][]> => {
      fake.calls.push(`rows ${id} ${offset}`);
      return Promise.resolve(rows(offset, limit));
    },
    keptCount: (id: string): Promise<number> => {
      fake.calls.push(`count ${id}`);
      return Promise.resolve(total);
    },
    dropKept: (id: string): Promise<void> => {
      fake.calls.push(`drop ${id}`);
      return Promise.resolve();
    },
    hold: () => {
      fake.calls.push('hold');
      return () => fake.calls.push('release');
    },
  };
  return fake as unknown as PreviewEngine & { calls: string[] };
}

describe('a SQL statement as a preview source', () => {
  const signal = new AbortController().signal;

  it('runs the statement once, serves the first window from it and later windows from its kept rows', async () => {
    const e = engine(1_000);
    const source = await runSqlStatement(e, 'SELECT n FROM t', 200, signal);
    assert.equal(source.canShape, false, 'sort and filter are not offered over a statement');
    assert.deepEqual(await source.page({}, 0, 2, signal), [[0], [1]]);
    assert.deepEqual(await source.page({}, 800, 2, signal), [[800], [801]]);
    assert.equal(await source.count({}, signal), 1_000);
    assert.deepEqual(source.exportTarget({}), { kept: 'k1' }, 'an export writes the kept rows, not a new run');
    await source.close();
    assert.deepEqual(e.calls, ['hold', 'run', 'rows k1 800', 'count k1', 'release', 'drop k1'], 'the engine is held while the grid shows the kept rows');
  });

  it('knows the row count of a result that fits its first window without asking again', async () => {
    const e = engine(17);
    const source = await runSqlStatement(e, 'SELECT 1', 200, signal);
    assert.equal(await source.count({}, signal), 17);
    assert.deepEqual(await source.page({}, 200, 200, signal), []);
    assert.deepEqual(e.calls, ['hold', 'run']);
  });

  it("is titled with the statement's first line, shortened, as its failure would be", async () => {
    const text = 'SELECT value.name, count(*) AS users_per_name FROM canvas.users\nGROUP BY 1';
    const source = await runSqlStatement(engine(3), text, 200, signal);
    assert.equal(source.title, 'SELECT value.name, count(*) AS users_per…');
    assert.equal(source.title, statementTitle(text));
    assert.equal((await runSqlStatement(engine(3), '  \n', 200, signal)).title, 'SQL');
  });
});
