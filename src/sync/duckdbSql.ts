// The SQL text the DuckDB sync target runs: the target table's DDL, the reader over a job's
// gzip JSONL files (typed by the table's columns, so null and empty text stay apart), the
// newest record of each key (by commit time, then file order, then line order), and the
// statements that apply a snapshot or a change set, and the meta table. Names and file paths
// are quoted; no value from the data ever enters the text. Every table is named with the
// database's own catalog name as well (`"sync"."canvas"."users"`): a two-part name is
// ambiguous, and refused, when the file's name equals a schema's (`canvas.duckdb`).

import { jsonPointer, quoteIdent, quoteString } from '../engine/sqlText';
import { MAX_RECORD_BYTES } from './jsonEscapes';
import type { TargetColumn, TargetTable, TargetType } from './syncTarget';

/** `"sync".main.dq_sync_state`, in the database whose catalog name is `catalog`. */
export function metaTable(catalog: string): string {
  return `${quoteIdent(catalog)}.main.dq_sync_state`;
}

export function createMetaTableSql(catalog: string): string {
  return `CREATE TABLE IF NOT EXISTS ${metaTable(catalog)} (
  namespace VARCHAR NOT NULL,
  "table" VARCHAR NOT NULL,
  target_schema VARCHAR NOT NULL,
  target_table VARCHAR NOT NULL,
  point TIMESTAMPTZ NOT NULL,
  schema_version INTEGER NOT NULL,
  "schema" JSON NOT NULL,
  row_count BIGINT NOT NULL,
  ran_at TIMESTAMPTZ NOT NULL,
  source VARCHAR,
  PRIMARY KEY (namespace, "table")
)`;
}

/** A meta table made before sources were recorded gains the column; its rows have none (NULL). */
export function addSourceColumnSql(catalog: string): string {
  return `ALTER TABLE ${metaTable(catalog)} ADD COLUMN IF NOT EXISTS source VARCHAR`;
}

/**
 * Every column of the meta table, as `readState` and `listStates` read them; `hasSource` is
 * false for a meta table made before sources were recorded (read-only: it is not changed).
 */
export function selectStatesSql(catalog: string, hasSource: boolean): string {
  return `SELECT namespace, "table", epoch_ms(point) AS point_ms, schema_version, CAST("schema" AS VARCHAR) AS schema_text, row_count, epoch_ms(ran_at) AS ran_ms, ${hasSource ? 'source' : 'NULL AS source'} FROM ${metaTable(catalog)}`;
}

/** Upserts one meta row; parameters: namespace, table, point, version, schema, rows, ran_at, source. */
export function upsertStateSql(catalog: string): string {
  return `INSERT OR REPLACE INTO ${metaTable(catalog)} (namespace, "table", target_schema, target_table, point, schema_version, "schema", row_count, ran_at, source)
  VALUES ($1, $2, $1, $2, CAST($3 AS TIMESTAMPTZ), $4, CAST($5 AS JSON), $6, CAST($7 AS TIMESTAMPTZ), $8)`;
}

/**
 * Sets the source of a meta row that has none, or has the one it replaces (the same service's,
 * from before client tags were recorded); parameters: namespace, table, source, replaced (or NULL).
 */
export function adoptSourceSql(catalog: string): string {
  return `UPDATE ${metaTable(catalog)} SET source = $3 WHERE namespace = $1 AND "table" = $2 AND (source IS NULL OR source = CAST($4 AS VARCHAR))`;
}

const SQL_TYPES: Record<TargetType, string> = {
  integer: 'INTEGER',
  bigint: 'BIGINT',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamptz: 'TIMESTAMPTZ',
  date: 'DATE',
  text: 'VARCHAR',
  json: 'JSON',
};

export function sqlTypeOf(type: TargetType): string {
  return SQL_TYPES[type];
}

/** `"sync"."canvas"."users"`: the table in the database whose catalog name is `catalog`. */
export function tableName(catalog: string, table: Pick<TargetTable, 'namespace' | 'table'>): string {
  return `${quoteIdent(catalog)}.${quoteIdent(table.namespace)}.${quoteIdent(table.table)}`;
}

/** `"sync"."canvas"`: a namespace's schema. */
export function schemaName(catalog: string, namespace: string): string {
  return `${quoteIdent(catalog)}.${quoteIdent(namespace)}`;
}

export function createTableSql(catalog: string, table: TargetTable): string {
  const lines = table.columns.map((c) => `  ${quoteIdent(c.name)} ${sqlTypeOf(c.type)}${c.key ? ' NOT NULL' : ''}`);
  lines.push(`  PRIMARY KEY (${keyColumns(table).map((c) => quoteIdent(c.name)).join(', ')})`);
  return `CREATE TABLE ${tableName(catalog, table)} (\n${lines.join(',\n')}\n)`;
}

export function addColumnSql(catalog: string, table: TargetTable, column: TargetColumn): string {
  return `ALTER TABLE ${tableName(catalog, table)} ADD COLUMN ${quoteIdent(column.name)} ${sqlTypeOf(column.type)}`;
}

/**
 * The newest record of each key in the files, one row per key: the table's columns (as
 * named in the target) plus `dq_action` (`U`, `D`, or null for a record without one, which is
 * an upsert like `U`: only a delete removes a row). Ties on the commit time go to the later
 * file, then the later line, so a key delivered twice ends as its last delivery.
 */
