// The SQL text the DuckDB sync target runs: the target table's DDL, the reader over a job's
// gzip JSONL files (typed by the table's columns, so null and empty text stay apart), the
// newest record of each key (by commit time, then file order, then line order), and the
// statements that apply a snapshot or a change set, and the meta table. Names and file paths
// are quoted; no value from the data ever enters the text.

import { quoteIdent, quoteString } from '../engine/sqlText';
import type { TargetColumn, TargetTable, TargetType } from './syncTarget';

export const META_TABLE = 'main.dq_sync_state';

export const CREATE_META_TABLE = `CREATE TABLE IF NOT EXISTS ${META_TABLE} (
  namespace VARCHAR NOT NULL,
  "table" VARCHAR NOT NULL,
  target_schema VARCHAR NOT NULL,
  target_table VARCHAR NOT NULL,
  point TIMESTAMPTZ NOT NULL,
  schema_version INTEGER NOT NULL,
  "schema" JSON NOT NULL,
  row_count BIGINT NOT NULL,
  ran_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (namespace, "table")
)`;

/** Every column of the meta table, as `readState` and `listStates` read them. */
export const SELECT_STATES = `SELECT namespace, "table", epoch_ms(point) AS point_ms, schema_version, CAST("schema" AS VARCHAR) AS schema_text, row_count, epoch_ms(ran_at) AS ran_ms FROM ${META_TABLE}`;

/** Upserts one meta row; parameters: namespace, table, point, version, schema, rows, ran_at. */
export const UPSERT_STATE = `INSERT OR REPLACE INTO ${META_TABLE} (namespace, "table", target_schema, target_table, point, schema_version, "schema", row_count, ran_at)
  VALUES ($1, $2, $1, $2, CAST($3 AS TIMESTAMPTZ), $4, CAST($5 AS JSON), $6, CAST($7 AS TIMESTAMPTZ))`;

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

/** `"canvas"."users"` */
export function tableName(table: Pick<TargetTable, 'namespace' | 'table'>): string {
  return `${quoteIdent(table.namespace)}.${quoteIdent(table.table)}`;
}

export function createTableSql(table: TargetTable): string {
  const lines = table.columns.map((c) => `  ${quoteIdent(c.name)} ${sqlTypeOf(c.type)}${c.key ? ' NOT NULL' : ''}`);
  lines.push(`  PRIMARY KEY (${keyColumns(table).map((c) => quoteIdent(c.name)).join(', ')})`);
  return `CREATE TABLE ${tableName(table)} (\n${lines.join(',\n')}\n)`;
}

export function addColumnSql(table: TargetTable, column: TargetColumn): string {
  return `ALTER TABLE ${tableName(table)} ADD COLUMN ${quoteIdent(column.name)} ${sqlTypeOf(column.type)}`;
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
    `read_json(${fileList}, format='newline_delimited', compression='auto_detect', filename=true, ` +
    `columns=${recordStructs(table.columns)}) WITH ORDINALITY AS dq_records`;
  const values = table.columns.map((c) => `${fieldPath(c.path)} AS ${quoteIdent(c.name)}`);
  const keys = keyColumns(table).map((c) => fieldPath(c.path));
  const order = `"meta"['ts'] DESC, list_position(${fileList}, dq_records.filename) DESC, dq_records.ordinality DESC`;
  return (
    `SELECT ${values.join(', ')}, "meta"['action'] AS dq_action FROM ${reader}\n` +
    `QUALIFY row_number() OVER (PARTITION BY ${keys.join(', ')} ORDER BY ${order}) = 1`
  );
}

/** Whatever is not a delete is data: the PostgreSQL target decides the same way. */
const IS_UPSERT = `dq_action IS DISTINCT FROM 'D'`;

/** Loads a snapshot into the (new, empty) table: the newest record of each key, deletes left out. */
export function insertSnapshotSql(table: TargetTable, files: readonly string[]): string {
  const names = table.columns.map((c) => quoteIdent(c.name)).join(', ');
  return `INSERT INTO ${tableName(table)} (${names}) SELECT ${names} FROM (${latestRecordsSql(table, files)}) WHERE ${IS_UPSERT}`;
}

export const CHANGES_TABLE = 'dq_changes';

/** Stages the newest record of each changed key in a temporary table of this connection. */
export function stageChangesSql(table: TargetTable, files: readonly string[]): string {
  return `CREATE OR REPLACE TEMPORARY TABLE ${CHANGES_TABLE} AS ${latestRecordsSql(table, files)}`;
}

/** Deletes the rows whose newest change is a delete. */
export function deleteChangedSql(table: TargetTable): string {
  const match = keyColumns(table)
    .map((c) => `${tableName(table)}.${quoteIdent(c.name)} = ${CHANGES_TABLE}.${quoteIdent(c.name)}`)
    .join(' AND ');
  return `DELETE FROM ${tableName(table)} USING ${CHANGES_TABLE} WHERE ${match} AND ${CHANGES_TABLE}.dq_action = 'D'`;
}

/** Inserts or replaces the rows whose newest change is an upsert. */
export function upsertChangedSql(table: TargetTable): string {
  const names = table.columns.map((c) => quoteIdent(c.name)).join(', ');
  return `INSERT OR REPLACE INTO ${tableName(table)} (${names}) SELECT ${names} FROM ${CHANGES_TABLE} WHERE ${IS_UPSERT}`;
}

function keyColumns(table: TargetTable): TargetColumn[] {
  return table.columns.filter((c) => c.key);
}

/** `"value"['address']['city']` */
function fieldPath(path: readonly string[]): string {
  const [part, ...members] = path;
  return `${quoteIdent(part)}${members.map((m) => `[${quoteString(m)}]`).join('')}`;
}

interface StructNode {
  type?: TargetType;
  members: Map<string, StructNode>;
}

/** `{key: 'STRUCT(...)', value: 'STRUCT(...)', meta: 'STRUCT(action VARCHAR, ts TIMESTAMPTZ)'}` for read_json. */
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
  const entries = [...root.members].map(([part, node]) => `${part}: ${quoteString(structType(node))}`);
  entries.push(`meta: ${quoteString('STRUCT("action" VARCHAR, "ts" TIMESTAMPTZ)')}`);
  return `{${entries.join(', ')}}`;
}

function structType(node: StructNode): string {
  if (node.members.size === 0) return sqlTypeOf(node.type ?? 'json');
  const fields = [...node.members].map(([name, member]) => `${quoteIdent(name)} ${structType(member)}`);
  return `STRUCT(${fields.join(', ')})`;
}
