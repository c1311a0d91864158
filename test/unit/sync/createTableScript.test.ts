// Copy CREATE TABLE's text: the table a sync to PostgreSQL creates, written out from the same
// target columns (names without `key.`/`value.`, the sync's types, NOT NULL and primary key on
// the key columns), with the namespace's schema, quoted so that any name survives.

import * as assert from 'node:assert/strict';
import type { SchemaEnvelope } from '../../../src/core/contract';
import { SAMPLE_NAMESPACES, SampleCatalog } from '../../../src/emulator/sampleData/sampleCatalog';
import { tableSchema } from '../../../src/emulator/sampleData/tableModel';
import { createTableScript, sqlType } from '../../../src/sync/postgresSql';
import { targetTableOf } from '../../../src/sync/syncColumns';

/** The column lines of a CREATE TABLE statement: quoted name and the rest, in order. */
function columnLines(sql: string): [string, string][] {
  return [...sql.matchAll(/^ {2}"((?:[^"]|"")+)" (.+?),?$/gm)].map((m) => [m[1].replace(/""/g, '"'), m[2]]);
}

describe('Copy CREATE TABLE: the table a sync to PostgreSQL creates', () => {
  const catalog = new SampleCatalog();
  for (const ns of SAMPLE_NAMESPACES) {
    for (const name of catalog.tables(ns) ?? []) {
      it(`${ns}.${name}: the sync's columns and types, its key as primary key`, () => {
        const def = catalog.table(ns, name)!;
        const table = targetTableOf(ns, name, { version: def.version, schema: tableSchema(def) });
        const sql = createTableScript(table);
        assert.deepEqual(
          columnLines(sql),
          table.columns.map((c) => [c.name, `${sqlType(c.type)}${c.key ? ' NOT NULL' : ''}`]),
        );
        const keys = def.key.map((k) => `"${k.name}"`).join(', ');
        assert.ok(sql.includes(`\n  PRIMARY KEY (${keys})\n);\n`), sql);
        assert.ok(sql.startsWith(`-- schema version ${def.version}\nCREATE SCHEMA IF NOT EXISTS "${ns}";\nCREATE TABLE "${ns}"."${name}" (\n`), sql);
      });
    }
  }

  it('maps types as the sync does, flattens nested objects, keeps arrays as JSON and quotes odd names', () => {
    const envelope: SchemaEnvelope = {
      version: 2,
      schema: {
        properties: {
          key: { type: 'object', properties: { id: { type: 'integer', format: 'int64' } } },
          value: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              'say "hi"': { type: 'string', maxLength: 20 },
              at: { type: 'string', format: 'date-time' },
              day: { type: 'string', format: 'date' },
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
    const sql = createTableScript(targetTableOf('n"s', 'odd"table', envelope));
    assert.ok(sql.includes('CREATE SCHEMA IF NOT EXISTS "n""s";\nCREATE TABLE "n""s"."odd""table" ('), sql);
    assert.deepEqual(columnLines(sql), [
      ['id', 'bigint NOT NULL'],
      ['value.id', 'text'],
      ['say "hi"', 'text'],
      ['at', 'timestamptz'],
      ['day', 'date'],
      ['n', 'integer'],
      ['score', 'double precision'],
      ['tags', 'jsonb'],
      ['address.city', 'text'],
      ['extra', 'jsonb'],
      ['odd', 'jsonb'],
    ]);
    assert.ok(sql.endsWith('  PRIMARY KEY ("id")\n);\n'), sql);
  });
});
