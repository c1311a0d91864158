// The SQL text of the PostgreSQL target, built from a TargetTable: names, column types, the
// expression that reads each column out of a staged JSONL record (jsonb), the staging and
// merge statements and the meta table, and the DDL a person copies (Copy CREATE TABLE). Pure
// functions; identifiers are always quoted and path members are SQL literals, so a column or
// table name can hold any character.

import type { TargetColumn, TargetTable, TargetType } from './syncTarget';

/** The meta table's schema and name, apart, for the catalog queries that take them so. */
export const META_SCHEMA = 'public';
export const META_NAME = 'dq_sync_state';
export const META_TABLE = `${META_SCHEMA}.${META_NAME}`;

/** The staging table: one jsonb record a row, numbered in the order the files hold them. */
export const STAGE_TABLE = 'dq_stage';
/** The last record of each key, with every column typed, for a change set. */
export const LAST_TABLE = 'dq_last';

export const CREATE_META_TABLE = `CREATE TABLE IF NOT EXISTS ${META_TABLE} (
  namespace text NOT NULL,
  "table" text NOT NULL,
  target_schema text NOT NULL,
  target_table text NOT NULL,
  point timestamptz NOT NULL,
  schema_version integer NOT NULL,
  schema json NOT NULL,
  row_count bigint NOT NULL,
  ran_at timestamptz NOT NULL,
  source text,
  PRIMARY KEY (namespace, "table")
)`;

/** A meta table made before sources were recorded gains the column; its rows have none (NULL). */
export const ADD_SOURCE_COLUMN = `ALTER TABLE ${META_TABLE} ADD COLUMN IF NOT EXISTS source text`;

/** The columns the meta table has now (none when it is missing). */
export const META_COLUMNS = `SELECT a.attname AS name FROM pg_attribute a
  WHERE a.attrelid = to_regclass('${META_TABLE}') AND a.attnum > 0 AND NOT a.attisdropped`;

/**
 * Parameters: namespace, table, point, schema version, schema (JSON text), rows, ran at, and
 * source when `hasSource` (false for a meta table made before sources were recorded that this
 * user may not change: its rows are written as before). The schema is `json`, not `jsonb`, so
 * it comes back as the service wrote it: jsonb would sort its members, and column order
 * (composite keys included) is read from that order.
 */
export function upsertMetaRow(hasSource = true): string {
  return `INSERT INTO ${META_TABLE}
  (namespace, "table", target_schema, target_table, point, schema_version, schema, row_count, ran_at${hasSource ? ', source' : ''})
  VALUES ($1, $2, $1, $2, $3::timestamptz, $4, $5::json, $6, $7::timestamptz${hasSource ? ', $8' : ''})
  ON CONFLICT (namespace, "table") DO UPDATE SET
    target_schema = EXCLUDED.target_schema, target_table = EXCLUDED.target_table,
    point = EXCLUDED.point, schema_version = EXCLUDED.schema_version, schema = EXCLUDED.schema,
    row_count = EXCLUDED.row_count, ran_at = EXCLUDED.ran_at${hasSource ? ', source = EXCLUDED.source' : ''}`;
}

/**
 * Sets the source of a meta row that has none, or has the one it replaces (the same service's,
 * from before client tags were recorded); parameters: namespace, table, source, replaced (or NULL).
 */
export const ADOPT_SOURCE = `UPDATE ${META_TABLE} SET source = $3 WHERE namespace = $1 AND "table" = $2 AND (source IS NULL OR source = $4::text)`;

/** Times come back as UTC text to the microsecond, as stored (a Date would keep milliseconds). */
const UTC_TEXT = `'YYYY-MM-DD"T"HH24:MI:SS.US'`;
/**
 * The meta rows; `hasSource` is false for a meta table made before sources were recorded that
 * is not changed (opened read-only, or by a user who may not add the column).
 */
export function selectMetaRows(hasSource = true): string {
  return `SELECT namespace, "table", to_char(point AT TIME ZONE 'UTC', ${UTC_TEXT}) AS point,
    schema_version, schema, row_count::text AS row_count, to_char(ran_at AT TIME ZONE 'UTC', ${UTC_TEXT}) AS ran_at,
    ${hasSource ? 'source' : 'NULL::text AS source'}
  FROM ${META_TABLE}`;
}

/** `2026-11-20T08:00:00.000000` (from SELECT_META_ROWS) as `2026-11-20T08:00:00Z`. */
export function isoFromUtcText(text: string): string {
  return `${text.replace(/\.?0+$/, '')}Z`;
}

