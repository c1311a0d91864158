// Copies of results kept between previews: a result copied once (by a preview, or prepared
// after its download) opens in a later engine straight from its copy, with the same answers;
// files changed since are read anew, a damaged copy is replaced, a cancelled preparation keeps
// nothing, and one result open under two handles is copied once.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isEngineError } from '../../../src/engine/engineErrors';
import type { ResultSource } from '../../../src/engine/engineProtocol';
import type { EngineClient } from '../../../src/engine/engineClient';
import { BY_SCORE, FILE_ROWS, idsOf, range, row, sortedIds, TOTAL, withEngine, writeResult } from './copiedResult';
import { SampleResults } from './sampleResults';

const USED = /the kept copy of its (\d+) rows is used/;
const COPIED_ANEW = /rows copied/;

describe('engine: copies of results kept between previews', function () {
  this.timeout(120_000);
  let results: SampleResults;
  let tempDir: string;
  const sorted = sortedIds();

  before(async () => {
    results = await SampleResults.start();
  });

  after(async () => {
    await results.close();
  });

  let n = 0;
  /** A result of its own and an engine folder of its own for each test. */
  async function fresh(): Promise<ResultSource> {
    n++;
    tempDir = path.join(results.dir, `engine-${n}`);
    return writeResult(path.join(results.dir, `result-${n}`));
  }
  const engine = (test: Parameters<typeof withEngine>[2], keptCopiesMb = 64): Promise<void> => withEngine(results, { tempDir, keptCopiesMb }, test);
  const keptFiles = async (): Promise<string[]> => (await fs.readdir(path.join(tempDir, 'copies')).catch(() => [])).filter((f) => f.endsWith('.duckdb'));

  /** Pages, a far page, a sort, a deep sorted page and the count, as the files hold them. */
  async function assertWholeResult(e: { engine: EngineClient }, handle: string, when: string): Promise<void> {
    assert.deepEqual((await e.engine.page(handle, {}, 0, 3)).rows, [row(0), row(1), row(2)], when);
    assert.equal(await e.engine.count(handle, {}), TOTAL, when);
    assert.deepEqual(await idsOf(e.engine, handle, {}, FILE_ROWS[0] - 2, 12), range(FILE_ROWS[0] - 2, FILE_ROWS[0] + 10), when);
    assert.deepEqual(await idsOf(e.engine, handle, BY_SCORE, 0, 200), sorted.slice(0, 200), when);
    assert.deepEqual(await idsOf(e.engine, handle, BY_SCORE, 200_000, 100), sorted.slice(200_000, 200_100), when);
  }

  it('prepares a copy that a later engine opens without reading the files again, with the same answers', async () => {
    const source = await fresh();
    await engine(async (e) => {
      assert.deepEqual(await e.engine.prepare(source), { rows: TOTAL, kept: true });
    });
    assert.equal((await keptFiles()).length, 1);
    await engine(async (e) => {
      const { handle } = await e.engine.open(source);
      await assertWholeResult(e, handle, 'from the kept copy');
      assert.equal(Number(e.log.find((l) => USED.test(l))?.match(USED)?.[1]), TOTAL, e.log.join('\n'));
      assert.ok(!e.log.some((l) => COPIED_ANEW.test(l)), 'the files are not copied again');
      await e.engine.closeHandle(handle);
    });
    assert.equal((await keptFiles()).length, 1, 'the copy is still kept after its second use');
  });

  it('keeps the copy a preview made once the preview closes', async () => {
    const source = await fresh();
    await engine(async (e) => {
      const { handle } = await e.engine.open(source);
      await e.copied();
      await assertWholeResult(e, handle, 'once copied');
      assert.deepEqual(await keptFiles(), [], 'nothing is kept while the preview is open');
      await e.engine.closeHandle(handle);
    });
    assert.equal((await keptFiles()).length, 1);
    await engine(async (e) => {
      const { handle } = await e.engine.open(source);
      await assertWholeResult(e, handle, 'reopened');
      assert.ok(e.log.some((l) => USED.test(l)), e.log.join('\n'));
    });
  });

  it('reads files changed since their copy was kept anew, never the stale copy', async () => {
    const source = await fresh();
    await engine(async (e) => void (await e.engine.prepare(source)));
    await writeResult(path.dirname(source.paths[0]), 'changed');
    await engine(async (e) => {
      const { handle } = await e.engine.open(source);
      assert.equal((await e.engine.page(handle, BY_SCORE, 0, 1)).rows[0][2], `changed ${sorted[0] % 97}`);
      assert.ok(!e.log.some((l) => USED.test(l)), e.log.join('\n'));
    });
  });

  it('replaces a kept copy that cannot be read with a new one', async () => {
    const source = await fresh();
    await engine(async (e) => void (await e.engine.prepare(source)));
    const [kept] = await keptFiles();
    await fs.writeFile(path.join(tempDir, 'copies', kept), 'not a database');
    await engine(async (e) => {
      const { handle } = await e.engine.open(source);
      await e.copied();
      await assertWholeResult(e, handle, 'copied anew');
      await e.engine.closeHandle(handle);
    });
    await engine(async (e) => {
      const { handle } = await e.engine.open(source);
      assert.ok(e.log.some((l) => USED.test(l)), e.log.join('\n'));
      assert.equal(await e.engine.count(handle, {}), TOTAL);
    });
  });

  it('keeps nothing when a preparation is cancelled, or when copies are not to be kept', async () => {
    const source = await fresh();
    await engine(async (e) => {
      const abort = new AbortController();
      const preparing = e.engine.prepare(source, abort.signal);
      setTimeout(() => abort.abort(), 50);
      const err = await preparing.then(
        () => undefined,
        (x: unknown) => x,
      );
      assert.ok(isEngineError(err) && err.kind === 'cancelled', String(err));
    });
    assert.deepEqual(await keptFiles(), []);
    await engine(async (e) => assert.deepEqual(await e.engine.prepare(source), { rows: TOTAL, kept: false }), 0);
    assert.deepEqual(await keptFiles(), []);
  });

  it('copies a result open under two handles once, and keeps it when the last one closes', async () => {
    const source = await fresh();
    await engine(async (e) => {
      const first = await e.engine.open(source);
      const preparing = e.engine.prepare(source);
      const second = await e.engine.open(source);
      assert.deepEqual(await preparing, { rows: TOTAL, kept: false }, 'a preview still has it open');
      await e.engine.closeHandle(first.handle);
      await assertWholeResult(e, second.handle, 'the other handle');
      assert.equal(e.log.filter((l) => COPIED_ANEW.test(l)).length, 1, e.log.join('\n'));
      assert.deepEqual(await keptFiles(), []);
      await e.engine.closeHandle(second.handle);
      assert.equal((await keptFiles()).length, 1);
    });
  });
});
