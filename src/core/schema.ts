// Walks a table schema envelope (contract 2.2) into a flat list of columns: the primary-key
// columns from `properties.key`, the others from `properties.value`. `$ref`s into
// `definitions`/`$defs` are resolved; cycles are cut rather than followed forever. A schema
// that breaks the contract (unknown types, dangling or cyclic references, odd shapes) yields
// what can be read, with a `problem` on each column that could not be read whole.
// The walk's work is bounded whatever the schema: a few kilobytes of definitions that refer to
// each other several times over would expand into millions of columns, so a table stops with
// a SchemaError past MAX_COLUMNS columns, and each column's type is read within a budget.

import type { JsonSchema, SchemaEnvelope } from './contract';
import { isRecord } from './isRecord';

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
  /** the shared definition (`$ref`) the column's schema comes from */
  reference?: string;
  /** the `name` of the object column this one is a member of */
  parent?: string;
  /** what could not be read of this column, in words for a person */
  problem?: string;
}

/** Nested objects deeper than this are shown as objects without their members. */
export const MAX_NESTING = 6;

/** More columns than this (members of nested objects included) and a table's schema is refused. */
export const MAX_COLUMNS = 10_000;

/** A column whose `$ref` leads to a `$ref` more times than this is not read further. */
export const MAX_REF_CHAIN = 32;

/** Schema nodes a type label may visit (`oneOf` variants, array items) before it gives up. */
const LABEL_BUDGET = 200;

const KNOWN_TYPES = new Set(['integer', 'number', 'string', 'boolean', 'object', 'array', 'null']);

/** A schema that cannot be read at all; its message names what is wrong and what to do. */
export class SchemaError extends Error {
  /** the service's answer could not be understood, as the client's errors of that kind say */
  readonly kind = 'invalidResponse';

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
export function typeLabel(root: JsonSchema, schema: JsonSchema, depth = 0, budget = { left: LABEL_BUDGET }): string {
  if (--budget.left < 0) throw new SchemaError(`its type has more than ${LABEL_BUDGET} nested variants and items to read`);
  const s = resolveRef(root, schema);
  const variants = s.oneOf ?? s.anyOf;
  if (Array.isArray(variants) && variants.length > 0) {
    if (depth > 4) return 'oneOf';
    const labels = variants.filter(isRecord).map((v) => typeLabel(root, v, depth + 1, budget)).filter((l) => l !== 'null');
    const unique = [...new Set(labels)];
    return unique.length === 0 ? 'null' : unique.join(' | ');
  }
  if (Array.isArray(s.enum)) return 'enum';
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
      return isRecord(s.items) && depth < 4 ? `array<${typeLabel(root, s.items, depth + 1, budget)}>` : 'array';
    case undefined:
      return s.properties ? 'object' : 'any';
    default:
      return typeof t === 'string' ? t : 'any';
  }
}

/**
 * Lists a table's columns: key columns first, then value columns, each in schema order.
 * Nested objects with fixed properties contribute dotted member columns as well as the
 * object itself, matching how CSV/TSV results flatten them. `table` (`namespace.table`)
 * names the table in a SchemaError: an empty schema, or one of more than MAX_COLUMNS columns.
 */
export function columnsOf(envelope: SchemaEnvelope, table?: string): Column[] {
  const root = envelope.schema;
  const named = table === undefined ? 'The schema' : `The schema of ${table}`;
  if (!isRecord(root)) throw new SchemaError(`${named} is empty.`);
  const top = resolveRef(root, root);
  const props = isRecord(top.properties) ? top.properties : {};
  const columns: Column[] = [];
  for (const part of ['key', 'value'] as const) {
    const partSchema = props[part];
    if (!isRecord(partSchema)) continue;
    const resolved = readColumnSchema(root, partSchema, new Set());
    walk(root, resolved.schema, { part, out: columns, allRequired: part === 'key', depth: 0, refs: resolved.refs, tooMany: () => tooManyColumns(named) });
  }
  return columns;
}

function tooManyColumns(named: string): SchemaError {
  return new SchemaError(
    `${named} expands into more than ${MAX_COLUMNS.toLocaleString('en-US')} columns (its definitions refer to each other over and over), so its columns are not listed. ` +
      'Its data can still be queried; report the schema to the service provider.',
  );
}

/** The member columns of an object column, or the table's top-level columns without one. */
export function childrenOf(columns: readonly Column[], part: Column['part'], parent?: string): Column[] {
  return columns.filter((c) => c.part === part && c.parent === parent);
}

/**
 * The columns as CSV headers name them (and as the sync stores them): members of nested
 * objects replace the object; an object of a shared definition (`$ref`) stays one column.
 */
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

/** A column's own name within its parent object. */
export function fieldName(column: Column): string {
  return column.parent === undefined ? column.name : column.name.slice(column.parent.length + 1);
}

/**
 * Where each column's value sits in a record, as `[part, ...member names]`: built from the
 * parent chain, so a property whose own name holds dots (`x.y`) stays one member.
 */
