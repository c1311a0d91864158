// A service table's schema as the columns of a target table, written once for every target:
// the CSV header names without their leading `key.`/`value.` (`id`, `address.city`), a value
// column named like a key column keeping its `value.` prefix, nested objects with fixed members
// flattened into dotted member columns, and arrays, free-form objects, oneOf and shared (`$ref`)
// objects as JSON. `meta` is not stored. Types: int64 -> bigint, int32 -> integer, number ->
// double, date-time -> timestamptz, date -> date, enum and string -> text, boolean -> boolean.

import type { SchemaEnvelope } from '../core/contract';
import { columnsOf, flatColumnsOf, recordPathsOf } from '../core/schema';
import { DqError } from '../client/errors';
import type { TargetColumn, TargetTable, TargetType } from './syncTarget';

/** The target type of a readable schema type (see `typeLabel` in core/schema.ts). */
export function targetTypeOf(type: string): TargetType {
  switch (type) {
    case 'int32':
      return 'integer';
    case 'int64':
    case 'integer':
      return 'bigint';
    case 'number':
      return 'double';
    case 'boolean':
      return 'boolean';
    case 'date-time':
      return 'timestamptz';
    case 'date':
      return 'date';
    case 'string':
    case 'enum':
      return 'text';
    default:
      // arrays, objects kept whole, oneOf of several shapes, anything unknown
      return 'json';
  }
}

/** The columns of a table, key columns first, each in schema order. */
export function targetColumnsOf(envelope: SchemaEnvelope): TargetColumn[] {
  const all = columnsOf(envelope);
  const pathOf = recordPathsOf(all);
  const flat = flatColumnsOf(all);
  const keyNames = new Set(flat.filter((c) => c.part === 'key').map((c) => c.name));
  const columns = flat.map((c): TargetColumn => ({
    name: c.part === 'value' && keyNames.has(c.name) ? `value.${c.name}` : c.name,
    path: pathOf(c),
    type: targetTypeOf(c.type),
    key: c.part === 'key',
  }));
  const seen = new Set<string>();
  for (const column of columns) {
    if (seen.has(column.name)) {
      throw new DqError('invalidResponse', `The table's schema gives two columns the name "${column.name}", so it cannot be stored as a table.`, {
        hint: 'Report the table and its schema version to the provider.',
      });
    }
    seen.add(column.name);
  }
  if (!columns.some((c) => c.key)) {
    throw new DqError('invalidResponse', 'The table\'s schema has no key columns, so changes cannot be applied by key.', {
      hint: 'Query the table as files instead (dq query), and report the schema to the provider.',
    });
  }
  return columns;
}

/** A service table as a target table at the schema's version. */
export function targetTableOf(namespace: string, table: string, envelope: SchemaEnvelope): TargetTable {
  return { namespace, table, columns: targetColumnsOf(envelope), schemaVersion: envelope.version, schema: envelope.schema };
}
