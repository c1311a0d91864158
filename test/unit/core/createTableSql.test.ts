import * as assert from 'node:assert/strict';
import type { SchemaEnvelope } from '../../../src/core/contract';
import { createTableSql } from '../../../src/core/createTableSql';
import { SampleCatalog } from '../../../src/emulator/sampleData/sampleCatalog';
import { flatColumns, tableSchema } from '../../../src/emulator/sampleData/tableModel';

/** The quoted column names of a CREATE TABLE statement, in order. */
function columnNames(sql: string): string[] {
  return [...sql.matchAll(/^ {2}"((?:[^"]|"")+)" /gm)].map((m) => m[1].replace(/""/g, '"'));
}

describe('CREATE TABLE for PostgreSQL', () => {
  const catalog = new SampleCatalog();
  for (const ns of catalog.namespaces()) {
    for (const name of catalog.tables(ns) ?? []) {
      it(`${ns}.${name}: the columns of its CSV results, with the key as primary key`, () => {
        const table = catalog.table(ns, name)!;
        const sql = createTableSql(ns, name, { version: table.version, schema: tableSchema(table) });
        assert.deepEqual(columnNames(sql), flatColumns(table, 'expanded').map((c) => c.name));
        const keys = table.key.map((k) => `"key.${k.name}"`).join(', ');
        assert.ok(sql.includes(`PRIMARY KEY (${keys})`), sql);
        assert.ok(sql.startsWith(`-- schema version ${table.version}\nCREATE TABLE "${ns}"."${name}" (`));
      });
    }
  }

  it('maps types, flattens nested objects, keeps arrays as JSON and quotes odd names', () => {
    const envelope: SchemaEnvelope = {
      version: 2,
      schema: {
        properties: {
          key: { type: 'object', properties: { id: { type: 'integer', format: 'int64' } } },
          value: {
            type: 'object',
            properties: {
              'say "hi"': { type: 'string', maxLength: 20 },
              at: { type: 'string', format: 'date-time' },
              n: { type: 'integer', format: 'int32' },
              score: { type: 'number' },
              tags: { type: 'array', items: { type: 'string' } },
              address: { type: 'object', properties: { city: { type: 'string' } } },
              extra: { type: 'object' },
              odd: { type: 'decimal' },
            },
          },
        },
      },
    };
    const sql = createTableSql('ns', 'odd"table', envelope);
    assert.ok(sql.includes('CREATE TABLE "ns"."odd""table"'));
    for (const line of [
      '"key.id" bigint NOT NULL',
      '"value.say ""hi""" varchar(20)',
      '"value.at" timestamptz',
      '"value.n" integer',
      '"value.score" double precision',
      '"value.tags" jsonb',
      '"value.address.city" text',
      '"value.extra" jsonb',
      '"value.odd" jsonb',
      '"meta.action" text',
      '"meta.ts" timestamptz',
    ]) {
      assert.ok(sql.includes(`  ${line}`), `${line} in\n${sql}`);
    }
    assert.ok(!sql.includes('"value.address" '), 'a flattened object is not a column itself');
  });
});
