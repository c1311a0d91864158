// Rows whose values are many MiB long: a page carries each long text value as its start and
// its length, so a page stays small in the engine, the extension host and the webview
// whatever the rows hold; the whole value of one cell comes when asked for.

import * as assert from 'node:assert/strict';
import { CUT_CHARS, type CutValue } from '../../../src/engine/engineProtocol';
import { craftedResult, keyedSchema } from './sampleResults';

const MiB = 2 ** 20;
const ROWS = 6;

const schema = keyedSchema({ doc: { type: 'string' }, note: { type: 'string' } });

/** Row `id`'s long value: 3 MiB, each row's its own, ending in a mark. */
const doc = (id: number): string => `${String(id).repeat(3 * MiB)}<end ${id}>`;

function record(id: number): string {
  return JSON.stringify({ meta: { action: 'U', ts: '2026-01-01T00:00:00Z' }, key: { id }, value: { doc: doc(id), note: `short ${id}` } });
}

describe('engine: rows with values of many MiB', function () {
  this.timeout(120_000);
  const result = craftedResult('dq-long-', () => Array.from({ length: ROWS }, (_, i) => record(i)));

  /** A page's rows hold each long value cut, with its whole length, and stay small. */
  function assertCut(rows: unknown[][], ids: number[]): void {
    assert.ok(JSON.stringify(rows).length < rows.length * (CUT_CHARS + 500), 'a page carries no long value whole');
    assert.deepEqual(
      rows.map((r) => r[0]),
      ids.map(String),
    );
    for (const [i, row] of rows.entries()) {
      const cut = row[1] as CutValue;
      assert.equal(cut.cut, true);
      assert.equal(cut.length, doc(ids[i]).length);
      assert.equal(cut.start, doc(ids[i]).slice(0, CUT_CHARS));
      assert.equal(row[2], `short ${ids[i]}`, 'short values travel whole');
    }
  }

  it('pages, sorts and filters a result with the long values cut, and reads one whole on demand', async () => {
    const opened = await result.engine.open({ paths: [result.file], schema });
    assertCut((await result.engine.page(opened.handle, {}, 0, ROWS)).rows, [0, 1, 2, 3, 4, 5]);
    assertCut((await result.engine.page(opened.handle, { sort: [{ column: 'key.id', descending: true }] }, 0, 2)).rows, [5, 4]);
    assertCut((await result.engine.page(opened.handle, { where: `"value.note" = 'short 3'` }, 0, 10)).rows, [3]);

    assert.equal(await result.engine.cell(opened.handle, {}, 2, 1), doc(2));
    assert.equal(await result.engine.cell(opened.handle, { sort: [{ column: 'key.id', descending: true }] }, 0, 1), doc(5));
    assert.equal(await result.engine.cell(opened.handle, {}, 4, 2), 'short 4');
    await result.engine.closeHandle(opened.handle);
  });

  it("cuts a console statement's long values too, and reads one whole on demand", async () => {
    await result.engine.registerView('canvas.docs', { paths: [result.file], schema });
    const first = await result.engine.sqlKept('SELECT "key.id", "value.doc", "value.note" FROM canvas.docs ORDER BY "key.id"', 2);
    assertCut(first.rows, [0, 1]);
    assertCut(await result.engine.keptRows(first.id, 2, 3), [2, 3, 4]);
    assert.equal(await result.engine.keptCell(first.id, 4, 1), doc(4));
    await result.engine.dropKept(first.id);
  });
});
