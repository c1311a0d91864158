// A PostgreSQL `CREATE TABLE` statement for a table's schema, with the columns the CSV results
// carry: `key.*` and `value.*` with nested objects flattened into dotted members, arrays,
// free-form objects and objects of a shared definition (`$ref`) as JSON, and the change
// metadata; the key columns form the primary key.

import type { SchemaEnvelope } from './contract';
import { columnsOf, type Column } from './schema';

const META_COLUMNS = [
  { name: 'meta.action', sqlType: 'text' },
  { name: 'meta.ts', sqlType: 'timestamptz' },
];

/** The PostgreSQL type for a readable schema type (see `typeLabel`). */
export function postgresTypeOf(column: Pick<Column, 'type' | 'maxLength'>): string {
  switch (column.type) {
    case 'int32':
      return 'integer';
    case 'int64':
    case 'integer':
      return 'bigint';
    case 'number':
      return 'double precision';
    case 'boolean':
      return 'boolean';
    case 'date-time':
      return 'timestamptz';
    case 'date':
      return 'date';
    case 'string':
      return column.maxLength !== undefined && column.maxLength > 0 ? `varchar(${column.maxLength})` : 'text';
    case 'enum':
      return 'text';
    default:
      return 'jsonb';
  }
}

export function quoteSqlIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The columns as CSV headers name them: members of nested objects replace the object. */
export function flatColumnsOf(columns: readonly Column[]): Column[] {
  const idOf = (part: Column['part'], name: string): string => `${part}.${name}`;
  const byId = new Map(columns.map((c) => [idOf(c.part, c.name), c]));
  const withMembers = new Set(columns.filter((c) => c.parent !== undefined).map((c) => idOf(c.part, c.parent!)));
  const insideShared = (c: Column): boolean => {
    const parent = c.parent === undefined ? undefined : byId.get(idOf(c.part, c.parent));
    return parent !== undefined && (parent.reference !== undefined || insideShared(parent));
  };
  return columns.filter((c) => !insideShared(c) && (c.reference !== undefined || !withMembers.has(idOf(c.part, c.name))));
}

export function createTableSql(namespace: string, table: string, envelope: SchemaEnvelope): string {
  const flat = flatColumnsOf(columnsOf(envelope));
  const lines = flat.map((c) => {
    const notNull = c.part === 'key' ? ' NOT NULL' : '';
    return `  ${quoteSqlIdent(`${c.part}.${c.name}`)} ${postgresTypeOf(c)}${notNull}`;
  });
  lines.push(...META_COLUMNS.map((m) => `  ${quoteSqlIdent(m.name)} ${m.sqlType}`));
  const keys = flat.filter((c) => c.part === 'key').map((c) => quoteSqlIdent(`key.${c.name}`));
  if (keys.length > 0) lines.push(`  PRIMARY KEY (${keys.join(', ')})`);
  const name = `${quoteSqlIdent(namespace)}.${quoteSqlIdent(table)}`;
  return `-- schema version ${envelope.version}\nCREATE TABLE ${name} (\n${lines.join(',\n')}\n);\n`;
}
