// The target columns of every sample table, checked against the emulator's own flat columns
// (the CSV header it writes in expanded mode): the same names without `key.`/`value.`, the
// same places in the records, and the types a person expects for each kind of column.

import * as assert from 'node:assert/strict';
import type { JsonSchema, SchemaEnvelope } from '../../../src/core/contract';
import { SAMPLE_NAMESPACES, SampleCatalog } from '../../../src/emulator/sampleData/sampleCatalog';
import { flatColumns, tableSchema, type ColumnKind } from '../../../src/emulator/sampleData/tableModel';
import { targetColumnsOf, targetTableOf } from '../../../src/sync/syncColumns';
import type { TargetType } from '../../../src/sync/syncTarget';

/** What each kind of sample column must become in a target table. */
const EXPECTED_TYPE: Record<Exclude<ColumnKind, 'object'>, TargetType> = {
  int32: 'integer',
  int64: 'bigint',
  number: 'double',
  string: 'text',
  datetime: 'timestamptz',
  boolean: 'boolean',
  json: 'json',
};

function envelope(key: Record<string, JsonSchema>, value: Record<string, JsonSchema>, extra: JsonSchema = {}): SchemaEnvelope {
  return {
    version: 1,
    schema: {
      type: 'object',
      properties: {
        key: { type: 'object', properties: key },
        value: { type: 'object', properties: value },
        meta: { type: 'object', properties: { action: { type: 'string' }, ts: { type: 'string', format: 'date-time' } } },
      },
      ...extra,
    },
  };
}

describe('sync columns', () => {
  const catalog = new SampleCatalog();
  for (const namespace of SAMPLE_NAMESPACES) {
    for (const name of catalog.tables(namespace) ?? []) {
      it(`${namespace}.${name}: the CSV header's columns without key./value., in the records' places, typed by kind`, () => {
        const def = catalog.table(namespace, name)!;
        const flat = flatColumns(def, 'expanded').filter((c) => c.path[0] !== 'meta');
        const columns = targetColumnsOf({ version: def.version, schema: tableSchema(def) });
        const keyNames = new Set(flat.filter((c) => c.path[0] === 'key').map((c) => c.path.slice(1).join('.')));
        assert.deepEqual(
          columns.map((c) => c.name),
          flat.map((c) => {
            const bare = c.path.slice(1).join('.');
            return c.path[0] === 'value' && keyNames.has(bare) ? `value.${bare}` : bare;
          }),
        );
        assert.deepEqual(columns.map((c) => c.path), flat.map((c) => c.path));
        assert.deepEqual(columns.map((c) => c.type), flat.map((c) => EXPECTED_TYPE[c.kind]));
        assert.deepEqual(columns.map((c) => c.key), flat.map((c) => c.path[0] === 'key'));
      });
    }
  }

  it('covers every kind of column among the sample tables', () => {
    const kinds = new Set<string>();
    for (const namespace of SAMPLE_NAMESPACES) {
      for (const name of catalog.tables(namespace) ?? []) for (const c of flatColumns(catalog.table(namespace, name)!, 'expanded')) kinds.add(c.kind);
    }
    assert.deepEqual([...kinds].sort(), Object.keys(EXPECTED_TYPE).sort());
  });

  it('keeps value. on a value column named like a key column, and the key columns first', () => {
    const columns = targetColumnsOf(envelope({ id: { type: 'integer', format: 'int64' } }, { name: { type: 'string' }, id: { type: 'string' } }));
    assert.deepEqual(
      columns.map((c) => [c.name, c.path, c.type, c.key]),
      [
        ['id', ['key', 'id'], 'bigint', true],
        ['name', ['value', 'name'], 'text', false],
        ['value.id', ['value', 'id'], 'text', false],
      ],
    );
  });

  it('types dates, plain integers, oneOf, arrays, free and shared objects; member names with dots stay whole in paths', () => {
    const columns = targetColumnsOf(
      envelope(
        { id: { type: 'integer' } },
        {
          day: { type: 'string', format: 'date' },
          either: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
          maybe: { oneOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
          list: { type: 'array', items: { type: 'integer' } },
          free: { type: 'object', additionalProperties: true },
          shared: { $ref: '#/definitions/point' },
          address: { type: 'object', properties: { 'zip.code': { type: 'string' }, geo: { type: 'object', properties: { lat: { type: 'number' } } } } },
        },
        { definitions: { point: { type: 'object', properties: { x: { type: 'number' } } } } },
      ),
    );
    assert.deepEqual(
      columns.map((c) => [c.name, c.path.join('/'), c.type]),
      [
        ['id', 'key/id', 'bigint'],
        ['day', 'value/day', 'date'],
        ['either', 'value/either', 'json'],
        ['maybe', 'value/maybe', 'timestamptz'],
        ['list', 'value/list', 'json'],
        ['free', 'value/free', 'json'],
        ['shared', 'value/shared', 'json'],
        ['address.zip.code', 'value/address/zip.code', 'text'],
        ['address.geo.lat', 'value/address/geo/lat', 'double'],
      ],
    );
  });

  it('refuses a schema without key columns, saying why', () => {
    assert.throws(() => targetColumnsOf(envelope({}, { name: { type: 'string' } })), (err: Error & { kind?: string }) => {
      assert.equal(err.kind, 'invalidResponse');
      assert.match(err.message, /no key columns/);
      return true;
    });
  });

  it('builds the target table with the schema and its version', () => {
    const def = catalog.table('canvas', 'users')!;
    const schema = tableSchema(def);
    const table = targetTableOf('canvas', 'users', { version: def.version, schema });
    assert.equal(table.namespace, 'canvas');
    assert.equal(table.table, 'users');
    assert.equal(table.schemaVersion, def.version);
    assert.equal(table.schema, schema);
  });
});