export function latestRecordsSql(table: TargetTable, files: readonly string[]): string {
  const fileList = `[${files.map(quoteString).join(', ')}]`;
  const reader =
    `read_json(${fileList}, format='newline_delimited', compression='auto_detect', filename=true, maximum_object_size=${MAX_RECORD_BYTES}, ` +
    `columns=${recordStructs(table.columns)}) WITH ORDINALITY AS dq_records`;
  const values = table.columns.map((c) => `${columnValue(c)} AS ${quoteIdent(c.name)}`);
  const keys = keyColumns(table).map((c) => columnValue(c));
  const order = `"meta"['ts'] DESC, list_position(${fileList}, dq_records.filename) DESC, dq_records.ordinality DESC`;
  return (
    `SELECT ${values.join(', ')}, "meta"['action'] AS dq_action FROM ${reader}\n` +
    `QUALIFY row_number() OVER (PARTITION BY ${keys.join(', ')} ORDER BY ${order}) = 1`
  );
}

/** Whatever is not a delete is data: the PostgreSQL target decides the same way. */
const IS_UPSERT = `dq_action IS DISTINCT FROM 'D'`;

/** Loads a snapshot into the (new, empty) table: the newest record of each key, deletes left out. */
export function insertSnapshotSql(catalog: string, table: TargetTable, files: readonly string[]): string {
  const names = table.columns.map((c) => quoteIdent(c.name)).join(', ');
  return `INSERT INTO ${tableName(catalog, table)} (${names}) SELECT ${names} FROM (${latestRecordsSql(table, files)}) WHERE ${IS_UPSERT}`;
}

export const CHANGES_TABLE = 'dq_changes';

/** Stages the newest record of each changed key in a temporary table of this connection. */
export function stageChangesSql(table: TargetTable, files: readonly string[]): string {
  return `CREATE OR REPLACE TEMPORARY TABLE ${CHANGES_TABLE} AS ${latestRecordsSql(table, files)}`;
}

/** Deletes the rows whose newest change is a delete. */
export function deleteChangedSql(catalog: string, table: TargetTable): string {
  const match = keyColumns(table)
    .map((c) => `${tableName(catalog, table)}.${quoteIdent(c.name)} = ${CHANGES_TABLE}.${quoteIdent(c.name)}`)
    .join(' AND ');
  return `DELETE FROM ${tableName(catalog, table)} USING ${CHANGES_TABLE} WHERE ${match} AND ${CHANGES_TABLE}.dq_action = 'D'`;
}

/** Inserts or replaces the rows whose newest change is an upsert. */
export function upsertChangedSql(catalog: string, table: TargetTable): string {
  const names = table.columns.map((c) => quoteIdent(c.name)).join(', ');
  return `INSERT OR REPLACE INTO ${tableName(catalog, table)} (${names}) SELECT ${names} FROM ${CHANGES_TABLE} WHERE ${IS_UPSERT}`;
}

function keyColumns(table: TargetTable): TargetColumn[] {
  return table.columns.filter((c) => c.key);
}

/**
 * A column's value in a record read by `recordStructs`: `"value"['name']` for a member of the
 * key or value, and for a member of a flattened object, read out of that object's JSON,
 * `CAST(json_extract_string("value"['address'], '/city') AS ...)`. Where the record holds no
 * object there (a truncation marker string, null, an array), the value is NULL, as in the
 * PostgreSQL target, instead of the whole table failing to load.
 */
function columnValue(column: TargetColumn): string {
  const [part, member, ...inner] = column.path;
  const top = `${quoteIdent(part)}[${quoteString(member)}]`;
  if (inner.length === 0) return top;
  const pointer = quoteString(jsonPointer(inner));
  // a JSON null inside the object is SQL NULL, as it is for a member of the value itself
  if (column.type === 'json') return `NULLIF(json_extract(${top}, ${pointer}), 'null'::JSON)`;
  const text = `json_extract_string(${top}, ${pointer})`;
  return column.type === 'text' ? text : `CAST(${text} AS ${sqlTypeOf(column.type)})`;
}

interface StructNode {
  type?: TargetType;
  members: Map<string, StructNode>;
}

/**
 * `{key: 'STRUCT(...)', value: 'STRUCT(...)', meta: 'STRUCT(action VARCHAR, ts TIMESTAMPTZ)'}`
 * for read_json: the members of the key and value typed as their columns, a flattened object
 * among them as JSON (its members are read out of it by `columnValue`: a typed STRUCT would
 * fail the whole file on a record holding a string there).
 */
export function recordStructs(columns: readonly TargetColumn[]): string {
  const root: StructNode = { members: new Map() };
  for (const part of ['key', 'value']) root.members.set(part, { members: new Map() });
  for (const column of columns) {
    let node = root;
    for (const step of column.path) {
      let next = node.members.get(step);
      if (!next) node.members.set(step, (next = { members: new Map() }));
      node = next;
    }
    node.type = column.type;
  }
  const entries = [...root.members].map(([part, node]) => `${part}: ${quoteString(partType(node))}`);
  entries.push(`meta: ${quoteString('STRUCT("action" VARCHAR, "ts" TIMESTAMPTZ)')}`);
  return `{${entries.join(', ')}}`;
}

/** The key or value part: a STRUCT of its members, each typed as its column, or JSON when it is an object. */
function partType(node: StructNode): string {
  if (node.members.size === 0) return 'JSON'; // a table whose value has no columns
  const fields = [...node.members].map(([name, member]) => `${quoteIdent(name)} ${member.members.size === 0 ? sqlTypeOf(member.type ?? 'json') : 'JSON'}`);
  return `STRUCT(${fields.join(', ')})`;
}
