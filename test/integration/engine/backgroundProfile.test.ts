// A profile nobody waits on (the grid's strips) must not hold up the engine: when a file in
// another folder is opened, which restarts the engine with that folder added, the background
// profile is stopped at once (and can be asked again on the new process) instead of the open
// waiting for the whole profile of a large result.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineClient, isYieldedToRestart } from '../../../src/engine/engineClient';
import { HOST_SCRIPT, keyedSchema, writeKeyedResult } from './sampleResults';

const schema = keyedSchema({ name: { type: 'string' }, score: { type: 'number' } });
const result = (folder: string, rows: number): Promise<string> => writeKeyedResult(folder, rows, (id) => ({ name: `name ${id % 977}`, score: (id * 7919) % 1000 }));

describe('engine: a background profile and a restart for files elsewhere', function () {
  this.timeout(180_000);
  let dir: string;
  let engine: EngineClient;
  let large: string;
  let elsewhere: string;
  const ROWS = 1_500_000;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-background-profile-'));
    large = await result(path.join(dir, 'results', 'job-1'), ROWS);
    elsewhere = await result(path.join(dir, 'saved'), 3);
  });
  beforeEach(() => {
    engine = new EngineClient({ hostScript: HOST_SCRIPT, tempDir: path.join(dir, 'engine'), readableFolders: async () => [path.join(dir, 'results')] });
  });
  afterEach(() => engine.dispose());
  after(() => fs.rm(dir, { recursive: true, force: true }));

  it('stops for the restart instead of holding the open of a file elsewhere, and runs again on the new process', async () => {
    const { handle } = await engine.open({ paths: [large], schema });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const profile = engine.profile(handle, {}, { background: true, onRows: () => started(), onColumn: () => started() }).then(
      () => 'finished',
      (err: unknown) => err,
    );
    await Promise.race([running, profile]);

    const other = await engine.open({ paths: [elsewhere], schema });
    const outcome = await profile;
    assert.ok(isYieldedToRestart(outcome), `the background profile ${outcome === 'finished' ? 'ran to its end while the open waited' : `failed otherwise: ${String(outcome)}`}`);
    assert.deepEqual((await engine.page(other.handle, {}, 0, 10)).rows.map((r) => r[0]), ['0', '1', '2'], 'the file elsewhere opened');

    const again = await engine.profile(handle, { where: '"key.id" < 1000' }, { background: true });
    assert.equal(again.rows, 1000, 'asked again, it runs on the new process');
  });

  it('a profile someone waits on is still waited for by the restart', async () => {
    const { handle } = await engine.open({ paths: [large], schema });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const profile = engine.profile(handle, {}, { onRows: () => started(), onColumn: () => started() });
    await Promise.race([running, profile]);
    await engine.open({ paths: [elsewhere], schema });
    assert.equal((await profile).rows, ROWS);
  });
});
