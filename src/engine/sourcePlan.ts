// How a result's files become one relation with the columns a user expects: the reader call
// for the format (gzip JSONL, CSV, TSV, Parquet; all files of a job in one call) and a
// projection that names and types every column the way the CSV results flatten them
// (`key.id`, `value.address.city`, `meta.action`). With a schema the names and types come from
// it. Without one (files opened from VS Code's explorer) the names come from what DuckDB finds
// in the first rows, but no types: a type guessed from them fails on a later row that does not
// fit it, so CSV and TSV columns are read as text, and JSONL records' parts as JSON whose
// fields are read as text (nested ones as JSON).

import type { SchemaEnvelope } from '../core/contract';
import { columnsOf, fieldName, recordPathsOf, type Column } from '../core/schema';
import type { ResultColumn, ResultFormat } from './engineProtocol';
import { jsonPointer, quoteIdent, quoteString } from './sqlText';

/** A column as the reader delivers it; `fields` for a STRUCT (JSONL records). */
export interface FileColumn {
  name: string;
  sqlType: string;
  fields?: FileColumn[];
}

export interface SourcePlan {
  /** `SELECT <projection> FROM <reader>` */
  sql: string;
  columns: ResultColumn[];
}

interface ReaderOptions {
  gzip: boolean;
  /** JSONL with a schema: the record's typed STRUCT columns */
  schema?: SchemaEnvelope;
  /** JSONL without a schema: the records' parts (top-level names) found in the first rows, each read as JSON */
  jsonParts?: string[];
}

const META_COLUMNS: Column[] = [
  { name: 'action', part: 'value', type: 'enum', required: true, description: 'U = upsert, D = delete' },
  { name: 'ts', part: 'value', type: 'date-time', required: true, description: 'Commit time of the change' },
];

/** The DuckDB type for a readable schema type. */
export function sqlTypeOf(type: string): string {
  switch (type) {
    case 'int32':
      return 'INTEGER';
    case 'int64':
    case 'integer':
      return 'BIGINT';
    case 'number':
      return 'DOUBLE';
    case 'boolean':
      return 'BOOLEAN';
    case 'string':
    case 'enum':
      return 'VARCHAR';
    case 'date-time':
      return 'TIMESTAMPTZ';
    case 'date':
      return 'DATE';
    default:
      return 'JSON';
  }
}

/** A readable type for an inferred DuckDB type. */
export function readableTypeOf(sqlType: string): string {
  const t = sqlType.toUpperCase();
  if (t === 'BIGINT' || t === 'HUGEINT' || t === 'UBIGINT') return 'int64';
  if (t === 'INTEGER' || t === 'SMALLINT' || t === 'TINYINT') return 'int32';
  if (t === 'DOUBLE' || t === 'FLOAT' || t.startsWith('DECIMAL')) return 'number';
  if (t === 'BOOLEAN') return 'boolean';
  if (t === 'VARCHAR') return 'string';
  if (t.startsWith('TIMESTAMP')) return 'date-time';
  if (t === 'DATE') return 'date';
  return 'json';
}

/** The table function call that reads every file of the source. */
export function readerCall(format: ResultFormat, paths: string[], o: ReaderOptions): string {
  const files = `[${paths.map(quoteString).join(', ')}]`;
  switch (format) {
    case 'jsonl': {
      const compression = o.gzip ? 'gzip' : 'uncompressed';
      const columns = o.schema
        ? `, columns=${recordStructs(o.schema)}`
        : o.jsonParts
          ? `, columns={${o.jsonParts.map((name) => `${quoteString(name)}: 'JSON'`).join(', ')}}`
          : '';
      return `read_json(${files}, format='newline_delimited', compression='${compression}'${columns})`;
    }
    case 'csv':
    case 'tsv': {
      const dialect = format === 'csv' ? `delim=',', quote='"', escape='"'` : `delim='\t', quote='', escape=''`;
      // as text: cast to the schema's types, or shown as it is (a type guessed from the first rows would fail on a later one)
      return `read_csv(${files}, header=true, ${dialect}, compression='${o.gzip ? 'gzip' : 'none'}', all_varchar=true)`;
    }
    case 'parquet':
      return `read_parquet(${files})`;
  }
}

