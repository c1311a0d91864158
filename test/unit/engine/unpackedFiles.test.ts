// Gzip-compressed Parquet unpacked for DuckDB, from files that cannot be trusted: a small file
// that unpacks to far more than Parquet of its size holds, or to something that is not
// Parquet, stops early with an error naming it, and leaves nothing under the copy's name.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { isEngineError } from '../../../src/engine/engineErrors';
import { UnpackedFiles } from '../../../src/engine/unpackedFiles';

const MiB = 2 ** 20;
const MAGIC = Buffer.from('PAR1', 'latin1');

describe('engine: unpacking gzip Parquet files', () => {
  let dir: string;
  let work: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-unpack-'));
    work = path.join(dir, 'work');
    await fs.mkdir(work);
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function packed(name: string, content: Buffer): Promise<string> {
    const file = path.join(dir, name);
    await fs.writeFile(file, gzipSync(content));
    return file;
  }

  async function fails(unpacker: UnpackedFiles, file: string, words: RegExp): Promise<void> {
    await assert.rejects(unpacker.take(file), (err: unknown) => {
      assert.ok(isEngineError(err), String(err));
      assert.equal(err.kind, 'corrupt');
      assert.match(err.message, new RegExp(path.basename(file).replace(/\./g, '\\.')));
      assert.match(err.message, words);
      return true;
    });
    assert.deepEqual(await fs.readdir(work), [], 'nothing is left in the work folder');
  }

  it('stops a file that unpacks to far more than its size allows, naming it, and leaves no copy', async () => {
    // 40 MiB of Parquet-looking bytes that pack to a few KiB: 1,000 times and more
    const bomb = await packed('bomb.parquet.gz', Buffer.concat([MAGIC, Buffer.alloc(40 * MiB), MAGIC]));
    const unpacker = new UnpackedFiles(work, { ratio: 200, floorBytes: 1 * MiB });
    await fails(unpacker, bomb, /unpacks to more than/);
  });

  it('refuses a file that does not unpack to Parquet, at its first bytes', async () => {
    const text = await packed('text.parquet.gz', Buffer.from('{"a":1}\n'.repeat(1000)));
    await fails(new UnpackedFiles(work), text, /does not unpack to a Parquet file/);
  });

  it('refuses a file whose unpacked bytes lack the closing PAR1 (cut short before it was packed)', async () => {
    const cut = await packed('cut.parquet.gz', Buffer.concat([MAGIC, Buffer.alloc(1000, 7)]));
    await fails(new UnpackedFiles(work), cut, /does not unpack to a Parquet file/);
  });

  it('unpacks a file within the limits to its copy, once whole', async () => {
    const content = Buffer.concat([MAGIC, Buffer.alloc(1000, 7), MAGIC]);
    const file = await packed('fine.parquet.gz', content);
    const unpacker = new UnpackedFiles(work, { ratio: 200, floorBytes: 1 * MiB });
    const copy = await unpacker.take(file);
    assert.deepEqual(await fs.readFile(copy), content);
    assert.deepEqual(await fs.readdir(work), [path.basename(copy)]);
    await unpacker.release([copy]);
    assert.deepEqual(await fs.readdir(work), []);
  });
});
