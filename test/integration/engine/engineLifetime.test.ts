// When the engine's process runs: it starts on first use and stops after a quiet spell, but not
// while a result is open in it (its copy would be lost) or while a SQL console holds it (its
// tables live there); once those let go, it stops.

import * as assert from 'node:assert/strict';
import type { EngineClient } from '../../../src/engine/engineClient';
import { SampleResults, type DownloadedResult } from './sampleResults';

const IDLE_MS = 200;

/** Waits (as long as the test may) until the process has stopped. */
async function stopped(engine: EngineClient): Promise<void> {
  while (engine.processId !== undefined) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Several idle spells, long enough for an idle stop to have happened. */
const quietSpell = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, IDLE_MS * 6));

describe('engine: when its process runs', function () {
  this.timeout(60_000);
  let results: SampleResults;
  let users: DownloadedResult;
  let engine: EngineClient;

  before(async () => {
    results = await SampleResults.start();
    users = await results.download('canvas', 'users', 'jsonl');
  });

  beforeEach(() => {
    engine = results.engine({ idleMs: IDLE_MS });
  });

  afterEach(async () => {
    await engine.dispose();
  });

  after(async () => {
    await results.close();
  });

  it('starts on first use and stops when nothing has asked for a while', async () => {
    assert.equal(engine.processId, undefined, 'not before its first use');
    assert.deepEqual((await engine.sql('SELECT 1 AS one', 0, 1)).rows, [[1]]);
    assert.ok(engine.processId !== undefined);
    await stopped(engine);
    assert.deepEqual((await engine.sql('SELECT 2 AS two', 0, 1)).rows, [[2]], 'and starts again when asked');
  });

  it('keeps running while a result is open, and stops once it is closed', async () => {
    const opened = await engine.open(users);
    const pid = engine.processId;
    await quietSpell();
    assert.equal(engine.processId, pid, 'the same process still holds the open result');
    assert.equal((await engine.page(opened.handle, {}, 0, 5)).rows.length, 5);
    await engine.closeHandle(opened.handle);
    await stopped(engine);
  });

  it('keeps a console\'s tables while the console holds the engine, and stops once it lets go', async () => {
    const release = engine.hold();
    await engine.sql('CREATE TABLE picks AS SELECT 42 AS answer', 0, 1);
    await quietSpell();
    assert.deepEqual((await engine.sql('SELECT answer FROM picks', 0, 1)).rows, [[42]], 'the table made before the quiet spell is still there');
    release();
    await stopped(engine);
  });
});
