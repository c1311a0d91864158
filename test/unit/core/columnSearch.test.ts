import * as assert from 'node:assert/strict';
import type { SchemaEnvelope } from '../../../src/core/contract';
import { findColumns, qualifiedName, readCatalog, type CatalogSource } from '../../../src/core/columnSearch';
import { SchemaCache, STALE_AFTER_MS } from '../../../src/core/schemaCache';
import { FakeClock } from '../../support/fakeClock';
import { MemoryStorage } from '../jobs/memoryStorage';

const schemaWith = (version: number, columns: Record<string, string>): SchemaEnvelope => ({
  version,
  schema: {
    properties: {
      key: { type: 'object', properties: { id: { type: 'integer', format: 'int64' } } },
      value: { type: 'object', properties: Object.fromEntries(Object.entries(columns).map(([n, d]) => [n, { type: 'string', description: d }])) },
    },
  },
});

/** A service of two namespaces that counts the calls it answers. */
function countingSource(): CatalogSource & { calls: string[]; failing: Set<string> } {
  const tables: Record<string, string[]> = { canvas: ['users', 'courses'], catalog: ['learners'] };
  const calls: string[] = [];
  const failing = new Set<string>();
  return {
    calls,
    failing,
    listTables(namespace) {
      calls.push(`list ${namespace}`);
      return failing.has(namespace) ? Promise.reject(new Error('service down')) : Promise.resolve(tables[namespace] ?? []);
    },
    getSchema(namespace, table) {
      calls.push(`schema ${namespace}.${table}`);
      if (failing.has(`${namespace}.${table}`)) return Promise.reject(new Error('service down'));
      return Promise.resolve(schemaWith(1, { sis_user_id: `SIS id of a ${table} row`, name: 'A name' }));
    },
  };
}

describe('find column across namespaces', () => {
  const signal = new AbortController().signal;

  it('finds matches in every table of every namespace, name matches before description matches', async () => {
    const clock = new FakeClock();
    const read = await readCatalog('c', ['canvas', 'catalog'], countingSource(), new SchemaCache(new MemoryStorage(), clock), { signal });
    const byName = findColumns('SIS_USER', read.tables).map(qualifiedName);
    assert.deepEqual(byName.sort(), ['canvas.courses.sis_user_id', 'canvas.users.sis_user_id', 'catalog.learners.sis_user_id']);
    const mixed = findColumns('name', read.tables).map((m) => m.column.name);
    assert.deepEqual(mixed, ['name', 'name', 'name']);
    assert.equal(findColumns('learners row', read.tables).map(qualifiedName)[0], 'catalog.learners.sis_user_id');
  });

  it('asks nothing again while the cache is fresh, across a reload, and reads again once stale', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage();
    const source = countingSource();
    const progress: string[] = [];
    await readCatalog('c', ['canvas', 'catalog'], source, new SchemaCache(storage, clock), { signal, onProgress: (d, t) => progress.push(`${d}/${t}`) });
    assert.equal(source.calls.length, 5);
    assert.deepEqual(progress, ['0/3', '1/3', '2/3', '3/3']);
    await clock.advance(STALE_AFTER_MS - 1);
    const warm = await readCatalog('c', ['canvas', 'catalog'], source, new SchemaCache(storage, clock), { signal });
    assert.equal(source.calls.length, 5, 'a fresh cache answers without a call');
    assert.equal(warm.tables.length, 3);
    await clock.advance(1);
    await readCatalog('c', ['canvas', 'catalog'], source, new SchemaCache(storage, clock), { signal });
    assert.equal(source.calls.length, 10, 'stale copies are read again');
  });

  it('uses a stale copy when reading again fails, and says what could not be read', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage();
    const source = countingSource();
    await readCatalog('c', ['canvas'], source, new SchemaCache(storage, clock), { signal });
    await clock.advance(STALE_AFTER_MS);
    source.failing.add('canvas');
    source.failing.add('catalog');
    const read = await readCatalog('c', ['canvas', 'catalog'], source, new SchemaCache(storage, clock), { signal });
    assert.deepEqual(read.tables.map((t) => t.table).sort(), ['courses', 'users']);
    assert.deepEqual(read.problems, ['The tables of catalog could not be listed: service down']);
  });

  it('finds columns when the cache cannot be written, saying once that it could not keep them', async () => {
    const clock = new FakeClock();
    const full = new MemoryStorage();
    full.update = () => Promise.reject(new Error('ENOSPC: no space left on device'));
    const read = await readCatalog('c', ['canvas', 'catalog'], countingSource(), new SchemaCache(full, clock), { signal });
    assert.deepEqual(findColumns('sis_user', read.tables).map(qualifiedName).sort(), ['canvas.courses.sis_user_id', 'canvas.users.sis_user_id', 'catalog.learners.sis_user_id']);
    assert.deepEqual(read.problems, ['What was read could not be kept in the cache, so it is read again next time: ENOSPC: no space left on device']);
  });

  it('forgets one table, one namespace list or a whole connection', async () => {
    const clock = new FakeClock();
    const cache = new SchemaCache(new MemoryStorage(), clock);
    await cache.saveSchema('c', 'canvas', 'users', schemaWith(3, {}));
    await cache.saveSchema('c', 'canvas', 'courses', schemaWith(3, {}));
    await cache.saveTables('c', 'canvas', ['users', 'courses']);
    await cache.saveTables('other', 'canvas', ['users']);
    await cache.forget('c', 'canvas', 'users');
    assert.equal(cache.schema('c', 'canvas', 'users'), undefined);
    assert.ok(cache.schema('c', 'canvas', 'courses'));
    await cache.forget('c', 'canvas');
    assert.equal(cache.tables('c', 'canvas'), undefined);
    assert.ok(cache.schema('c', 'canvas', 'courses'), 'a namespace refresh lists tables again, schemas stay');
    await cache.forget('c');
    assert.equal(cache.schema('c', 'canvas', 'courses'), undefined);
    assert.deepEqual(cache.tables('other', 'canvas')?.value, ['users']);
  });
});
