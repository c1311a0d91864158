// The names and SQL text of the MySQL target, built from a TargetTable. Pure functions;
// identifiers are always quoted with backticks, so a column or table name can hold any
// character MySQL allows in a name.
//
// Names: every table lives in the URL's one database as `<namespace>__<table>` (`canvas__users`),
// beside the meta table `dq_sync_state`. MySQL takes a name of at most 64 characters, without a
// trailing space and within the Basic Multilingual Plane; a longer or otherwise unusable name is
// refused before any job, naming the table (never shortened: a shortened name would be a name
// nobody wrote). Column names compare without case everywhere in MySQL, and table names on
// Windows and macOS (lower_case_table_names); MySQL 8 also takes accented letters for their
// plain forms in column names. So two names that differ only so are one name here (`nameKey`),
// whatever this server does, and the runner refuses them as one.

import { createHash } from 'node:crypto';
import type { TargetColumn, TargetTable, TargetType } from './syncTarget';

export const META_TABLE = 'dq_sync_state';
/** The copy of the meta table a snapshot swaps in with its table (see mysqlSnapshot.ts). */
export const META_NEXT = 'dq_sync_state_next';
/** The meta table a swap replaced, dropped right after. */
export const META_PREV = 'dq_sync_state_prev';
export const STAGE_TABLE = 'dq_stage';
export const LAST_TABLE = 'dq_last';
/** The longest name MySQL takes, in characters. */
export const NAME_CHARS = 64;
/** What separates the namespace from the table in a table's name. */
export const NAMESPACE_SEPARATOR = '__';
/** Bytes of a key InnoDB indexes (DYNAMIC rows, the default of MySQL 8 and MariaDB 10.11). */
const INDEX_BYTES = 3072;
/** The longest VARCHAR a text key column gets (a single text key: 3072 bytes of utf8mb4). */
const MAX_KEY_CHARS = 768;

export function quoteIdent(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

/** The table that holds a service table: `canvas__users`. */
export function tableName(namespace: string, table: string): string {
  return `${namespace}${NAMESPACE_SEPARATOR}${table}`;
}

/** What messages call the service table: `canvas.users`. */
export function shownTable(namespace: string, table: string): string {
  return `${namespace}.${table}`;
}

/** A name as MySQL compares it, at its most forgiving: without case, accents or the difference of ß and s. */
export function mysqlNameKey(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/ß/g, 's').normalize('NFC');
}

export const NAMING_RULE = 'MySQL does not tell upper from lower case apart in column names (nor in table names on some systems), and MySQL 8 takes accented letters for plain ones in column names';

/** Why MySQL would refuse this name (of a table or column), or undefined when it takes it. */
export function mysqlNameProblem(name: string): string | undefined {
  const chars = [...name];
  if (chars.length > NAME_CHARS) return `is ${chars.length} characters long, and MySQL takes names of at most ${NAME_CHARS}`;
  if (name.endsWith(' ')) return 'ends with a space, which MySQL does not allow in a name';
  if (chars.some((c) => c.codePointAt(0)! > 0xffff)) return 'holds a character outside the Basic Multilingual Plane (an emoji, say), which MySQL does not allow in a name';
  return undefined;
}

