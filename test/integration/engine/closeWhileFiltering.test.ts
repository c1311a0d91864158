// A preview closed while its WHERE still runs: the engine stops that work, so the next preview
// (of the same result or another) answers at once instead of waiting behind it. The WHERE here
// is true for every row but only after the engine has counted billions of numbers: left to run,
// it would hold the engine for minutes (longer than this test's time limit). And a process that
// does not answer a cancel at all (a query DuckDB does not interrupt; here the process is held
// still) is stopped and started afresh, so that nothing waits behind it for ever.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import type { EngineClient } from '../../../src/engine/engineClient';
import { isEngineError } from '../../../src/engine/engineErrors';
import { SampleResults, type DownloadedResult } from './sampleResults';

const ENDLESS_WHERE = '(SELECT count(*) FROM range(300000000000) t(x) WHERE x % 7 = 3) > 0';

describe('engine: a preview closed while its WHERE runs', function () {
  this.timeout(60_000);
  let samples: SampleResults;
  let result: DownloadedResult;
  let engine: EngineClient;

  before(async () => {
    samples = await SampleResults.start();
    result = await samples.download('canvas_logs', 'web_logs', 'jsonl');
  });

  beforeEach(() => {
    engine = samples.engine({ keptCopiesMb: 64 });
  });

  afterEach(async () => {
    await engine.dispose();
  });

  /** The engine's process: the one child of this process that runs the engine host script. */
  function enginePid(): number {
    const pids = execFileSync('pgrep', ['-P', String(process.pid), '-f', 'engineHost'], { encoding: 'utf8' }).trim().split('\n').map(Number);
    assert.equal(pids.length, 1, `one engine process: ${pids.join(', ')}`);
    return pids[0];
  }

  it('stops a process that does not answer a cancel, answers the request as cancelled, and serves the next one from a fresh process', async () => {
    await engine.dispose();
    engine = samples.engine({ keptCopiesMb: 64, stuckAfterCancelMs: 1_000 });
    const opened = await engine.open({ ...result, format: 'jsonl' });
    const stuck = enginePid();
    process.kill(stuck, 'SIGSTOP');
    const reads = new AbortController();
    const page = engine.page(opened.handle, { where: '"key.id" IS NOT NULL' }, 0, 10, reads.signal);
    await new Promise((resolve) => setTimeout(resolve, 300)); // sent, never answered
    reads.abort();
    await assert.rejects(page, (err: unknown) => isEngineError(err) && err.kind === 'cancelled');
    const rows = await engine.page(opened.handle, {}, 0, 10);
    assert.equal(rows.rows.length, 10, 'the result, opened again in the new process');
    assert.notEqual(enginePid(), stuck, 'a new process');
  });

  after(async () => {
    await samples.close();
  });

  it('closes a result while a read of its copy still runs: the read ends, then the result closes, and neither waits on the other', async () => {
    assert.equal((await engine.prepare({ ...result, format: 'jsonl' })).kept, true, 'the result is copied');
    const opened = await engine.open({ ...result, format: 'jsonl' });
    // a second or so of work, then every row: the read is under way when the close comes
    const view = { where: '(SELECT count(*) FROM range(200000000) t(x) WHERE x % 7 = 3) > 0' };
    const page = engine.page(opened.handle, view, 0, 10).then(
      (p) => `${p.rows.length} rows`,
      (err: unknown) => `failed: ${String(err)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const closed = engine.closeHandle(opened.handle).then(() => 'closed');
    const limit = new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 30 s'), 30_000).unref());
    assert.deepEqual(await Promise.all([Promise.race([page, limit]), Promise.race([closed, limit])]).then(([p, c]) => [/^(10 rows|failed: .*no longer open)/.test(p) ? 'read ended' : p, c]), ['read ended', 'closed']);
    const again = await engine.open({ ...result, format: 'jsonl' });
    assert.equal((await engine.page(again.handle, {}, 0, 10)).rows.length, 10, 'and the next preview reads it');
  });

  for (const kept of [false, true]) {
  it(`stops the WHERE's page and count when they are cancelled and the result closed: the next open pages at once${kept ? ' (a result copied for its preview)' : ''}`, async () => {
    if (kept) assert.equal((await engine.prepare({ ...result, format: 'jsonl' })).kept, true, 'the result is copied');
    const first = await engine.open({ ...result, format: 'jsonl' });
    const reads = new AbortController();
    const view = { where: ENDLESS_WHERE };
    // as the grid asks: the count and two pages at once
    const count = engine.count(first.handle, view, reads.signal);
    const pages = [engine.page(first.handle, view, 0, 200, reads.signal), engine.page(first.handle, view, 200, 200, reads.signal)];
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // under way
    reads.abort();
    for (const read of [count, ...pages]) await assert.rejects(read, /cancel/i);
    await engine.closeHandle(first.handle);

    const again = await engine.open({ ...result, format: 'jsonl' });
    const rows = await engine.page(again.handle, {}, 0, 10);
    assert.equal(rows.rows.length, 10, 'the new preview\'s first rows');
  });
  }
});
