// How a sample table is described: its columns (each with its JSON Schema fragment, a
// flattening kind for CSV/TSV/Parquet, and a generator), its schema version and the shape of
// its change history. The table's JSON Schema and its flat column list both derive from this.

import type { JsonSchema } from '../../core/contract';
import type { Prng } from '../prng';

/** How a column is written into flat formats (CSV, TSV, Parquet). */
export type ColumnKind = 'int32' | 'int64' | 'number' | 'string' | 'datetime' | 'boolean' | 'json' | 'object';

export interface RowContext {
  rng: Prng;
  /** the row's position in the table's index space */
  index: number;
  /** the row's last change, ms since the epoch */
  changedAt: number;
}

export interface ColumnDef {
  name: string;
  /** the fragment that appears in the schema (may be a `$ref`) */
  schema: JsonSchema;
  /** `object`: a fixed object whose `fields` become dotted columns in expanded mode */
  kind: ColumnKind;
  fields?: ColumnDef[];
  required?: boolean;
  /** returns the value, or undefined/null for a null column (omitted from records) */
  gen: (ctx: RowContext) => unknown;
}

/** `entity`: rows are inserted, updated and deleted; `log`: rows are only appended. */
export type HistoryKind = 'entity' | 'log';

export interface TableDef {
  namespace: string;
  name: string;
  version: number;
  description: string;
  key: ColumnDef[];
  value: ColumnDef[];
  /** shared schema fragments referenced by `$ref` */
  defs?: Record<string, JsonSchema>;
  defsKeyword?: 'definitions' | '$defs';
  rowCount: number;
  history: HistoryKind;
}

/** A table known by name whose definition is made when first asked for (start-up stays quick). */
export interface DeferredTable {
  namespace: string;
  name: string;
  build: () => TableDef;
}

function objectSchema(columns: ColumnDef[], description?: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const c of columns) properties[c.name] = c.schema;
  const required = columns.filter((c) => c.required).map((c) => c.name);
  const schema: JsonSchema = { type: 'object', properties };
  if (description) schema.description = description;
  if (required.length > 0) schema.required = required;
  return schema;
}

/** The table's record envelope as the schema endpoint returns it. */
export function tableSchema(table: TableDef): JsonSchema {
  const keySchema = objectSchema(table.key.map((c) => ({ ...c, required: true })), 'Primary key columns');
  keySchema.additionalProperties = false;
  const schema: JsonSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `${table.namespace}.${table.name}`,
    description: table.description,
    type: 'object',
    properties: {
      key: keySchema,
      value: objectSchema(table.value, 'Data columns; a delete record has no value'),
      meta: {
        type: 'object',
        description: 'Change metadata',
        properties: {
          action: { type: 'string', enum: ['U', 'D'], description: 'U = upsert, D = delete' },
          ts: { type: 'string', format: 'date-time', description: 'Commit time of the change' },
        },
        required: ['action', 'ts'],
      },
    },
    required: ['key', 'meta'],
  };
  if (table.defs) schema[table.defsKeyword ?? '$defs'] = table.defs;
  return schema;
}

export interface FlatColumn {
  /** dotted header name, e.g. `key.id`, `value.address.city`, `meta.action` */
  name: string;
  path: string[];
  kind: Exclude<ColumnKind, 'object'>;
}

/**
 * The flat columns of a table. In `expanded` mode a fixed object's members become their own
 * dotted columns; in `condensed` mode the object stays one JSON column. Arrays and variable
 * objects are JSON in both modes.
 */
export function flatColumns(table: TableDef, mode: 'expanded' | 'condensed'): FlatColumn[] {
  const out: FlatColumn[] = [];
  const walk = (columns: ColumnDef[], path: string[]): void => {
    for (const c of columns) {
      const p = [...path, c.name];
      if (c.kind === 'object' && c.fields && mode === 'expanded') walk(c.fields, p);
      else out.push({ name: p.join('.'), path: p, kind: c.kind === 'object' ? 'json' : c.kind });
    }
  };
  walk(table.key, ['key']);
  walk(table.value, ['value']);
  out.push({ name: 'meta.action', path: ['meta', 'action'], kind: 'string' });
  out.push({ name: 'meta.ts', path: ['meta', 'ts'], kind: 'datetime' });
  return out;
}
