// The statements that make a lake table (Parquet files in an object store, see lakeState.ts)
// queryable by an engine that knows nothing of dq, from the table's state and its location
// (`s3://bucket/prefix/<namespace>/<table>/`). Pure: text in, text out.
//
// - Athena (Glue catalog): an external table over the Hive symlink manifest
//   (`_symlink_format_manifest/manifest`), so every query reads exactly the files of the latest
//   complete state, and a sync needs no new DDL (but a schema change: `ADD COLUMNS`).
// - Trino's Hive connector reads such a table but cannot create one (its CREATE TABLE knows no
//   symlink input format): the same Hive DDL, run in Hive, Spark SQL with Hive support or Athena
//   on the metastore Trino's catalog uses; a later added column with Trino's own ALTER TABLE.
// - Spark reads no Parquet through a symlink manifest: a temporary view over the state's files
//   with the table's columns (a file without a later added column reads as NULL there).
// - DuckDB: a view over `read_parquet` of the state's files, typed by the table's columns.
// Spark's and DuckDB's views list the files, so they are made again after each sync.
//
// Every name and path is quoted and escaped as the engine wants it: names and keys come from the
// service and the store, never pasted raw. Hive and Athena take only lower-case letters, digits
// and `_` in table names: there the table is `<namespace>__<table>`, each part as its Parquet
// name key (`canvas__user_logins`); DuckDB names it as the DuckDB target does (`"canvas"."users"`).

import { DqError } from '../client/errors';
import type { LakeState } from './lakeState';
import type { TargetColumn, TargetType } from './syncTarget';

export const DDL_ENGINES = ['athena', 'trino', 'spark', 'duckdb'] as const;
export type DdlEngine = (typeof DDL_ENGINES)[number];

export function isDdlEngine(text: string): text is DdlEngine {
  return (DDL_ENGINES as readonly string[]).includes(text);
}

/** What a schema change taken on in place asks of a table made before it. */
export interface SchemaChangeDdl {
  schemaVersion: number;
  /** when the sync took it on (ISO) */
  at: string;
  /** the Parquet names of the columns it added */
  added: string[];
  /** the engine's statements that add them to a table made earlier (none for a view, which its statement makes again) */
  statements: string[];
  /** for a person: what to run */
  note: string;
}

export interface TableDdl {
  engine: DdlEngine;
  namespace: string;
  table: string;
  /** the table as the engine names it */
  name: string;
  /** comment lines for a person (the point reached, the schema version, what the engine needs) */
  notes: string[];
  /** the statements that make the table queryable, in order, without a closing `;` */
  statements: string[];
  /** schema changes taken on in place, oldest first */
  schemaChanges: SchemaChangeDdl[];
}

const HIVE_SERDE = 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe';
const SYMLINK_INPUT = 'org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat';
const IGNORE_KEY_OUTPUT = 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat';
export const MANIFEST_FOLDER = '_symlink_format_manifest/';

/** Athena's and Hive's names (Glue and the Hive metastore); Trino reads Hive's `timestamp` as `timestamp(3)` (`timestamp(6)` with hive.timestamp-precision=MICROSECONDS). */
const HIVE_TYPES: Record<TargetType, string> = {
  bigint: 'bigint',
  integer: 'int',
  double: 'double',
  boolean: 'boolean',
  timestamptz: 'timestamp',
  date: 'date',
  text: 'string',
  json: 'string',
};

/** Trino's names, as its ALTER TABLE takes them (the Hive connector stores them as Hive's types above). */
const TRINO_TYPES: Record<TargetType, string> = {
  bigint: 'bigint',
  integer: 'integer',
  double: 'double',
  boolean: 'boolean',
  timestamptz: 'timestamp(3)',
  date: 'date',
  text: 'varchar',
  json: 'varchar',
};