/**
 * Records given as text, as `planSource` projects them: the statement's one parameter is the
 * records' lines joined by line feeds (fileLines.ts; valid JSON holds no raw line feed), and
 * only these lines are parsed, as JSON into the schema's record shape. A field the schema does
 * not name is ignored and a missing one is null, as with the JSON reader's typed columns.
 */
export function jsonlLines(schema: SchemaEnvelope): string {
  const parts = schemaParts(schema);
  const structure = quoteString(JSON.stringify(Object.fromEntries(parts.map((p) => [p.name, fieldTree(p.columns)]))));
  const records = `(SELECT ${parts.map((p) => `r.${quoteIdent(p.name)} AS ${quoteIdent(p.name)}`).join(', ')} FROM (SELECT json_transform(line, ${structure}) AS r FROM (SELECT unnest(string_split($1, chr(10))) AS line)))`;
  return planSource('jsonl', records, [], schema).sql;
}

/**
 * Whether one file read alone has the columns and types of all of them read together: the
 * types come from the schema or from the file itself (Parquet), not from what the data suggests.
 */
export function readsAlikeFileByFile(format: ResultFormat, schema?: SchemaEnvelope): boolean {
  return format === 'parquet' || schema !== undefined;
}

/**
 * The projection over the reader. `fileColumns` is what the reader delivers (unused for JSONL
 * with a schema, whose record shape the schema fixes; for JSONL without one, the parts as the
 * first rows suggest them, read by a reader given `jsonParts`).
 */
export function planSource(format: ResultFormat, reader: string, fileColumns: FileColumn[], schema?: SchemaEnvelope): SourcePlan {
  const select: string[] = [];
  const columns: ResultColumn[] = [];
  const add = (expression: string, column: ResultColumn): void => {
    select.push(`${expression} AS ${quoteIdent(column.name)}`);
    columns.push(column);
  };
  if (format === 'jsonl' && schema) {
    for (const part of schemaParts(schema)) {
      for (const leaf of part.leaves) add(fieldPath(part.name, leaf.path), leaf.column);
    }
  } else if (format === 'jsonl') {
    for (const leaf of textLeaves(fileColumns)) add(leaf.expression, leaf.column);
  } else {
    const known = schema ? schemaColumnsByName(schema) : new Map<string, ResultColumn>();
    for (const file of fileColumns) {
      const column = known.get(file.name) ?? inferredColumn(file.name, file.sqlType);
      add(typedExpression(format, file, column, schema !== undefined), column);
    }
  }
  return { sql: `SELECT ${select.join(', ')} FROM ${reader}`, columns };
}

/** CSV/TSV text decoded and cast to the schema's type; Parquet values cast where they differ. */
function typedExpression(format: ResultFormat, file: FileColumn, column: ResultColumn, textColumns: boolean): string {
  let expression = quoteIdent(file.name);
  const textual = textColumns || file.sqlType.toUpperCase() === 'VARCHAR';
  if (format === 'tsv' && textual && (column.sqlType === 'VARCHAR' || column.sqlType === 'JSON')) expression = tsvUnescaped(expression);
  return column.sqlType === file.sqlType ? expression : `CAST(${expression} AS ${column.sqlType})`;
}

/** TSV results escape backslash, tab, LF and CR as \\, \t, \n and \r. */
function tsvUnescaped(expression: string): string {
  const unescape = `replace(replace(replace(s, '\\t', chr(9)), '\\n', chr(10)), '\\r', chr(13))`;
  return `array_to_string(list_transform(string_split(${expression}, '\\\\'), lambda s: ${unescape}), '\\')`;
}

function fieldPath(part: string, path: string[]): string {
  return `${quoteIdent(part)}${path.map((p) => `[${quoteString(p)}]`).join('')}`;
}

interface Leaf {
  path: string[];
  column: ResultColumn;
}

const PART_ORDER = ['key', 'value', 'meta'];

/**
 * JSONL records without a schema: key, value and meta (in that order) flattened one level
 * (`key.id`, `value.name`) as the first rows suggest, each part read as JSON. A field is
 * text (a number as its digits), or JSON where the first rows hold an object or a list
 * there, whatever a later row holds: nothing guessed can fail on it.
 */
