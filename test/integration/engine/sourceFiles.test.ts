// What the engine makes of a result's files before it reads them: an empty object among a job's
// gzip objects holds no rows and says nothing of the others' compression, and a gzip-compressed
// Parquet file (which DuckDB cannot read so) is unpacked once into the engine's work folder for
// everything that reads it, and deleted once nothing does.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { EngineClient } from '../../../src/engine/engineClient';
import { sampleEngine, type SampleResults, expectedRow, jsonlRecords, type DownloadedResult } from './sampleResults';

const ALL = 100_000;

describe('engine: empty objects and gzip Parquet among a result\'s files', function () {
  this.timeout(120_000);
  let results: SampleResults;
  let engine: EngineClient;

  sampleEngine((r, e) => ([results, engine] = [r, e]));

  async function write(name: string, bytes: Buffer): Promise<string> {
    const file = path.join(results.dir, name);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, bytes);
    return file;
  }

  it('opens a result whose first object is empty (0 bytes), with every row of the gzip objects after it', async () => {
    const users = await results.download('canvas', 'users', 'jsonl');
    const lines = gunzipSync(await fs.readFile(users.paths[0])).toString('utf8').trim().split('\n');
    const half = Math.ceil(lines.length / 2);
    const empty = await write('empty-first/part-00000.jsonl.gz', Buffer.alloc(0));
    const parts = [
      await write('empty-first/part-00001.jsonl.gz', gzipSync(`${lines.slice(0, half).join('\n')}\n`)),
      await write('empty-first/part-00002.jsonl.gz', gzipSync(`${lines.slice(half).join('\n')}\n`)),
    ];
    const opened = await engine.open({ paths: [empty, ...parts], schema: users.schema });
    const expected = (await jsonlRecords(parts)).map((r) => expectedRow(r, opened.columns));
    assert.deepEqual((await engine.page(opened.handle, {}, 0, ALL)).rows, expected, 'the rows of the files after the empty one');
    assert.equal(await engine.count(opened.handle, {}), expected.length, 'counted as the records of the files after the empty one');
    await engine.closeHandle(opened.handle);
  });

  describe('a gzip-compressed Parquet file', () => {
    let parquet: DownloadedResult;
    let packed: string;

    before(async () => {
      parquet = await results.download('canvas', 'users', 'parquet');
      packed = await write('packed/users.parquet.gz', gzipSync(await fs.readFile(parquet.paths[0])));
    });

    /** The unpacked copies in the running engine's work folder. */
    async function unpacked(): Promise<string[]> {
      const work = path.join(results.dir, 'engine', `engine-${engine.processId}`);
      return (await fs.readdir(work)).filter((f) => f.startsWith('unpacked-'));
    }

    it('is unpacked once for a preview and a console view reading it, and the copy goes once neither does', async () => {
      const plain = await engine.open(parquet);
      const expected = (await engine.page(plain.handle, {}, 0, ALL)).rows;
      await engine.closeHandle(plain.handle);
      assert.deepEqual(await unpacked(), [], 'nothing unpacked yet');

      const preview = await engine.open({ paths: [packed], schema: parquet.schema });
      await engine.registerView('canvas.users', { paths: [packed], schema: parquet.schema });
      assert.equal((await unpacked()).length, 1, 'one copy for both');
      assert.deepEqual((await engine.page(preview.handle, {}, 0, ALL)).rows, expected);

      await engine.closeHandle(preview.handle);
      assert.equal((await unpacked()).length, 1, 'the console view still reads the copy');
      const viewed = await engine.sql('SELECT * FROM canvas.users', 0, ALL);
      assert.deepEqual(viewed.rows, expected, 'and the console reads every row from it');

      // the view now reads another file: nothing reads the copy any more
      await engine.registerView('canvas.users', parquet);
      assert.deepEqual(await unpacked(), [], 'the copy is deleted');
    });
  });
});