const SPARK_TYPES: Record<TargetType, string> = {
  bigint: 'BIGINT',
  integer: 'INT',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamptz: 'TIMESTAMP',
  date: 'DATE',
  text: 'STRING',
  json: 'STRING',
};

/** DuckDB reads the Parquet timestamps (adjusted to UTC) as TIMESTAMPTZ, and json as its text. */
const DUCKDB_TYPES: Record<TargetType, string> = {
  bigint: 'BIGINT',
  integer: 'INTEGER',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamptz: 'TIMESTAMPTZ',
  date: 'DATE',
  text: 'VARCHAR',
  json: 'VARCHAR',
};

/** The statements that make the table of `state`, found at `location` (`s3://bucket/prefix/<ns>/<table>/`), queryable by `engine`. */
export function lakeDdl(engine: DdlEngine, state: LakeState, location: string): TableDdl {
  const bucket = bucketOf(location);
  const folder = location.endsWith('/') ? location : `${location}/`;
  const urls = state.files.map((f) => `s3://${bucket}/${f.key}`);
  const base = { engine, namespace: state.namespace, table: state.table, notes: [summaryOf(state)] };
  switch (engine) {
    case 'athena': {
      const name = hiveTableName(state);
      return manifestTable(base, state, folder, ['Athena (Glue catalog): reads the files the manifest lists, so a sync needs no new DDL; run it in the database the query editor uses'], (added) => ({
        statements: [`ALTER TABLE ${quoteHive(name)} ADD COLUMNS (${added.map((c) => hiveColumn(c)).join(', ')})`],
        note: 'for a table created before it, add them',
      }));
    }
    case 'trino': {
      const name = hiveTableName(state);
      const notes = [
        "Trino's Hive connector reads a symlink-manifest table but cannot create one: run this CREATE in Hive, Spark SQL with Hive support or Athena,",
        `on the metastore (Hive metastore or Glue) of Trino's Hive catalog; then in Trino: SELECT * FROM hive.<schema>.${quoteTrino(name)}`,
        "Trino reads the timestamps as timestamp(3), or timestamp(6) with the catalog's hive.timestamp-precision=MICROSECONDS",
      ];
      return manifestTable(base, state, folder, notes, (added) => ({
        statements: added.map((c) => `ALTER TABLE ${quoteTrino(name)} ADD COLUMN ${quoteTrino(c.name)} ${TRINO_TYPES[c.type]}`),
        note: 'for a table created before it, add them in Trino (in the schema that holds the table)',
      }));
    }
    case 'spark': {
      const name = hiveTableName(state);
      return {
        ...base,
        name,
        notes: [
          ...base.notes,
          'Spark reads no Parquet through a symlink manifest: a temporary view over the files of this state (needs hadoop-aws for s3a://);',
          'make it again after each sync',
        ],
        statements: [sparkView(quoteSpark(name), state.columns, urls)],
        schemaChanges: viewChanges(state),
      };
    }
    case 'duckdb': {
      const schema = quoteDuckdb(state.namespace);
      const name = `${schema}.${quoteDuckdb(state.table)}`;
      return {
        ...base,
        name: `${state.namespace}.${state.table}`,
        notes: [
          ...base.notes,
          "DuckDB: needs the httpfs extension and S3 credentials (CREATE SECRET (TYPE s3, PROVIDER credential_chain)); the view lists this state's files: make it again after each sync",
        ],
        statements: [`CREATE SCHEMA IF NOT EXISTS ${schema}`, duckdbView(name, state.columns, urls)],
        schemaChanges: viewChanges(state),
      };
    }
  }
}

/** The statements as a person runs them: comment lines, each statement closed by `;`, schema changes after. */
export function ddlText(ddl: TableDdl): string {
  const lines = ddl.notes.map(comment);
  for (const statement of ddl.statements) lines.push(`${statement};`);
  for (const change of ddl.schemaChanges) {
    lines.push('', comment(`schema v${change.schemaVersion} (${change.at}) added ${change.added.join(', ')}; ${change.note}`));
    for (const statement of change.statements) lines.push(`${statement};`);
  }
  return `${lines.join('\n')}\n`;
}

