// Walks a table schema envelope (contract 2.2) into a flat list of columns: the primary-key
// columns from `properties.key`, the others from `properties.value`. `$ref`s into
// `definitions`/`$defs` are resolved; cycles are cut rather than followed forever.

import type { JsonSchema, SchemaEnvelope } from './contract';

export interface Column {
  /** dotted path inside its part, e.g. `id`, `address.city` for an object member */
  name: string;
  /** `key` columns form the primary key; `value` columns carry the data */
  part: 'key' | 'value';
  /** readable type: `int64`, `string`, `date-time`, `enum`, `array<string>`, `object`, `a | b` */
  type: string;
  /** a key column, or listed in its parent's `required` */
  required: boolean;
  description?: string;
  enumValues?: unknown[];
  maxLength?: number;
  defaultValue?: unknown;
}

export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaError';
  }
}

/** Resolves `#/definitions/x` and `#/$defs/x` pointers against the root schema. */
export function resolveRef(root: JsonSchema, node: JsonSchema, seen: ReadonlySet<string> = new Set()): JsonSchema {
  let current = node;
  const visited = new Set(seen);
  while (current.$ref !== undefined) {
    const ref = current.$ref;
    if (visited.has(ref)) throw new SchemaError(`The schema's reference ${ref} refers to itself.`);
    visited.add(ref);
    const target = lookupPointer(root, ref);
    if (!target) throw new SchemaError(`The schema's reference ${ref} points at nothing.`);
    // Siblings of $ref (description, default) refine the target for this use.
    const { $ref: _dropped, ...siblings } = current;
    void _dropped;
    current = { ...target, ...siblings };
  }
  return current;
}

function lookupPointer(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node !== null && typeof node === 'object' ? (node as JsonSchema) : undefined;
}

/** A short type label for a column schema (after `$ref` resolution). */
export function typeLabel(root: JsonSchema, schema: JsonSchema, depth = 0): string {
  const s = resolveRef(root, schema);
  const variants = s.oneOf ?? s.anyOf;
  if (variants && variants.length > 0) {
    if (depth > 4) return 'oneOf';
    const labels = variants.map((v) => typeLabel(root, v, depth + 1)).filter((l) => l !== 'null');
    const unique = [...new Set(labels)];
    return unique.length === 0 ? 'null' : unique.join(' | ');
  }
  if (s.enum) return 'enum';
  const declared = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const types = declared.filter((t) => t !== 'null');
  if (declared.length > 0 && types.length === 0) return 'null';
  const t = types[0];
  switch (t) {
    case 'integer':
      return s.format === 'int32' || s.format === 'int64' ? s.format : 'integer';
    case 'string':
      return s.format === 'date-time' || s.format === 'date' ? s.format : 'string';
    case 'array':
      return s.items && depth < 4 ? `array<${typeLabel(root, s.items, depth + 1)}>` : 'array';
    case undefined:
      return s.properties ? 'object' : 'any';
    default:
      return t;
  }
}

/**
 * Lists a table's columns: key columns first, then value columns, each in schema order.
 * Nested objects with fixed properties contribute dotted member columns as well as the
 * object itself, matching how CSV/TSV results flatten them.
 */
export function columnsOf(envelope: SchemaEnvelope): Column[] {
  const root = envelope.schema;
  if (!root || typeof root !== 'object') throw new SchemaError('The schema is empty.');
  const top = resolveRef(root, root);
  const props = top.properties ?? {};
  const columns: Column[] = [];
  for (const part of ['key', 'value'] as const) {
    const partSchema = props[part];
    if (!partSchema) continue;
    walk(root, resolveRef(root, partSchema), part, '', columns, part === 'key', 0);
  }
  return columns;
}

function walk(
  root: JsonSchema,
  objectSchema: JsonSchema,
  part: 'key' | 'value',
  prefix: string,
  out: Column[],
  allRequired: boolean,
  depth: number,
): void {
  const required = new Set(objectSchema.required ?? []);
  for (const [name, raw] of Object.entries(objectSchema.properties ?? {})) {
    const schema = resolveRef(root, raw);
    const column: Column = {
      name: prefix + name,
      part,
      type: typeLabel(root, schema),
      required: allRequired || required.has(name),
    };
    if (schema.description) column.description = schema.description;
    if (schema.enum) column.enumValues = schema.enum;
    if (typeof schema.maxLength === 'number') column.maxLength = schema.maxLength;
    if (schema.default !== undefined) column.defaultValue = schema.default;
    out.push(column);
    if (schema.properties && depth < 6) walk(root, schema, part, `${column.name}.`, out, allRequired, depth + 1);
  }
}
