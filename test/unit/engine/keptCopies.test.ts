// The kept copies' folder on its own: which copies go when they pass their budget, and what
// makes two opens of files the same result.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KeptCopies } from '../../../src/engine/keptCopies';

const MiB = 2 ** 20;

describe('engine: the kept copies folder', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-kept-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** A copy of `mib` MiB last used `minutesAgo` minutes ago. */
  async function copy(name: string, mib: number, minutesAgo: number): Promise<string> {
    const file = path.join(dir, 'copies', `${name}.duckdb`);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, Buffer.alloc(mib * MiB));
    const when = new Date(Date.now() - minutesAgo * 60_000);
    await fs.utimes(file, when, when);
    return file;
  }
  const left = async (): Promise<string[]> => (await fs.readdir(path.join(dir, 'copies'))).sort();

  it('removes the least recently used copies until the rest fit the budget, sparing those in use', async () => {
    await copy('old', 3, 30);
    const inUse = await copy('older-in-use', 3, 40);
    await copy('recent', 3, 5);
    await copy('newest', 3, 1);
    await new KeptCopies(path.join(dir, 'copies'), 7, () => undefined).trim(new Set([inUse]));
    assert.deepEqual(await left(), ['newest.duckdb', 'older-in-use.duckdb']);
  });

  it('marks a copy as used when it is found, so it outlasts copies used before it', async () => {
    await copy('a', 2, 30);
    await copy('b', 2, 20);
    const kept = new KeptCopies(path.join(dir, 'copies'), 3, () => undefined);
    assert.ok(await kept.find('a'));
    await kept.trim(new Set());
    assert.deepEqual(await left(), ['a.duckdb']);
  });

  it('gives the same files the same key, and another key once a file changes', async () => {
    const file = path.join(dir, 'part-0.jsonl.gz');
    await fs.writeFile(file, 'one');
    const kept = new KeptCopies(path.join(dir, 'copies'), 1, () => undefined);
    const source = { paths: [file], format: 'jsonl' as const };
    const first = await kept.keyOf(source);
    assert.equal(await kept.keyOf(source), first);
    assert.notEqual(await kept.keyOf({ ...source, schema: { version: 2, schema: {} } }), first, 'another schema');
    assert.notEqual(await kept.keyOf({ ...source, format: 'csv' }), first, 'another format');
    await fs.writeFile(file, 'two!');
    assert.notEqual(await kept.keyOf(source), first, 'another size');
    assert.equal(await kept.keyOf({ paths: [path.join(dir, 'gone')] }), undefined);
  });
});
