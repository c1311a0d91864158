import * as assert from 'node:assert/strict';
import type { JsonSchema } from '../../../src/core/contract';
import { childrenOf, columnsOf, fieldName, SchemaError } from '../../../src/core/schema';
import { SampleCatalog } from '../../../src/emulator/sampleData/sampleCatalog';
import { flatColumns, tableSchema } from '../../../src/emulator/sampleData/tableModel';
import { envelopeWith, explodingSchema } from '../../support/hostileSchemas';

describe('schema walk on every sample table', () => {
  const catalog = new SampleCatalog();
  for (const ns of catalog.namespaces()) {
    for (const name of catalog.tables(ns) ?? []) {
      it(`${ns}.${name}: key columns first, every CSV column present, nothing unreadable`, () => {
        const table = catalog.table(ns, name)!;
        const columns = columnsOf({ version: table.version, schema: tableSchema(table) });
        const firstValue = columns.findIndex((c) => c.part === 'value');
        assert.ok(columns.slice(0, firstValue === -1 ? columns.length : firstValue).every((c) => c.part === 'key'));
        assert.ok(!columns.slice(Math.max(firstValue, 0)).some((c) => c.part === 'key'), 'no key column after a value column');
        const names = new Set(columns.map((c) => `${c.part}.${c.name}`));
        for (const flat of flatColumns(table, 'expanded').filter((f) => f.path[0] !== 'meta')) {
          assert.ok(names.has(flat.name), `${flat.name} is a column`);
        }
        assert.deepEqual(columns.filter((c) => c.problem), []);
      });
    }
  }
});

describe('schema walk on hostile schemas', () => {
  it('cuts a $ref cycle at the column that leads back, marking it, and keeps the rest', () => {
    const columns = columnsOf(
      envelopeWith(
        { type: 'object', properties: { tree: { $ref: '#/definitions/node' }, name: { type: 'string' } } },
        { definitions: { node: { type: 'object', properties: { label: { type: 'string' }, child: { $ref: '#/definitions/node' } } } } },
      ),
    );
    const byName = new Map(columns.map((c) => [c.name, c]));
    assert.equal(byName.get('tree.label')?.type, 'string');
    assert.match(byName.get('tree.child')?.problem ?? '', /leads back/);
    assert.equal(childrenOf(columns, 'value', 'tree.child').length, 0);
    assert.equal(byName.get('name')?.type, 'string');
  });

  it('marks unknown types, dangling references and non-object column schemas without dropping them', () => {
    const columns = columnsOf(
      envelopeWith({
        type: 'object',
        properties: {
          amount: { type: 'decimal' },
          weird: { type: 42 } as unknown as JsonSchema,
          gone: { $ref: '#/definitions/nothing' },
          junk: 'not a schema' as unknown as JsonSchema,
          choice: { oneOf: 'x' } as unknown as JsonSchema,
          fine: { type: 'boolean' },
        },
      }),
    );
    const byName = new Map(columns.map((c) => [c.name, c]));
    assert.match(byName.get('amount')?.problem ?? '', /unknown type "decimal"/);
    assert.match(byName.get('weird')?.problem ?? '', /unknown type 42/);
    assert.match(byName.get('gone')?.problem ?? '', /points at nothing/);
    assert.match(byName.get('junk')?.problem ?? '', /not an object/);
    assert.ok(byName.has('choice'));
    assert.equal(byName.get('fine')?.problem, undefined);
  });

  it('reads a schema without key, value or properties as no columns rather than failing', () => {
    assert.deepEqual(columnsOf({ version: 1, schema: { type: 'object' } }), []);
    assert.deepEqual(columnsOf({ version: 1, schema: { properties: { value: { type: 'object', properties: [] as unknown as Record<string, JsonSchema> } } } }), []);
  });

  it('walks 5,000 columns and an enum of 100,000 values', () => {
    const properties: Record<string, JsonSchema> = {};
    for (let i = 0; i < 5000; i++) properties[`c${i}`] = { type: 'string' };
    properties.big = { type: 'string', enum: Array.from({ length: 100_000 }, (_, i) => `v${i}`) };
    const columns = columnsOf(envelopeWith({ type: 'object', properties }));
    assert.equal(columns.length, 5002);
    assert.equal(columns.at(-1)?.enumValues?.length, 100_000);
  });

  it('nests members under their object and stops expanding past the nesting limit', () => {
    let deep: JsonSchema = { type: 'string' };
    for (let i = 9; i >= 0; i--) deep = { type: 'object', properties: { [`l${i}`]: deep } };
    const columns = columnsOf(envelopeWith(deep));
    const top = childrenOf(columns, 'value');
    assert.deepEqual(top.map(fieldName), ['l0']);
    assert.deepEqual(childrenOf(columns, 'value', 'l0').map(fieldName), ['l1']);
    assert.ok(columns.some((c) => /nested deeper/.test(c.problem ?? '')));
    assert.ok(!columns.some((c) => c.name.split('.').length > 8));
  });
});

describe('schema walk on schemas that expand without end', () => {
  it('refuses a table whose definitions expand into millions of columns, naming it, and stops early', () => {
    const hostile = explodingSchema(8, 12);
    assert.ok(JSON.stringify(hostile).length < 4096, 'a schema of a few kilobytes');
    assert.throws(
      () => columnsOf(hostile, 'canvas.exploding'),
      (err: unknown) => err instanceof SchemaError && /^The schema of canvas\.exploding expands into more than 10,000 columns/.test(err.message),
    );
  });

  it('still lists a table just under the column limit', () => {
    // 3 + 9 + 27 + ... + 3^7 (nested levels stop at the nesting limit) = 3,279 value columns
    const columns = columnsOf(explodingSchema(8, 3), 'canvas.wide');
    assert.equal(columns.filter((c) => c.part === 'value').length, 3279);
  });

  it('reads a type of variants that refer to each other within a budget, marking the column', () => {
    const defs: Record<string, JsonSchema> = {};
    for (let level = 0; level < 8; level++) {
      defs[`v${level}`] = { oneOf: Array.from({ length: 30 }, () => (level + 1 < 8 ? { $ref: `#/$defs/v${level + 1}` } : { type: 'string', format: `f${level}` })) };
    }
    const columns = columnsOf(envelopeWith({ type: 'object', properties: { choice: { $ref: '#/$defs/v0' }, plain: { type: 'integer' } } }, { $defs: defs }));
    const byName = new Map(columns.map((c) => [c.name, c]));
    assert.match(byName.get('choice')?.problem ?? '', /more than 200 nested variants/);
    assert.equal(byName.get('plain')?.type, 'integer');
  });

  it('stops following a chain of references after 32 of them', () => {
    const defs: Record<string, JsonSchema> = {};
    for (let i = 0; i < 100; i++) defs[`r${i}`] = i + 1 < 100 ? { $ref: `#/$defs/r${i + 1}` } : { type: 'string' };
    const [column] = columnsOf(envelopeWith({ type: 'object', properties: { far: { $ref: '#/$defs/r0' } } }, { $defs: defs })).filter((c) => c.part === 'value');
    assert.match(column.problem ?? '', /more than 32 references away/);
  });
});