export function recordPathsOf(columns: readonly Column[]): (column: Pick<Column, 'part' | 'name'>) => string[] {
  const idOf = (c: Pick<Column, 'part' | 'name'>): string => `${c.part}\u0000${c.name}`;
  const paths = new Map<string, string[]>();
  for (const c of columns) {
    const parent = c.parent === undefined ? undefined : paths.get(idOf({ part: c.part, name: c.parent }));
    paths.set(idOf(c), [...(parent ?? [c.part]), fieldName(c)]);
  }
  return (c) => paths.get(idOf(c)) ?? [c.part, c.name];
}

interface WalkState {
  part: Column['part'];
  out: Column[];
  allRequired: boolean;
  depth: number;
  /** references followed to reach this object, so a member that leads back is cut */
  refs: ReadonlySet<string>;
  parent?: string;
  /** the error thrown when the table has more than MAX_COLUMNS columns */
  tooMany: () => SchemaError;
}

interface ReadSchema {
  schema: JsonSchema;
  refs: ReadonlySet<string>;
  problem?: string;
}

function readColumnSchema(root: JsonSchema, raw: unknown, refs: ReadonlySet<string>): ReadSchema {
  if (!isRecord(raw)) return { schema: {}, refs, problem: 'its schema is not an object' };
  const followed = new Set(refs);
  let current = raw as JsonSchema;
  let chain = 0;
  while (typeof current.$ref === 'string') {
    const ref = current.$ref;
    if (++chain > MAX_REF_CHAIN) return { schema: withoutRef(current), refs: followed, problem: `its reference ${ref} is more than ${MAX_REF_CHAIN} references away: not followed` };
    const target = lookupPointer(root, ref);
    if (target && followed.has(ref)) {
      return { schema: { ...withoutRef(target), ...withoutRef(current) }, refs: followed, problem: `its reference ${ref} leads back to itself: not expanded` };
    }
    followed.add(ref);
    if (!target) return { schema: withoutRef(current), refs: followed, problem: `its reference ${ref} points at nothing` };
    current = { ...target, ...withoutRef(current) };
  }
  return { schema: current, refs: followed };
}

function withoutRef(schema: JsonSchema): JsonSchema {
  const { $ref: _dropped, ...rest } = schema;
  void _dropped;
  return rest;
}

function safeTypeLabel(root: JsonSchema, schema: JsonSchema): { type: string; problem?: string } {
  try {
    return { type: typeLabel(root, schema) };
  } catch (err) {
    return { type: 'any', problem: err instanceof Error ? err.message : String(err) };
  }
}

function unknownTypeProblem(schema: JsonSchema): string | undefined {
  const declared = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  const odd = declared.filter((t) => typeof t !== 'string' || !KNOWN_TYPES.has(t));
  return odd.length > 0 ? `unknown type ${odd.map((t) => JSON.stringify(t)).join(', ')}` : undefined;
}

function walk(root: JsonSchema, objectSchema: JsonSchema, state: WalkState): void {
  const required = new Set(Array.isArray(objectSchema.required) ? objectSchema.required : []);
  const properties = isRecord(objectSchema.properties) ? objectSchema.properties : {};
  for (const [name, raw] of Object.entries(properties)) {
    const read = readColumnSchema(root, raw, state.refs);
    const schema = read.schema;
    const label = safeTypeLabel(root, schema);
    const column: Column = {
      name: state.parent === undefined ? name : `${state.parent}.${name}`,
      part: state.part,
      type: label.type,
      required: state.allRequired || required.has(name),
    };
    if (state.parent !== undefined) column.parent = state.parent;
    if (isRecord(raw) && typeof raw.$ref === 'string') column.reference = raw.$ref;
    if (typeof schema.description === 'string') column.description = schema.description;
    if (Array.isArray(schema.enum)) column.enumValues = schema.enum;
    if (typeof schema.maxLength === 'number') column.maxLength = schema.maxLength;
    if (schema.default !== undefined) column.defaultValue = schema.default;
    const nested = isRecord(schema.properties) && !read.problem;
    const tooDeep = nested && state.depth >= MAX_NESTING;
    const problem = read.problem ?? label.problem ?? unknownTypeProblem(schema) ?? (tooDeep ? `nested deeper than ${MAX_NESTING} levels: its members are not shown` : undefined);
    if (problem) column.problem = problem;
    if (state.out.length >= MAX_COLUMNS) throw state.tooMany();
    state.out.push(column);
    if (nested && !tooDeep) walk(root, schema, { ...state, depth: state.depth + 1, refs: read.refs, parent: column.name });
  }
}

/** Enum values a summary lists before it says how many more there are. */
const ENUM_VALUES_SHOWN = 30;

/** What a person reads about a column besides its name, type and description: one sentence each. */
export function columnNotes(column: Column): string[] {
  const notes: string[] = [];
  if (column.enumValues) {
    const shown = column.enumValues.slice(0, ENUM_VALUES_SHOWN).map((v) => JSON.stringify(v)).join(', ');
    const more = column.enumValues.length > ENUM_VALUES_SHOWN ? ` and ${column.enumValues.length - ENUM_VALUES_SHOWN} more` : '';
    notes.push(`Values: ${shown}${more}.`);
  }
  if (column.defaultValue !== undefined) notes.push(`Default: ${JSON.stringify(column.defaultValue)}.`);
  if (column.maxLength !== undefined) notes.push(`At most ${column.maxLength} characters.`);
  if (column.problem) notes.push(`Not read whole: ${column.problem}.`);
  return notes;
}
