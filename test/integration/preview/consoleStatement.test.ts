// A SQL console statement as its grid pages it, on the real engine: run once, every row shown
// once in the order it came (a GROUP BY without ORDER BY gives no fixed order, so running it
// again per window would show groups twice and lose others), a row count once all are in, the
// statements before the last run only once, and an export of exactly the rows shown.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineClient } from '../../../src/engine/engineClient';
import { isEngineError } from '../../../src/engine/engineErrors';
import { runSqlStatement, type RowSource } from '../../../src/extension/preview/rowSource';
import { HOST_SCRIPT } from '../engine/sampleResults';
const WINDOW = 200;

describe('a console statement\'s rows in the grid', function () {
  this.timeout(120_000);
  let dir: string;
  let engine: EngineClient;
  const signal = new AbortController().signal;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-console-'));
    engine = new EngineClient({ hostScript: HOST_SCRIPT, tempDir: path.join(dir, 'engine') });
  });

  after(async () => {
    await engine.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** Every row, window after window, as the grid reads them. */
  async function allRows(source: RowSource): Promise<unknown[][]> {
    const rows: unknown[][] = [];
    for (let offset = 0; ; offset += WINDOW) {
      const page = await source.page({}, offset, WINDOW, signal);
      rows.push(...page);
      if (page.length < WINDOW) return rows;
    }
  }

  it('shows every group of a GROUP BY without ORDER BY once, and counts them', async () => {
    const groups = 20_000;
    const source = await runSqlStatement(engine, `SELECT i % ${groups} AS g, count(*) AS n FROM range(2000000) t(i) GROUP BY g`, WINDOW, signal);
    try {
      const rows = await allRows(source);
      assert.equal(rows.length, groups);
      assert.equal(new Set(rows.map((r) => String(r[0]))).size, groups, 'no group twice, none missing');
      assert.ok(rows.every((r) => Number(r[1]) === 100));
      assert.equal(await source.count({}, signal), groups);
    } finally {
      await source.close();
    }
  });

  it('runs the statements before the last once, however far the grid pages', async () => {
    const table = `hits_${Date.now()}`;
    const source = await runSqlStatement(engine, `CREATE TABLE ${table} (x INTEGER); INSERT INTO ${table} SELECT * FROM range(500); SELECT x FROM ${table} ORDER BY x`, WINDOW, signal);
    try {
      const rows = await allRows(source);
      assert.deepEqual(rows.map((r) => Number(r[0])), Array.from({ length: 500 }, (_, i) => i));
      assert.equal(await source.count({}, signal), 500);
      const inserted = await runSqlStatement(engine, `SELECT count(*) AS n FROM ${table}`, WINDOW, signal);
      assert.equal(Number((await inserted.page({}, 0, 1, signal))[0][0]), 500, 'the INSERT ran once');
      await inserted.close();
    } finally {
      await source.close();
    }
  });

  it('exports exactly the rows shown, under their own names, and lets go of them when closed', async () => {
    // run again, the statement would give other numbers
    const source = await runSqlStatement(engine, 'SELECT i AS id, CAST(random() * 1000000000 AS BIGINT) AS n FROM range(3000) t(i)', WINDOW, signal);
    const shown = await allRows(source);
    const out = path.join(dir, 'console.csv');
    const target = source.exportTarget({});
    assert.deepEqual((await engine.export(target, { path: out, format: 'csv' })).rows, shown.length);
    const lines = (await fs.readFile(out, 'utf8')).trim().split('\n');
    assert.equal(lines[0], 'id,n');
    assert.deepEqual(lines.slice(1), shown.map((r) => `${String(r[0])},${String(r[1])}`));
    await source.close();
    const after = await source.page({}, 1000, WINDOW, signal).then(
      () => assert.fail('the rows are let go'),
      (e: unknown) => e,
    );
    assert.ok(isEngineError(after) && after.kind === 'cancelled', String(after));
    assert.match(after.message, /newer statement/);
  });

  it('shows the error of a statement that fails after its first rows, never a result cut short', async () => {
    const failing = "SELECT CAST(CASE WHEN i = 300000 THEN 'n/a' ELSE i::VARCHAR END AS INTEGER) AS v FROM range(400000) t(i)";
    const err = await runSqlStatement(engine, failing, WINDOW, signal).then(
      () => assert.fail('the statement fails'),
      (e: unknown) => e,
    );
    assert.ok(isEngineError(err), String(err));
    assert.match(err.message, /Could not convert string 'n\/a'/);
  });

  it('runs the first statements of several consoles at once, each to its own rows', async () => {
    const fresh = new EngineClient({ hostScript: HOST_SCRIPT, tempDir: path.join(dir, 'fresh') });
    try {
      const sources = await Promise.all([1, 2, 3, 4].map((n) => runSqlStatement(fresh, `SELECT ${n} AS n FROM range(${n * 100})`, WINDOW, signal)));
      assert.deepEqual(await Promise.all(sources.map((s) => s.count({}, signal))), [100, 200, 300, 400]);
      await Promise.all(sources.map((s) => s.close()));
    } finally {
      await fresh.dispose();
    }
  });

  it('stops a statement cancelled before its first rows, and the engine answers the next', async () => {
    const abort = new AbortController();
    const running = runSqlStatement(engine, 'SELECT count(*) FROM range(400000) a(x), range(400000) b(y) WHERE (x * 7 + y) % 13 = 5', WINDOW, abort.signal);
    setTimeout(() => abort.abort(), 300);
    const err = await running.then(
      () => assert.fail('cancelled'),
      (e: unknown) => e,
    );
    assert.ok(isEngineError(err) && err.kind === 'cancelled', String(err));
    const next = await runSqlStatement(engine, 'SELECT 42 AS answer', WINDOW, signal);
    assert.deepEqual(await next.page({}, 0, 1, signal), [[42]]);
    assert.equal(await next.count({}, signal), 1);
    await next.close();
  });
});
