// The SQL text the DuckDB sync target runs: the target table's DDL, the reader over a job's
// gzip JSONL files (typed by the table's columns, so null and empty text stay apart), the
// newest record of each key (by commit time, then file order, then line order), and the
// statements that apply a snapshot (one read of the files; only the keys that repeat are
// sorted) or a change set (one MERGE), and the meta table. Names and file paths
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

/**
 * The table, without a PRIMARY KEY: the key columns are NOT NULL, and each key holds one row
 * because every load keeps one record per key (an ART index would cost more than the rows
 * themselves to build). `loading` adds the columns a snapshot loads its records' action and
 * commit time into, dropped again before the load commits.
 */
export function createTableSql(catalog: string, table: TargetTable, loading?: LoadColumns): string {
  return `CREATE TABLE ${tableName(catalog, table)} (\n${columnLines(table, loading).join(',\n')}\n)`;
}

function columnLines(table: TargetTable, loading?: LoadColumns): string[] {
  const lines = table.columns.map((c) => `  ${quoteIdent(c.name)} ${sqlTypeOf(c.type)}${c.key ? ' NOT NULL' : ''}`);
  if (loading) lines.push(`  ${quoteIdent(loading.action)} VARCHAR`, `  ${quoteIdent(loading.ts)} TIMESTAMPTZ`);
  return lines;
}

export function addColumnSql(catalog: string, table: TargetTable, column: TargetColumn): string {
  return `ALTER TABLE ${tableName(catalog, table)} ADD COLUMN ${quoteIdent(column.name)} ${sqlTypeOf(column.type)}`;
}

export function dropColumnSql(catalog: string, table: TargetTable, column: string): string {
  return `ALTER TABLE ${tableName(catalog, table)} DROP COLUMN ${quoteIdent(column)}`;
}

/**
 * The names of the columns a load adds for a while, each record's action and commit time,
 * named apart from the table's own columns as DuckDB compares names (`dq_action`, or
 * `dq_action_2` where the table has one).
 */
export interface LoadColumns {
  action: string;
  ts: string;
}

export function loadColumnsOf(table: TargetTable): LoadColumns {
  const taken = new Set(table.columns.map((c) => foldCase(c.name)));
  const free = (base: string): string => {
    let name = base;
    for (let n = 2; taken.has(foldCase(name)); n++) name = `${base}_${n}`;
    taken.add(foldCase(name));
    return name;
  };
  return { action: free('dq_action'), ts: free('dq_ts') };
}

/** DuckDB folds ASCII letters only in names. */
function foldCase(name: string): string {
  return name.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
}

/** Whatever is not a delete is data: the PostgreSQL target decides the same way. */
const isUpsert = (action: string): string => `${action} IS DISTINCT FROM 'D'`;

/**
 * Every record of the files into the table `into` (a new table, or the staged changes) as it
 * comes, with its action and commit time in the `loading` columns: one read of the files, in
 * parallel, no sort. DuckDB keeps the files' order in the table (they are read in the order
 * given, each from its first line, and insertion order is kept), so a row's `rowid` tells the
 * later file, then the later line. What a key's newer record supersedes leaves afterwards
 * (`supersededSql`), when a key repeats (`loadedFactsSql`).
 */
export function loadRecordsSql(into: string, table: TargetTable, files: readonly string[], loading: LoadColumns): string {
  const fileList = `[${files.map(quoteString).join(', ')}]`;
  const reader = `read_json(${fileList}, format='newline_delimited', compression='auto_detect', maximum_object_size=${MAX_RECORD_BYTES}, columns=${recordStructs(table.columns)})`;
  const names = [...table.columns.map((c) => c.name), loading.action, loading.ts].map(quoteIdent).join(', ');
  const values = [...table.columns.map(columnValue), `"meta"['action']`, `"meta"['ts']`].join(', ');
  return `INSERT INTO ${into} (${names}) SELECT ${values} FROM ${reader}`;
}

/**
 * Two counts over the loaded records, in one pass: records beyond the first of their key's hash
 * (none means no key repeats; a hash two keys share only costs `supersededSql` a pass that
 * deletes nothing), and the records that are deletes.
 */
