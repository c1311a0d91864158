// A result whose background copy cannot be made (here its work folder was taken away: a file
// stands where the folder was, which refuses every file made in it, root or not). Pages and
// counts are read from the files all along; a profile or a chart, which read only the copy,
// say why the copy stopped instead of waiting for it or answering from part of the rows.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { EngineClient } from '../../../src/engine/engineClient';
import { rejection } from './engineRejection';
import { SampleResults, type DownloadedResult } from './sampleResults';

describe('engine: a result whose copy cannot be made', function () {
  this.timeout(120_000);
  let samples: SampleResults;
  let result: DownloadedResult;
  let engine: EngineClient;
  let tempDir: string;

  before(async () => {
    samples = await SampleResults.start();
    result = await samples.download('canvas', 'users', 'jsonl');
  });

  after(() => samples?.close());

  beforeEach(async () => {
    tempDir = await fs.mkdtemp(path.join(samples.dir, 'copy-failure-'));
    engine = samples.engine({ tempDir });
  });

  afterEach(() => engine?.dispose());

  /** Starts the engine, then puts a file where its work folder was. */
  async function withoutWorkFolder(): Promise<void> {
    await engine.count((await engine.open({ paths: result.paths })).handle, {});
    const [work] = (await fs.readdir(tempDir)).filter((name) => name.startsWith('engine-'));
    assert.ok(work, `the engine's work folder in ${tempDir}`);
    await fs.rm(path.join(tempDir, work), { recursive: true, force: true });
    await fs.writeFile(path.join(tempDir, work), 'not a folder');
  }

  it('answers rows from the files, and a profile with why the copy stopped', async () => {
    await withoutWorkFolder();
    const opened = await engine.open({ paths: result.paths });
    const count = await engine.count(opened.handle, {});
    assert.ok(count > 0, 'the rows are counted from the files');
    const page = await engine.page(opened.handle, {}, 0, 10);
    assert.equal(page.rows.length, Math.min(10, count));
    const message = await rejection(engine.profile(opened.handle, {}), 'io');
    // the cause as DuckDB gave it (a file it could not make), with what to check: not advice for SQL nobody wrote
    assert.match(message, /^The result could not be read whole: .*Not a directory\. Check that the files still exist and can be read, and that the target folder is writable\.$/);
  });
});