/** The two advisory-lock keys of one table: a fixed class and the table's name. */
export const LOCK_KEYS = `hashtext('dq_sync'), hashtext($1)`;
/** Serialises creating the meta table, and creating a namespace's schema, across syncs. */
export const META_DDL_LOCK = `SELECT pg_advisory_xact_lock(hashtext('dq_sync_ddl'), hashtext($1))`;

/** Who holds the advisory lock of a table, with what the server knows of that session. */
export const LOCK_HOLDER = `SELECT l.pid, a.application_name, host(a.client_addr) AS client_addr, a.backend_start
  FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
    AND l.classid = hashtext('dq_sync')::oid AND l.objid = hashtext($1)::oid
  LIMIT 1`;

const SQL_TYPES: Record<TargetType, string> = {
  integer: 'integer',
  bigint: 'bigint',
  double: 'double precision',
  boolean: 'boolean',
  timestamptz: 'timestamptz',
  date: 'date',
  text: 'text',
  json: 'jsonb',
};

/** How `format_type()` names each type, to compare an existing table with the plan. */
const CATALOG_TYPES: Record<TargetType, string> = {
  ...SQL_TYPES,
  timestamptz: 'timestamp with time zone',
};

export function sqlType(type: TargetType): string {
  return SQL_TYPES[type];
}