/** `canvas__user_logins`: the namespace and the table as Hive and Athena take a table's name. */
export function hiveTableName(state: Pick<LakeState, 'namespace' | 'table'>): string {
  return `${nameKey(state.namespace)}__${nameKey(state.table)}`;
}

/** The Parquet name key of the layout: lower case, anything but a-z, 0-9 and _ as _. */
function nameKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9_]/g, '_');
}

function summaryOf(state: LakeState): string {
  const keys = state.columns.filter((c) => c.key).map((c) => c.name);
  const files = `${state.files.length} file${state.files.length === 1 ? '' : 's'}`;
  return `${state.namespace}.${state.table} at ${state.point}, schema v${state.schemaVersion}, key (${keys.join(', ')}), ${files}, ${state.rows.toLocaleString('en-US')} rows`;
}

function changesOf(state: LakeState, make: (added: TargetColumn[]) => Pick<SchemaChangeDdl, 'statements' | 'note'>): SchemaChangeDdl[] {
  return (state.schemaChanges ?? []).map((change) => {
    const added = change.added.map((n) => state.columns.find((c) => c.name === n)).filter((c): c is TargetColumn => c !== undefined);
    return { schemaVersion: change.schemaVersion, at: change.at, added: added.map((c) => c.name), ...make(added) };
  });
}

/**
 * The Hive table over the symlink manifest in `folder` that Athena and Trino read, named as Hive
 * and Athena take a table's name; `notes` say what the engine needs, `addColumns` how a table
 * made before a schema change gains its columns.
 */
function manifestTable(
  base: Pick<TableDdl, 'engine' | 'namespace' | 'table' | 'notes'>,
  state: LakeState,
  folder: string,
  notes: string[],
  addColumns: (added: TargetColumn[]) => Pick<SchemaChangeDdl, 'statements' | 'note'>,
): TableDdl {
  const name = hiveTableName(state);
  return {
    ...base,
    name,
    notes: [...base.notes, ...notes],
    statements: [hiveCreate(quoteHive(name), state.columns, folder)],
    schemaChanges: changesOf(state, addColumns),
  };
}

/** A view lists the state's columns: one made again after a schema change has them, with no statement of its own. */
function viewChanges(state: LakeState): SchemaChangeDdl[] {
  return changesOf(state, () => ({ statements: [], note: 'the view above has them: a view made before it gains them when made again' }));
}

function hiveCreate(name: string, columns: readonly TargetColumn[], folder: string): string {
  return [
    `CREATE EXTERNAL TABLE ${name} (`,
    columns.map((c) => `  ${hiveColumn(c)}`).join(',\n'),
    ')',
    `ROW FORMAT SERDE '${HIVE_SERDE}'`,
    `STORED AS INPUTFORMAT '${SYMLINK_INPUT}'`,
    `OUTPUTFORMAT '${IGNORE_KEY_OUTPUT}'`,
    `LOCATION ${hiveString(folder + MANIFEST_FOLDER)}`,
  ].join('\n');
}

/** `` `address_city` string COMMENT 'value.address.city' ``: the field of the service the column holds. */
function hiveColumn(c: TargetColumn): string {
  return `${quoteHive(c.name)} ${HIVE_TYPES[c.type]} COMMENT ${hiveString(c.path.join('.'))}`;
}

function sparkView(name: string, columns: readonly TargetColumn[], urls: readonly string[]): string {
  if (urls.length === 0) return `CREATE OR REPLACE TEMPORARY VIEW ${name} AS\nSELECT ${typedNulls(columns, SPARK_TYPES, quoteSpark)} WHERE false`;
  return [
    `CREATE OR REPLACE TEMPORARY VIEW ${name} (`,
    columns.map((c) => `  ${quoteSpark(c.name)} ${SPARK_TYPES[c.type]}`).join(',\n'),
    ')',
    `USING parquet OPTIONS (path ${sparkString(hadoopGlob(urls.map((u) => u.replace(/^s3:\/\//, 's3a://'))))})`,
  ].join('\n');
}

