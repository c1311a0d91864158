// A console statement's kept rows on the real engine: a result larger than the engine's memory
// limit is served whole and in its order while the engine keeps to about its limit (the rows
// spill to its temp folder, they are not held in the process), a statement cancelled part-way
// and a closed statement leave no kept rows behind, and statements that cannot be wrapped in a
// CREATE TABLE … AS (PRAGMA, EXPLAIN, a transaction the user began) still show their rows.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineClient } from '../../../src/engine/engineClient';
import { isEngineError } from '../../../src/engine/engineErrors';
import { HOST_SCRIPT } from './sampleResults';

const MiB = 2 ** 20;
const LIMIT_MB = 128;
const WINDOW = 200;
/** rows of about 500 bytes: about 1 GiB, eight times the memory limit */
const ROWS = 2_000_000;
const PAD = 500;
/** row i: i, and a letter of its own repeated (no ORDER BY: a sort of 1 GiB needs more than this limit) */
const BIG = `SELECT i, repeat(chr(97 + (i % 26)::INTEGER), ${PAD}) AS pad FROM range(${ROWS}) t(i)`;

/** The engine process's peak resident memory, in MiB (Linux). */
async function peakMib(engine: EngineClient): Promise<number> {
  const status = await fs.readFile(`/proc/${engine.processId}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

/** What the engine holds in kept console tables: tables, and bytes in memory or spilled. */
async function held(engine: EngineClient): Promise<{ tables: number; bytes: number }> {
  const tables = await engine.sql("SELECT count(*) FROM duckdb_tables() WHERE database_name = 'memory' AND schema_name = 'dq_console'", 0, 1);
  const bytes = await engine.sql("SELECT coalesce(sum(memory_usage_bytes + temporary_storage_bytes), 0) FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE'", 0, 1);
  return { tables: Number(tables.rows[0][0]), bytes: Number(bytes.rows[0][0]) };
}

describe('engine: a console statement\'s kept rows', function () {
  this.timeout(180_000);
  let dir: string;
  let engine: EngineClient;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-console-rows-'));
    engine = new EngineClient({ hostScript: HOST_SCRIPT, tempDir: path.join(dir, 'engine'), memoryLimitMb: LIMIT_MB });
  });

  afterEach(async () => {
    await engine.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('serves a result larger than the memory limit whole and in order, the engine keeping to about its limit', async function () {
    if (process.platform !== 'linux') this.skip();
    const first = await engine.sqlKept(BIG, WINDOW);
    assert.equal(first.statementKind, 'SELECT');
    assert.deepEqual(first.columns.map((c) => c.name), ['i', 'pad']);
    const expected = (i: number): unknown[] => [i, String.fromCharCode(97 + (i % 26)).repeat(PAD)];
    const rowsOf = (from: number, count: number): unknown[][] => Array.from({ length: count }, (_, k) => expected(from + k));
    const numbered = (rows: unknown[][]): unknown[][] => rows.map(([i, pad]) => [Number(i), pad]);
    assert.deepEqual(numbered(first.rows), rowsOf(0, WINDOW));
    assert.equal(await engine.keptCount(first.id), ROWS);
    assert.deepEqual(numbered(await engine.keptRows(first.id, ROWS / 2 + 13, WINDOW)), rowsOf(ROWS / 2 + 13, WINDOW));
    assert.deepEqual(numbered(await engine.keptRows(first.id, ROWS - WINDOW, WINDOW * 2)), rowsOf(ROWS - WINDOW, WINDOW), 'the last rows, and no more');
    const peak = await peakMib(engine);
    // held whole in the process, the result alone would take about 1 GiB (over 1.5 GiB at its peak)
    assert.ok(peak < LIMIT_MB + 384, `the engine peaked at ${Math.round(peak)} MiB for a ${LIMIT_MB} MiB limit and a result of about ${Math.round((ROWS * PAD) / MiB)} MiB`);
    await engine.dropKept(first.id);
    assert.deepEqual(await held(engine), { tables: 0, bytes: 0 }, 'closed, its rows are let go, in memory and on disk');
  });

  it('keeps the order of an ORDER BY', async () => {
    const first = await engine.sqlKept('SELECT i FROM range(300000) t(i) ORDER BY i DESC', WINDOW);
    const from = (n: number, count: number): number[] => Array.from({ length: count }, (_, k) => n - k);
    assert.deepEqual(first.rows.map((r) => Number(r[0])), from(299_999, WINDOW));
    assert.deepEqual((await engine.keptRows(first.id, 150_000, WINDOW)).map((r) => Number(r[0])), from(149_999, WINDOW));
  });

  it('stops a statement cancelled while its rows are kept, and keeps none of them', async () => {
    const abort = new AbortController();
    // slow rows (a hash of a long text each): the statement is still running when it is cancelled
    const running = engine.sqlKept('SELECT i, md5(repeat(i::VARCHAR, 200)) AS h FROM range(5000000) t(i)', WINDOW, abort.signal);
    const outcome = running.then(
      () => assert.fail('cancelled'),
      (e: unknown) => e,
    );
    // cancelled once some of its rows are in the table being made; watched until it answers
    let settled = false;
    void outcome.finally(() => (settled = true));
    let most = 0;
    while (!settled) {
      most = Math.max(most, (await held(engine)).bytes);
      if (most >= MiB && !abort.signal.aborted) abort.abort();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(abort.signal.aborted, 'the statement was still running when some of its rows were in');
    const err = await outcome;
    // run to its end, it would have kept about 300 MiB
    assert.ok(most < 64 * MiB, `it stopped when cancelled, having kept ${Math.round(most / MiB)} MiB`);
    assert.ok(isEngineError(err) && err.kind === 'cancelled', String(err));
    assert.deepEqual(await held(engine), { tables: 0, bytes: 0 });
    const next = await engine.sqlKept('SELECT 42 AS answer', WINDOW);
    assert.deepEqual(next.rows, [[42]]);
    assert.equal(next.total, 1);
  });

  it('keeps the rows of a statement inside a transaction the user began', async () => {
    // a statement before it: the kept rows' schema is there when the transaction begins
    await engine.dropKept((await engine.sqlKept('SELECT 1 AS one', WINDOW)).id);
    const first = await engine.sqlKept('BEGIN; CREATE TABLE tx_rows AS SELECT * FROM range(1000) t(x); SELECT x FROM tx_rows ORDER BY x', WINDOW);
    assert.deepEqual(first.rows.map((r) => Number(r[0])), Array.from({ length: WINDOW }, (_, i) => i));
    assert.equal(await engine.keptCount(first.id), 1000);
    assert.deepEqual((await engine.keptRows(first.id, 990, WINDOW)).map((r) => Number(r[0])), [990, 991, 992, 993, 994, 995, 996, 997, 998, 999]);
    await engine.dropKept(first.id);
    assert.equal((await held(engine)).tables, 0);
  });

  it('keeps the rows of statements that cannot be wrapped, and of queries with a `;` in a string or a comment after them', async () => {
    const pragma = await engine.sqlKept("CREATE TABLE p (a INTEGER, b VARCHAR); PRAGMA table_info('p')", WINDOW);
    assert.deepEqual(pragma.rows.map((r) => r[1]), ['a', 'b']);
    const explain = await engine.sqlKept('EXPLAIN SELECT 1', WINDOW);
    assert.equal(explain.statementKind, 'EXPLAIN');
    assert.ok(explain.rows.length > 0);
    const quoted = await engine.sqlKept("SELECT 1 AS one; SELECT 'a;b' AS s, 2 AS s -- the last\n;", WINDOW);
    assert.deepEqual(quoted.columns.map((c) => c.name), ['s', 's']);
    assert.deepEqual(quoted.rows, [['a;b', 2]]);
    // DuckDB makes a PIVOT without IN two statements: the text has one, and is run as it is
    const pivot = await engine.sqlKept("CREATE TABLE sales (region VARCHAR, n INTEGER); INSERT INTO sales VALUES ('east', 1), ('west', 2); PIVOT sales ON region USING sum(n)", WINDOW);
    assert.deepEqual(pivot.columns.map((c) => c.name), ['east', 'west']);
    assert.deepEqual(pivot.rows.map((r) => r.map(Number)), [[1, 2]]);
    for (const kept of [pragma, explain, quoted, pivot]) await engine.dropKept(kept.id);
    assert.equal((await held(engine)).tables, 0);
  });

  it('shows the error of a statement that fails part-way, and keeps none of its rows', async () => {
    const failing = "SELECT CAST(CASE WHEN i = 300000 THEN 'n/a' ELSE i::VARCHAR END AS INTEGER) AS v FROM range(400000) t(i)";
    const err = await engine.sqlKept(failing, WINDOW).then(
      () => assert.fail('the statement fails'),
      (e: unknown) => e,
    );
    assert.ok(isEngineError(err), String(err));
    assert.match(err.message, /Could not convert string 'n\/a'/);
    assert.deepEqual(await held(engine), { tables: 0, bytes: 0 });
  });
});