export function catalogType(type: TargetType): string {
  return CATALOG_TYPES[type];
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `"etl"`: a name as a GRANT names it, from what the session says (a placeholder when unknown). */
export function grantName(name: string | undefined, placeholder: string): string {
  return name ? quoteIdent(name) : placeholder;
}

/** A string literal (standard_conforming_strings is on: a backslash is an ordinary character). */
export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** `"canvas"."users"`: one schema per namespace. */
export function qualifiedName(namespace: string, table: string): string {
  return `${quoteIdent(namespace)}.${quoteIdent(table)}`;
}

/** The most bytes of a name PostgreSQL keeps (NAMEDATALEN - 1); it drops the rest. */
export const NAME_BYTES = 63;

/** A name as PostgreSQL keeps it: its first 63 bytes of UTF-8, never half a character. */
export function postgresName(name: string): string {
  const bytes = Buffer.from(name, 'utf8');
  if (bytes.length <= NAME_BYTES) return name;
  let cut = NAME_BYTES;
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--; // not inside a character
  return bytes.subarray(0, cut).toString('utf8');
}

/**
 * The advisory lock name of a target table: its schema and table names as PostgreSQL keeps
 * them, so names it holds as one table share one lock (and a name that fits is as before).
 */
export function lockKeyName(namespace: string, table: string): string {
  return `${postgresName(namespace)}.${postgresName(table)}`;
}

/** What the meta table and messages call the target table: `canvas.users`. */
export function lockName(namespace: string, table: string): string {
  return `${namespace}.${table}`;
}

/** Reads one column out of the staged record `doc`, cast to the column's type. */
export function columnValue(column: TargetColumn, doc = 'doc'): string {
  if (column.path.length === 0) throw new Error(`column ${column.name} has an empty path`);
  const members = column.path.map(quoteLiteral);
  const last = members.pop()!;
  const parent = [doc, ...members].join('->');
  if (column.type === 'json') return `NULLIF(${parent}->${last}, 'null'::jsonb)`;
  const text = `(${parent}->>${last})`;
  return column.type === 'text' ? text : `${text}::${sqlType(column.type)}`;
}

export function keyColumns(table: TargetTable): TargetColumn[] {
  return table.columns.filter((c) => c.key);
}

export function columnDefinition(column: TargetColumn): string {
  return `${quoteIdent(column.name)} ${sqlType(column.type)}${column.key ? ' NOT NULL' : ''}`;
}

export function createTable(table: TargetTable, withPrimaryKey: boolean): string {
  const defs = table.columns.map(columnDefinition);
  if (withPrimaryKey) defs.push(primaryKeyClause(table));
  return `CREATE TABLE ${qualifiedName(table.namespace, table.table)} (\n  ${defs.join(',\n  ')}\n)`;
}

/**
 * What a sync creates for a table, as one script a person can run: the namespace's schema and
 * the table with its columns, types, NOT NULL and primary key (the sync adds the key after
 * its first load; the table it ends with is the same).
 */
export function createTableScript(table: TargetTable): string {
  return `-- schema version ${table.schemaVersion}\nCREATE SCHEMA IF NOT EXISTS ${quoteIdent(table.namespace)};\n${createTable(table, true)};\n`;
}

export function primaryKeyClause(table: TargetTable): string {
  return `PRIMARY KEY (${keyColumns(table).map((c) => quoteIdent(c.name)).join(', ')})`;
}

export function addColumn(table: TargetTable, column: TargetColumn): string {
  return `ALTER TABLE ${qualifiedName(table.namespace, table.table)} ADD COLUMN IF NOT EXISTS ${quoteIdent(column.name)} ${sqlType(column.type)}`;
}

export const CREATE_STAGE = `CREATE TEMP TABLE ${STAGE_TABLE} (ord bigint GENERATED ALWAYS AS IDENTITY, doc jsonb) ON COMMIT DROP`;

/**
 * COPY of JSONL lines verbatim: CSV with a quote and a delimiter that JSON text never holds
 * raw (control characters are escaped inside JSON strings), so each line is one field.
 */
export const COPY_STAGE = `COPY ${STAGE_TABLE} (doc) FROM STDIN WITH (FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02')`;

const ACTION = `doc->'meta'->>'action'`;

/**
 * The last record of each key among the staged ones: the newest `meta.ts`, and of equal
 * times the one that came later in the files. Records without a key are kept apart (they
 * fail the load on the key's NOT NULL, rather than vanish).
 */
function lastOfEachKey(table: TargetTable, select: string): string {
  const keys = keyColumns(table).map((c) => columnValue(c));
  return `SELECT DISTINCT ON (${keys.join(', ')}) ${select}
  FROM ${STAGE_TABLE} WHERE doc IS NOT NULL
  ORDER BY ${keys.join(', ')}, (doc->'meta'->>'ts')::timestamptz DESC NULLS LAST, ord DESC`;
}

/**
 * Whether the staged records need the last-of-each-key pass: a key seen twice (logs tables
 * are delivered at least once) or a delete. One pass over the keys, far cheaper than
 * sorting every record, and most snapshots need no more.
 */
export function stageNeedsMerge(table: TargetTable): string {
  const keys = keyColumns(table).map((c) => columnValue(c));
  const distinct = keys.length === 1 ? keys[0] : `(${keys.join(', ')})`;
  return `SELECT count(*) <> count(DISTINCT ${distinct}) OR coalesce(bool_or(${ACTION} = 'D'), false) AS needed
  FROM ${STAGE_TABLE} WHERE doc IS NOT NULL`;
}

/** A snapshot into the emptied table: every key's last record, unless that is a delete. */
export function insertSnapshot(table: TargetTable, merge: boolean): string {
  const names = table.columns.map((c) => quoteIdent(c.name));
  const values = table.columns.map((c) => columnValue(c));
  const into = `INSERT INTO ${qualifiedName(table.namespace, table.table)} (${names.join(', ')})\nSELECT ${values.join(', ')}`;
  if (!merge) return `${into}\nFROM ${STAGE_TABLE} WHERE doc IS NOT NULL`;
  return `${into}
FROM (${lastOfEachKey(table, `${ACTION} AS action, doc`)}) last
WHERE action IS DISTINCT FROM 'D'`;
}

/** A change set's last record of each key, typed, with its action: the source of both merges. */
export function createLastTable(table: TargetTable): string {
  const values = table.columns.map((c, i) => `${columnValue(c)} AS c${i}`);
  return `CREATE TEMP TABLE ${LAST_TABLE} ON COMMIT DROP AS
${lastOfEachKey(table, `${ACTION} AS action, ${values.join(', ')}`)}`;
}

/** Upserts the keys whose last record is not a delete. */
export function upsertChanges(table: TargetTable): string {
  const names = table.columns.map((c) => quoteIdent(c.name));
  const keys = keyColumns(table).map((c) => quoteIdent(c.name));
  const others = table.columns.filter((c) => !c.key).map((c) => quoteIdent(c.name));
  const onConflict = others.length === 0 ? 'DO NOTHING' : `DO UPDATE SET ${others.map((n) => `${n} = EXCLUDED.${n}`).join(', ')}`;
  return `INSERT INTO ${qualifiedName(table.namespace, table.table)} (${names.join(', ')})
SELECT ${table.columns.map((_, i) => `c${i}`).join(', ')} FROM ${LAST_TABLE} WHERE action IS DISTINCT FROM 'D'
ON CONFLICT (${keys.join(', ')}) ${onConflict}`;
}

/** Deletes the keys whose last record is a delete. */
export function deleteChanges(table: TargetTable): string {
  const match = table.columns
    .map((c, i) => (c.key ? `t.${quoteIdent(c.name)} = l.c${i}` : undefined))
    .filter((m): m is string => m !== undefined);
  return `DELETE FROM ${qualifiedName(table.namespace, table.table)} t USING ${LAST_TABLE} l
WHERE l.action = 'D' AND ${match.join(' AND ')}`;
}

/** The columns of an existing table (name and `format_type`) and its primary key, in order. */
export const TABLE_SHAPE = `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
    coalesce((SELECT k.n FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n) WHERE k.attnum = a.attnum), 0)::int AS key_position
  FROM pg_attribute a
  LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
  WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`;
