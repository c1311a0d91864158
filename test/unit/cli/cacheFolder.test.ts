// dq's cache file: what a second dq run finds after the first read many schemas, and a folder
// that cannot be written to, which is said once and never fails the command.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileCacheStorage } from '../../../src/cli/cacheFolder';
import { SchemaCache } from '../../../src/core/schemaCache';

const clock = { now: () => 1_700_000_000_000 };

function envelope(table: string) {
  return { version: 1, schema: { type: 'object', properties: { key: { type: 'object', properties: { [`${table}_id`]: { type: 'integer' } } } } } };
}

describe('dq cache folder', () => {
  let folder: string;
  beforeEach(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'dq-cache-'));
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('keeps every schema saved at once, in order, for the next run', async () => {
    const first = new SchemaCache(new FileCacheStorage(folder), clock);
    const tables = Array.from({ length: 40 }, (_, i) => `t${i}`);
    await Promise.all(tables.map((t) => first.saveSchema('prod', 'canvas', t, envelope(t) as never)));
    await first.saveTables('prod', 'canvas', tables);
    const next = new SchemaCache(new FileCacheStorage(folder), clock);
    assert.deepEqual(next.tables('prod', 'canvas')?.value, tables);
    for (const t of tables) assert.deepEqual(next.schema('prod', 'canvas', t)?.value, envelope(t));
    assert.deepEqual(fs.readdirSync(folder).filter((f) => f.endsWith('.tmp')), [], 'no temporary file is left behind');
  });

  it('says once that a folder cannot be written, and the values are still answered', async () => {
    const blocked = path.join(folder, 'file');
    fs.writeFileSync(blocked, 'not a folder');
    const problems: string[] = [];
    const cache = new SchemaCache(new FileCacheStorage(path.join(blocked, 'dq'), (p) => problems.push(p)), clock);
    await cache.saveTables('prod', 'canvas', ['a']);
    await cache.saveSchema('prod', 'canvas', 'a', envelope('a') as never);
    assert.deepEqual(cache.tables('prod', 'canvas')?.value, ['a']);
    assert.equal(problems.length, 1);
    assert.match(problems[0], /read from the service each time/);
  });
});