export function loadedFactsSql(from: string, table: TargetTable, loading: LoadColumns): string {
  const keys = keyColumns(table).map((c) => quoteIdent(c.name)).join(', ');
  return `SELECT count(*) - count(DISTINCT hash(${keys})) AS repeats, count(*) FILTER (WHERE ${quoteIdent(loading.action)} = 'D') AS deletes FROM ${from}`;
}

/**
 * Deletes from the loaded records `from` every one a newer record of its key supersedes, so
 * that each key keeps its newest: by commit time, then the later file, then the later line (a
 * key delivered twice ends as its last delivery). Ranks only the records of keys that repeat.
 */
export function supersededSql(from: string, table: TargetTable, loading: LoadColumns): string {
  const keys = keyColumns(table).map((c) => quoteIdent(c.name));
  const match = keys.map((k) => `dq_loaded.${k} = dq_repeated.${k}`).join(' AND ');
  const repeated = `SELECT ${keys.join(', ')} FROM ${from} GROUP BY ${keys.join(', ')} HAVING count(*) > 1`;
  const ranked =
    `SELECT dq_loaded.rowid AS dq_row, row_number() OVER (PARTITION BY ${keys.map((k) => `dq_loaded.${k}`).join(', ')} ` +
    `ORDER BY dq_loaded.${quoteIdent(loading.ts)} DESC, dq_loaded.rowid DESC) AS dq_rank ` +
    `FROM ${from} AS dq_loaded SEMI JOIN (${repeated}) AS dq_repeated ON ${match}`;
  return `DELETE FROM ${from} WHERE rowid IN (SELECT dq_row FROM (${ranked}) WHERE dq_rank > 1)`;
}

/** Deletes the keys whose newest record is a delete (once no key repeats). */
export function deletedSql(from: string, loading: LoadColumns): string {
  return `DELETE FROM ${from} WHERE ${quoteIdent(loading.action)} = 'D'`;
}

export const CHANGES_TABLE = 'dq_changes';

/** The temporary table of this connection that stages a change set's records, with their action and commit time. */
export function createChangesTableSql(table: TargetTable, loading: LoadColumns): string {
  return `CREATE OR REPLACE TEMPORARY TABLE ${CHANGES_TABLE} (\n${columnLines(table, loading).join(',\n')}\n)`;
}

/** The staged changes that are upserts. */
export function countUpsertsSql(action: string): string {
  return `SELECT count(*) FROM ${CHANGES_TABLE} WHERE ${isUpsert(quoteIdent(action))}`;
}

/**
 * Applies the staged changes in one pass over the table: a key whose newest change is a delete
 * is deleted, one whose newest change is an upsert is updated or inserted. Works on tables
 * made with a PRIMARY KEY by earlier versions too (their key columns are never updated to
 * other values). The rows it changes are the deletes plus every staged upsert.
 */
export function mergeChangesSql(catalog: string, table: TargetTable, action: string): string {
  const t = tableName(catalog, table);
  const staged = (c: TargetColumn): string => `${CHANGES_TABLE}.${quoteIdent(c.name)}`;
  const match = keyColumns(table).map((c) => `${t}.${quoteIdent(c.name)} = ${staged(c)}`).join(' AND ');
  // a table of key columns only has nothing else to set: its key, to itself, counts the upsert
  const values = table.columns.filter((c) => !c.key);
  const set = (values.length > 0 ? values : keyColumns(table)).map((c) => `${quoteIdent(c.name)} = ${staged(c)}`).join(', ');
  const names = table.columns.map((c) => quoteIdent(c.name)).join(', ');
  const act = `${CHANGES_TABLE}.${quoteIdent(action)}`;
  return (
    `MERGE INTO ${t} USING ${CHANGES_TABLE} ON ${match}\n` +
    `WHEN MATCHED AND ${act} = 'D' THEN DELETE\n` +
    `WHEN MATCHED THEN UPDATE SET ${set}\n` +
    `WHEN NOT MATCHED AND ${isUpsert(act)} THEN INSERT (${names}) VALUES (${table.columns.map(staged).join(', ')})`
  );
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
