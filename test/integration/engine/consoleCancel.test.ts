// A SQL console statement cancelled while it runs and its rows are kept. The engine stops a
// query by interrupting its connection, and an interrupt that lands between two of the queries
// a statement is run and kept with is lost: a short statement can complete with the cancel
// already noted. Such a statement is answered as cancelled all the same, and nothing is kept.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineClient } from '../../../src/engine/engineClient';
import { isEngineError } from '../../../src/engine/engineErrors';
import { HOST_SCRIPT } from './sampleResults';

/** The kept console tables in the engine. */
async function keptTables(engine: EngineClient): Promise<number> {
  const page = await engine.sql("SELECT count(*) FROM duckdb_tables() WHERE database_name = 'memory' AND schema_name = 'dq_console'", 0, 1);
  return Number(page.rows[0][0]);
}

describe('engine: a console statement cancelled as it runs', function () {
  this.timeout(120_000);
  let dir: string;
  let engine: EngineClient;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-console-cancel-'));
    engine = new EngineClient({ hostScript: HOST_SCRIPT, tempDir: path.join(dir, 'engine') });
  });

  afterEach(async () => {
    await engine.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  });

  for (const [kind, text] of [
    ['a query (kept by CREATE TABLE … AS)', 'SELECT i, i * 2 AS twice FROM range(100) t(i)'],
    ['a statement kept as it is run (PRAGMA)', 'PRAGMA database_list'],
  ]) {
    it(`answers ${kind} cancelled at once as cancelled, and keeps none of its rows`, async () => {
      // a short statement: it may well be complete before any interrupt lands on one of its queries
      for (let attempt = 0; attempt < 5; attempt++) {
        const abort = new AbortController();
        const running = engine.sqlKept(text, 200, abort.signal);
        abort.abort();
        const err = await running.then(
          (page) => assert.fail(`attempt ${attempt + 1}: answered ${page.rows.length} rows, kept as ${page.id}, though cancelled`),
          (e: unknown) => e,
        );
        assert.ok(isEngineError(err) && err.kind === 'cancelled', String(err));
        assert.equal(await keptTables(engine), 0, `attempt ${attempt + 1}: nothing is kept`);
      }
      const next = await engine.sqlKept(text, 200);
      assert.ok(next.rows.length > 0, 'run again without a cancel, it answers');
      await engine.dropKept(next.id);
    });
  }
});
