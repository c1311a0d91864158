// Schema changes of a sample table while the emulator runs, the kinds the service has shipped:
// a column added (values only for rows changed in later commits; rows written before carry none),
// a required column made optional, and a column whose type changed. Each gives the table a
// new definition with the next schema version; jobs created earlier keep the old one.

import type { ColumnDef, TableDef } from './tableModel';

export type SchemaEvolution = 'addColumn' | 'relaxRequired' | 'retype';

export const SCHEMA_EVOLUTIONS: readonly SchemaEvolution[] = ['addColumn', 'relaxRequired', 'retype'];

/** `table` after `change` made at commit time `at` (ms): its version one higher. */
export function evolvedTable(table: TableDef, change: SchemaEvolution, at: number): TableDef {
  const version = table.version + 1;
  const value = [...table.value];
  switch (change) {
    case 'addColumn':
      value.push({
        name: `added_in_v${version}`,
        schema: { type: 'string', description: `Added in schema version ${version}` },
        kind: 'string',
        gen: ({ changedAt, index }) => (changedAt > at ? `v${version}-${index}` : undefined),
      });
      break;
    case 'relaxRequired': {
      const i = value.findIndex((c) => c.required);
      if (i < 0) throw new Error(`${table.namespace}.${table.name} has no required value column to make optional`);
      value[i] = { ...value[i], required: false };
      break;
    }
    case 'retype': {
      const i = value.findIndex((c) => c.kind === 'int32' || c.kind === 'int64');
      if (i < 0) throw new Error(`${table.namespace}.${table.name} has no integer value column to retype`);
      value[i] = asText(value[i]);
      break;
    }
  }
  return { ...table, version, value };
}

function asText(column: ColumnDef): ColumnDef {
  const { gen } = column;
  const description = (column.schema as { description?: string }).description;
  return {
    ...column,
    kind: 'string',
    schema: { type: 'string', ...(description ? { description } : {}) },
    gen: (ctx) => {
      const v = gen(ctx);
      return v === undefined || v === null ? v : String(v);
    },
  };
}
