// An export whose engine process dies while it writes: the file it was writing is in the dead
// engine's work folder, which the next engine removes; nothing of the export is left beside
// the file asked for (the engine client removes what a move to another disk left there).

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { EngineClient } from '../../../src/engine/engineClient';
import { isEngineError } from '../../../src/engine/engineErrors';
import { exportsBeingWritten, sampleEngine, type SampleResults } from './sampleResults';

/** Rows enough for minutes of writing: the engine dies while the file grows. */
const ENDLESS_ROWS = "SELECT x, repeat('y', 200) AS filler FROM range(10000000000) t(x)";

describe('engine: an export whose engine dies mid-write', function () {
  this.timeout(120_000);
  let results: SampleResults;
  let engine: EngineClient;

  sampleEngine((r, e) => ([results, engine] = [r, e]));

  /** The files in the results' folder whose names hold `name`. */
  const filesOf = async (name: string): Promise<string[]> => (await fs.readdir(results.dir)).filter((f) => f.includes(name)).sort();
  /** Exports endless rows to `target`, kills the engine once the file it writes has content: the engine's process id. */
  async function crashWhileWriting(target: string): Promise<number> {
    const outcome = engine.export({ sql: ENDLESS_ROWS }, { path: target, format: 'csv' }).then(
      () => assert.fail('the engine died before the export was complete'),
      (e: unknown) => e,
    );
    const deadline = Date.now() + 60_000;
    const growing = async (): Promise<boolean> => (await exportsBeingWritten(path.join(results.dir, 'engine'))).some((file) => file.size > 0);
    while (!(await growing())) {
      assert.ok(Date.now() < deadline, 'the export started writing');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const pid = engine.processId;
    assert.ok(pid);
    process.kill(pid, 'SIGKILL');
    const err = await outcome;
    assert.ok(isEngineError(err) && err.kind === 'crashed', String(err));
    return pid;
  }

  it('leaves neither the file asked for nor a partial one, and the next export is written whole', async () => {
    const target = path.join(results.dir, 'crashed.csv');
    const pid = await crashWhileWriting(target);
    assert.deepEqual(await filesOf('crashed.csv'), [], 'nothing of the export is left beside it');

    // the next export starts a new engine, which removes the dead one's folder, and puts the file under its name
    assert.deepEqual(await engine.export({ sql: 'SELECT 42 AS answer' }, { path: target, format: 'csv' }), { rows: 1, path: target });
    assert.notEqual(engine.processId, pid);
    assert.deepEqual(await filesOf('crashed.csv'), ['crashed.csv']);
    assert.equal((await fs.readFile(target, 'utf8')).trim(), 'answer\n42');
    assert.deepEqual(await exportsBeingWritten(path.join(results.dir, 'engine')), [], "the dead engine's partial file is gone");
  });

  it('removes what a move from another disk left beside the file asked for', async () => {
    const target = path.join(results.dir, 'again.csv');
    await fs.writeFile(`${target}.partial`, 'what a move to this folder left\n');
    await crashWhileWriting(target);
    assert.deepEqual(await filesOf('again.csv'), [], 'nothing of either export is left');
  });
});