/**
 * The files as one Hadoop glob (Spark's parquet source takes one path): their common folder,
 * then the rest of each name as an alternative, `s3a://b/t/data/{f1.parquet,f2.parquet}`, with
 * the glob's own characters escaped.
 */
function hadoopGlob(urls: readonly string[]): string {
  if (urls.length === 1) return escapeGlob(urls[0]);
  let folder = urls[0].slice(0, urls[0].lastIndexOf('/') + 1);
  for (const url of urls) while (!url.startsWith(folder)) folder = folder.slice(0, folder.lastIndexOf('/', folder.length - 2) + 1);
  return `${escapeGlob(folder)}{${urls.map((u) => escapeGlob(u.slice(folder.length))).join(',')}}`;
}

function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]{},]/g, (ch) => `\\${ch}`);
}

function duckdbView(name: string, columns: readonly TargetColumn[], urls: readonly string[]): string {
  const typed = `SELECT ${typedNulls(columns, DUCKDB_TYPES, quoteDuckdb)} WHERE false`;
  if (urls.length === 0) return `CREATE OR REPLACE VIEW ${name} AS\n${typed}`;
  for (const url of urls) {
    // DuckDB reads these as patterns, and has no way to escape them
    if (/[*?[]/.test(url)) {
      throw new DqError('invalidResponse', `DuckDB cannot be given the file ${url}: its name holds a character DuckDB reads as a pattern (* ? [).`, {
        hint: 'Query the table through its manifest with another engine, or rename the prefix.',
      });
    }
  }
  // the typed empty row set gives every column its type, and a column no file has yet (added
  // by a schema change before any row had it) reads as NULL instead of missing
  return [
    `CREATE OR REPLACE VIEW ${name} AS`,
    `SELECT * FROM (${typed})`,
    'UNION ALL BY NAME',
    `SELECT * FROM read_parquet([${urls.map(quoteDuckdbString).join(', ')}], union_by_name = true)`,
  ].join('\n');
}

function typedNulls(columns: readonly TargetColumn[], types: Record<TargetType, string>, quote: (name: string) => string): string {
  return columns.map((c) => `CAST(NULL AS ${types[c.type]}) AS ${quote(c.name)}`).join(', ');
}

function bucketOf(location: string): string {
  const m = /^s3:\/\/([^/]+)(\/|$)/.exec(location);
  if (!m) throw new DqError('usage', `The lake table's location ${JSON.stringify(location)} is not an s3://bucket/prefix/ URL.`);
  return m[1];
}

/** A comment line: nothing from the state can end it early and start a statement. */
function comment(text: string): string {
  return `-- ${text.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]/g, ' ')}`;
}

/** Hive, Athena and Spark quote names in backticks, a backtick doubled inside. */
function quoteHive(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

const quoteSpark = quoteHive;

function quoteTrino(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const quoteDuckdb = quoteTrino;

/** A Hive (Athena) string literal: backslash escapes, as Hive reads them. */
function hiveString(text: string): string {
  return `'${escapeBackslashed(text)}'`;
}

/** Spark SQL reads string literals with backslash escapes too. */
const sparkString = hiveString;

function escapeBackslashed(text: string): string {
  return text.replace(/[\\'"\u0000-\u001f\u007f]/g, (ch) => {
    switch (ch) {
      case '\\':
        return '\\\\';
      case "'":
        return "\\'";
      case '"':
        return '\\"';
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default:
        return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
}

/** A DuckDB string literal: a quote doubled, nothing else special. */
function quoteDuckdbString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
