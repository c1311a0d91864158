// Rows whose values are many MiB long: a page carries each long text value as its start and
// its length, so a page stays small in the engine, the extension host and the webview
// whatever the rows hold; the whole value of one cell comes when asked for.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { SchemaEnvelope } from '../../../src/core/contract';
import { EngineClient } from '../../../src/engine/engineClient';
import { CUT_CHARS, type CutValue } from '../../../src/engine/engineProtocol';
import { HOST_SCRIPT } from './sampleResults';

const MiB = 2 ** 20;
const ROWS = 6;

const schema: SchemaEnvelope = {
  version: 1,
  schema: {
    type: 'object',
    properties: {
      key: { type: 'object', properties: { id: { type: 'integer', format: 'int64' } } },
      value: { type: 'object', properties: { doc: { type: 'string' }, note: { type: 'string' } } },
    },
  },
};

/** Row `id`'s long value: 3 MiB, each row's its own, ending in a mark. */
const doc = (id: number): string => `${String(id).repeat(3 * MiB)}<end ${id}>`;

function record(id: number): string {
  return JSON.stringify({ meta: { action: 'U', ts: '2026-01-01T00:00:00Z' }, key: { id }, value: { doc: doc(id), note: `short ${id}` } });
}

describe('engine: rows with values of many MiB', function () {
  this.timeout(120_000);
  let dir: string;
  let engine: EngineClient;
  let file: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-long-'));
    file = path.join(dir, 'part-1.jsonl.gz');
    await fs.writeFile(file, gzipSync(Array.from({ length: ROWS }, (_, i) => record(i)).join('\n') + '\n'));
    engine = new EngineClient({ hostScript: HOST_SCRIPT, tempDir: path.join(dir, 'engine') });
  });
  after(async () => {
    await engine.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  });

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
    const opened = await engine.open({ paths: [file], schema });
    assertCut((await engine.page(opened.handle, {}, 0, ROWS)).rows, [0, 1, 2, 3, 4, 5]);
    assertCut((await engine.page(opened.handle, { sort: [{ column: 'key.id', descending: true }] }, 0, 2)).rows, [5, 4]);
    assertCut((await engine.page(opened.handle, { where: `"value.note" = 'short 3'` }, 0, 10)).rows, [3]);

    assert.equal(await engine.cell(opened.handle, {}, 2, 1), doc(2));
    assert.equal(await engine.cell(opened.handle, { sort: [{ column: 'key.id', descending: true }] }, 0, 1), doc(5));
    assert.equal(await engine.cell(opened.handle, {}, 4, 2), 'short 4');
    await engine.closeHandle(opened.handle);
  });

  it("cuts a console statement's long values too, and reads one whole on demand", async () => {
    await engine.registerView('canvas.docs', { paths: [file], schema });
    const first = await engine.sqlKept('SELECT "key.id", "value.doc", "value.note" FROM canvas.docs ORDER BY "key.id"', 2);
    assertCut(first.rows, [0, 1]);
    assertCut(await engine.keptRows(first.id, 2, 3), [2, 3, 4]);
    assert.equal(await engine.keptCell(first.id, 4, 1), doc(4));
    await engine.dropKept(first.id);
  });
});