function textLeaves(fileColumns: FileColumn[]): { expression: string; column: ResultColumn }[] {
  const rank = (c: FileColumn): number => (PART_ORDER.includes(c.name) ? PART_ORDER.indexOf(c.name) : PART_ORDER.length);
  return [...fileColumns]
    .sort((a, b) => rank(a) - rank(b))
    .flatMap((part) => {
      const json = quoteIdent(part.name);
      if (!part.fields) return [textLeaf(part.name, json, '$', part.sqlType)];
      return part.fields.map((f) => textLeaf(`${part.name}.${f.name}`, json, jsonPointer([f.name]), f.sqlType));
    });
}

function textLeaf(name: string, json: string, path: string, seenType: string): { expression: string; column: ResultColumn } {
  if (/^(STRUCT|MAP)\b|\]$/i.test(seenType.trim())) return { expression: `json_extract(${json}, ${quoteString(path)})`, column: { name, type: 'json', sqlType: 'JSON' } };
  return { expression: `json_extract_string(${json}, ${quoteString(path)})`, column: { name, type: 'string', sqlType: 'VARCHAR' } };
}


function inferredColumn(name: string, sqlType: string): ResultColumn {
  return { name, type: readableTypeOf(sqlType), sqlType };
}

interface SchemaPart {
  name: string;
  columns: Column[];
  leaves: Leaf[];
}

/**
 * key, value and meta with their columns in schema order; leaves are the columns without
 * members, each with its path in the record from the schema's parent chain (a property named
 * `x.y` is one field, not `y` inside `x`).
 */
function schemaParts(schema: SchemaEnvelope): SchemaPart[] {
  const all = columnsOf(schema);
  const pathOf = recordPathsOf(all);
  const parts = [
    { name: 'key', columns: all.filter((c) => c.part === 'key') },
    { name: 'value', columns: all.filter((c) => c.part === 'value') },
    { name: 'meta', columns: META_COLUMNS },
  ];
  return parts.map((p) => {
    const withMembers = new Set(p.columns.flatMap((c) => (c.parent === undefined ? [] : [c.parent])));
    const leaves = p.columns.filter((c) => !withMembers.has(c.name)).map((c) => ({ path: pathOf(c).slice(1), column: resultColumn(p.name, c) }));
    return { ...p, leaves };
  });
}

function resultColumn(part: string, c: Column): ResultColumn {
  const column: ResultColumn = { name: `${part}.${c.name}`, type: c.type, sqlType: sqlTypeOf(c.type) };
  if (c.description) column.description = c.description;
  if (part === 'key') column.key = true;
  return column;
}

/** Every flat name a CSV/TSV/Parquet result may carry: expanded members and condensed objects. */
function schemaColumnsByName(schema: SchemaEnvelope): Map<string, ResultColumn> {
  const byName = new Map<string, ResultColumn>();
  for (const part of schemaParts(schema)) {
    for (const c of part.columns) {
      const column = resultColumn(part.name, c);
      byName.set(column.name, column);
    }
  }
  return byName;
}

/** `{key: 'STRUCT(...)', value: 'STRUCT(...)', meta: 'STRUCT(...)'}` for read_json's columns. */
function recordStructs(schema: SchemaEnvelope): string {
  const entries = schemaParts(schema).map((p) => `${p.name}: ${quoteString(structType(fieldTree(p.columns)))}`);
  return `{${entries.join(', ')}}`;
}

/** A record part's fields: a leaf's SQL type, or a nested record's fields. */
interface FieldTree {
  [name: string]: string | FieldTree;
}

/**
 * The fields of a record part, nested by the schema's parent chain, as json_transform takes
 * them: `{"id": "BIGINT", "address": {"city": "VARCHAR"}}`.
 */
function fieldTree(columns: Column[], parent?: string): FieldTree {
  return Object.fromEntries(
    columns
      .filter((c) => c.parent === parent)
      .map((c) => [fieldName(c), columns.some((other) => other.parent === c.name) ? fieldTree(columns, c.name) : sqlTypeOf(c.type)]),
  );
}

/** The same fields as a DuckDB type, for read_json's columns. */
function structType(fields: FieldTree): string {
  const typed = Object.entries(fields).map(([name, field]) => `${quoteIdent(name)} ${typeof field === 'string' ? field : structType(field)}`);
  return `STRUCT(${typed.join(', ')})`;
}
