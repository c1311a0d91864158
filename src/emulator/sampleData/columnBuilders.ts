// Short constructors for sample columns: each pairs a JSON Schema fragment with a generator.

import type { JsonSchema } from '../../core/contract';
import type { ColumnDef, ColumnKind, RowContext } from './tableModel';

type Gen = (ctx: RowContext) => unknown;
interface Extra {
  description?: string;
  required?: boolean;
  schema?: JsonSchema;
}

function make(name: string, kind: ColumnKind, base: JsonSchema, gen: Gen, extra: Extra = {}): ColumnDef {
  const schema: JsonSchema = { ...base, ...(extra.schema ?? {}) };
  if (extra.description) schema.description = extra.description;
  return { name, kind, schema, gen, required: extra.required };
}

export const int64 = (name: string, gen: Gen, extra?: Extra): ColumnDef =>
  make(name, 'int64', { type: 'integer', format: 'int64' }, gen, extra);

export const int32 = (name: string, gen: Gen, extra?: Extra): ColumnDef =>
  make(name, 'int32', { type: 'integer', format: 'int32' }, gen, extra);

export const number = (name: string, gen: Gen, extra?: Extra): ColumnDef =>
  make(name, 'number', { type: 'number' }, gen, extra);

export const boolean = (name: string, gen: Gen, extra?: Extra): ColumnDef =>
  make(name, 'boolean', { type: 'boolean' }, gen, extra);

export const string = (name: string, gen: Gen, extra?: Extra & { maxLength?: number }): ColumnDef =>
  make(name, 'string', extra?.maxLength ? { type: 'string', maxLength: extra.maxLength } : { type: 'string' }, gen, extra);

export const dateTime = (name: string, gen: Gen, extra?: Extra): ColumnDef =>
  make(name, 'datetime', { type: 'string', format: 'date-time' }, gen, extra);

export const enumeration = (name: string, values: readonly string[], gen: Gen, extra?: Extra & { default?: string }): ColumnDef =>
  make(
    name,
    'string',
    extra?.default !== undefined ? { type: 'string', enum: [...values], default: extra.default } : { type: 'string', enum: [...values] },
    gen,
    extra,
  );

/** A column whose schema is a `$ref` into the table's definitions. */
export const ref = (name: string, kind: ColumnKind, target: string, gen: Gen, extra?: Extra): ColumnDef =>
  make(name, kind, { $ref: target }, gen, extra);

export const array = (name: string, items: JsonSchema, gen: Gen, extra?: Extra): ColumnDef =>
  make(name, 'json', { type: 'array', items }, gen, extra);

/** An object with arbitrary keys: always one JSON column in flat formats. */
export const freeObject = (name: string, gen: Gen, extra?: Extra): ColumnDef =>
  make(name, 'json', { type: 'object', additionalProperties: true }, gen, extra);

/** A value that is one of several shapes: one JSON column in flat formats. */
export const oneOf = (name: string, variants: JsonSchema[], gen: Gen, extra?: Extra): ColumnDef =>
  make(name, 'json', { oneOf: variants }, gen, extra);

/** A fixed object: its fields become dotted columns in expanded mode. */
export function object(name: string, fields: ColumnDef[], extra?: Extra & { omitWhen?: (ctx: RowContext) => boolean }): ColumnDef {
  const properties: Record<string, JsonSchema> = {};
  for (const f of fields) properties[f.name] = f.schema;
  const required = fields.filter((f) => f.required).map((f) => f.name);
  const base: JsonSchema = required.length ? { type: 'object', properties, required } : { type: 'object', properties };
  const gen: Gen = (ctx) => {
    if (extra?.omitWhen?.(ctx)) return undefined;
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      const v = f.gen(ctx);
      if (v !== undefined && v !== null) out[f.name] = v;
    }
    return out;
  };
  const col = make(name, 'object', base, gen, extra);
  col.fields = fields;
  return col;
}

/** ISO date-time in UTC without milliseconds. */
export function iso(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}