/** A short digest of a text, for names that must fit MySQL's limits. */
function digest(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** The user-level lock (GET_LOCK) of a table: one per database and table nameKey, within MySQL's 64 characters. */
export function tableLockName(database: string, namespace: string, table: string): string {
  return `dq_sync:${digest(`${database}\u0000${mysqlNameKey(tableName(namespace, table))}`, 40)}`;
}

/** The user-level lock that serialises writes of the meta table of one database (a run's meta row, a snapshot's swap). */
export function metaLockName(database: string): string {
  return `dq_sync_meta:${digest(database, 40)}`;
}

/** The names a snapshot of a table builds in and swaps out to: fixed per table (the table's lock guards them). */
export function swapNames(namespace: string, table: string): { fresh: string; old: string } {
  const id = digest(mysqlNameKey(tableName(namespace, table)), 16);
  return { fresh: `dq_new_${id}`, old: `dq_old_${id}` };
}

export function keyColumns(table: TargetTable): TargetColumn[] {
  return table.columns.filter((c) => c.key);
}

/** The VARCHAR length of the table's text (and JSON) key columns, so that its primary key fits an index. */
export function textKeyChars(table: TargetTable): number | undefined {
  const keys = keyColumns(table);
  const text = keys.filter((c) => c.type === 'text' || c.type === 'json').length;
  if (text === 0) return undefined;
  const fixed = (keys.length - text) * 8;
  return Math.min(MAX_KEY_CHARS, Math.floor((INDEX_BYTES - fixed) / 4 / text));
}

const SQL_TYPES: Record<TargetType, string> = {
  integer: 'INT',
  bigint: 'BIGINT',
  double: 'DOUBLE',
  boolean: 'TINYINT(1)',
  timestamptz: 'DATETIME(6)',
  date: 'DATE',
  text: 'LONGTEXT',
  json: 'JSON',
};

/**
 * The column's type: text keys as VARCHAR in `keyCollation` (binary and without padding, so
 * keys compare byte for byte as the service compares them); LONGTEXT and JSON otherwise.
 */
export function sqlType(column: TargetColumn, table: TargetTable, keyCollation: string): string {
  if (column.key && (column.type === 'text' || column.type === 'json')) {
    return `VARCHAR(${textKeyChars(table)}) CHARACTER SET utf8mb4 COLLATE ${keyCollation}`;
  }
  return SQL_TYPES[column.type];
}

function columnDefinition(column: TargetColumn, table: TargetTable, keyCollation: string, notNullKeys: boolean): string {
  return `${quoteIdent(column.name)} ${sqlType(column, table, keyCollation)}${column.key && notNullKeys ? ' NOT NULL' : ''}`;
}

export function primaryKeyClause(table: TargetTable, names: (c: TargetColumn, i: number) => string = (c) => quoteIdent(c.name)): string {
  return `PRIMARY KEY (${table.columns.map((c, i) => (c.key ? names(c, i) : undefined)).filter((n) => n !== undefined).join(', ')})`;
}

const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4';

/** The table of a service table, under `name`, with its primary key (or without it yet, for a load that adds it after). */
export function createTable(table: TargetTable, name: string, keyCollation: string, withPrimaryKey = true): string {
  const defs = table.columns.map((c) => columnDefinition(c, table, keyCollation, true));
  if (withPrimaryKey) defs.push(primaryKeyClause(table));
  return `CREATE TABLE ${quoteIdent(name)} (\n  ${defs.join(',\n  ')}\n) ${TABLE_OPTIONS}`;
}

/** What a sync creates for a table, as a statement a person can run. */
export function createTableScript(table: TargetTable, keyCollation: string): string {
  return `-- schema version ${table.schemaVersion}\n${createTable(table, tableName(table.namespace, table.table), keyCollation)};\n`;
}

export function addColumn(name: string, column: TargetColumn, table: TargetTable, keyCollation: string): string {
  return `ALTER TABLE ${quoteIdent(name)} ADD COLUMN ${columnDefinition(column, table, keyCollation, false)}`;
}

/** The primary key added to a table loaded without it: one sorted build instead of an insert into the key per row. */
export function addPrimaryKey(table: TargetTable, name: string): string {
  return `ALTER TABLE ${quoteIdent(name)} ADD ${primaryKeyClause(table)}`;
}

/** The stage's name of a column: `c0`, `c1`, ... in the table's column order (never one of the service's names). */
export function stageColumn(i: number): string {
  return `c${i}`;
}

/**
 * The session's staging table of a change set (or a snapshot that needs merging): every column
 * typed as in the table (c0, c1, ...), the record's commit time, its action and its place in the
 * job's files, which is its key (so every record is kept, and a server that requires a primary
 * key has one).
 */
export function createStage(table: TargetTable, keyCollation: string): string {
  const defs = table.columns.map((c, i) => `${stageColumn(i)} ${sqlType(c, table, keyCollation)}`);
  defs.push('dq_ts DATETIME(6) NULL', 'dq_action CHAR(1) CHARACTER SET ascii NULL', 'dq_ord BIGINT NOT NULL', 'PRIMARY KEY (dq_ord)');
  return `CREATE TEMPORARY TABLE ${STAGE_TABLE} (\n  ${defs.join(',\n  ')}\n) ${TABLE_OPTIONS}`;
}

/** The stage's columns in the order its rows are loaded. */
export function stageLoadColumns(table: TargetTable): string[] {
  return [...table.columns.map((_, i) => stageColumn(i)), 'dq_ts', 'dq_action', 'dq_ord'];
}

/**
 * `LOAD DATA LOCAL INFILE` of rows in the default text format into `into` (its `columns` in
 * order). LOCAL loads as IGNORE would: values that do not fit and repeated keys are warnings,
 * which the loader reads back.
 */
export function loadDataStatement(into: string, columns: readonly string[]): string {
  return `LOAD DATA LOCAL INFILE 'dq-sync-rows' INTO TABLE ${quoteIdent(into)} CHARACTER SET utf8mb4
  FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n'
  (${columns.map(quoteIdent).join(', ')})`;
}

/** The last record of each staged key: the newest commit time, and of equal times the one later in the files. */
function lastOfEachKey(table: TargetTable): string {
  const keys = table.columns.map((c, i) => (c.key ? stageColumn(i) : undefined)).filter((k) => k !== undefined);
  const all = table.columns.map((_, i) => stageColumn(i)).join(', ');
  return `SELECT ${all}, dq_action FROM (
    SELECT ${all}, dq_action, ROW_NUMBER() OVER (PARTITION BY ${keys.join(', ')} ORDER BY dq_ts DESC, dq_ord DESC) AS dq_rn FROM ${STAGE_TABLE}
  ) ranked WHERE dq_rn = 1`;
}

/** Whether the staged records hold a key twice or a delete, so a snapshot needs the last of each key. */
export function stageNeedsMerge(table: TargetTable): string {
  const keys = table.columns.map((c, i) => (c.key ? stageColumn(i) : undefined)).filter((k) => k !== undefined);
  return `SELECT (COUNT(*) <> COUNT(DISTINCT ${keys.join(', ')}) OR COALESCE(MAX(dq_action = 'D'), 0)) AS needed FROM ${STAGE_TABLE}`;
}

/** A snapshot from the stage into `into`: every key's last record, unless that is a delete (or every record, when none needs merging). */
export function insertFromStage(table: TargetTable, into: string, merge: boolean): string {
  const names = table.columns.map((c) => quoteIdent(c.name)).join(', ');
  const values = table.columns.map((_, i) => stageColumn(i)).join(', ');
  if (!merge) return `INSERT INTO ${quoteIdent(into)} (${names}) SELECT ${values} FROM ${STAGE_TABLE}`;
  return `INSERT INTO ${quoteIdent(into)} (${names}) SELECT ${values} FROM (${lastOfEachKey(table)}) last_of_key WHERE dq_action <> 'D'`;
}

/** A change set's last record of each key, with its action: the source of the deletes and the upserts. */
export function createLastTable(table: TargetTable): string {
  return `CREATE TEMPORARY TABLE ${LAST_TABLE} (${primaryKeyClause(table, (_, i) => stageColumn(i))}) ${TABLE_OPTIONS} AS ${lastOfEachKey(table)}`;
}

/** Deletes the keys whose last record is a delete. */
export function deleteChanges(table: TargetTable, name: string): string {
  const match = table.columns.map((c, i) => (c.key ? `t.${quoteIdent(c.name)} = l.${stageColumn(i)}` : undefined)).filter((m) => m !== undefined);
  return `DELETE t FROM ${quoteIdent(name)} AS t JOIN ${LAST_TABLE} AS l ON ${match.join(' AND ')} WHERE l.dq_action = 'D'`;
}

/** Upserts the keys whose last record is not a delete. */
export function upsertChanges(table: TargetTable, name: string): string {
  const names = table.columns.map((c) => quoteIdent(c.name));
  const values = table.columns.map((_, i) => stageColumn(i));
  const others = table.columns.filter((c) => !c.key).map((c) => quoteIdent(c.name));
  const update = others.length > 0 ? others.map((n) => `${n} = VALUES(${n})`) : [`${names[0]} = ${names[0]}`];
  return `INSERT INTO ${quoteIdent(name)} (${names.join(', ')}) SELECT ${values.join(', ')} FROM ${LAST_TABLE} WHERE dq_action <> 'D'
  ON DUPLICATE KEY UPDATE ${update.join(', ')}`;
}

/** The keys a change set upserts: those whose last record is not a delete. */
export const COUNT_UPSERTS = `SELECT COUNT(*) AS n FROM ${LAST_TABLE} WHERE dq_action <> 'D'`;

/** The meta table: one row per service table, as the other targets keep it. */
export function createMetaTable(name: string, keyCollation: string): string {
  const key = `VARCHAR(255) CHARACTER SET utf8mb4 COLLATE ${keyCollation} NOT NULL`;
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(name)} (
  namespace ${key},
  \`table\` ${key},
  target_schema VARCHAR(64) NOT NULL,
  target_table VARCHAR(64) NOT NULL,
  point DATETIME(6) NOT NULL,
  schema_version INT NOT NULL,
  \`schema\` LONGTEXT NOT NULL,
  row_count BIGINT NOT NULL,
  ran_at DATETIME(6) NOT NULL,
  source TEXT NULL,
  PRIMARY KEY (namespace, \`table\`)
) ${TABLE_OPTIONS}`;
}

/**
 * Writes a meta row into `into` (the meta table, or the copy a snapshot swaps in). Parameters:
 * namespace, table, target schema, target table, point, schema version, schema (JSON text, as
 * the service wrote it: LONGTEXT keeps member order, which JSON would not), rows, ran at, source.
 */
export function upsertMetaRow(into: string): string {
  return `INSERT INTO ${quoteIdent(into)}
  (namespace, \`table\`, target_schema, target_table, point, schema_version, \`schema\`, row_count, ran_at, source)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON DUPLICATE KEY UPDATE target_schema = VALUES(target_schema), target_table = VALUES(target_table), point = VALUES(point),
    schema_version = VALUES(schema_version), \`schema\` = VALUES(\`schema\`), row_count = VALUES(row_count), ran_at = VALUES(ran_at), source = VALUES(source)`;
}

/** Times come back as UTC text to the microsecond, as stored. */
export const SELECT_META_ROWS = `SELECT namespace, \`table\`, DATE_FORMAT(point, '%Y-%m-%d %H:%i:%s.%f') AS point, schema_version, \`schema\`,
    CAST(row_count AS CHAR) AS row_count, DATE_FORMAT(ran_at, '%Y-%m-%d %H:%i:%s.%f') AS ran_at, source
  FROM ${quoteIdent(META_TABLE)}`;

/** Sets the source of a meta row that has none, or has the one it replaces; parameters: source, namespace, table, replaced (or NULL). */
export const ADOPT_SOURCE = `UPDATE ${quoteIdent(META_TABLE)} SET source = ? WHERE namespace = ? AND \`table\` = ? AND (source IS NULL OR source = ?)`;
