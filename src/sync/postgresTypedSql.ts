// The SQL of the typed loads (postgresLoad.ts): rows COPYed as typed fields straight into the
// target table, or into a typed staging table with each record's number, `meta.ts` and
// `meta.action` (the fields a TypedRowEncoder writes with `withOrder`), merged from there.
// Pure functions over a TargetTable; identifiers always quoted.

import { qualifiedName, quoteIdent, sqlType } from './postgresSql';
import type { RowForm } from './postgresRows';
import type { TargetTable } from './syncTarget';

/** The typed staging table: a column per target column (`c0`, `c1`...), then the record's number, time and action. */
export const TYPED_STAGE = 'dq_typed';

const FORMAT: Record<RowForm, string> = { binary: ' (FORMAT binary)', text: '' };

/** COPY of the target columns, in order, into the table itself. */
export function copyIntoTable(table: TargetTable, form: RowForm): string {
  return `COPY ${qualifiedName(table.namespace, table.table)} (${table.columns.map((c) => quoteIdent(c.name)).join(', ')}) FROM STDIN${FORMAT[form]}`;
}

export function createTypedStage(table: TargetTable): string {
  const columns = table.columns.map((c, i) => `c${i} ${sqlType(c.type)}`);
  return `CREATE TEMP TABLE ${TYPED_STAGE} (${columns.join(', ')}, dq_ord bigint, dq_ts timestamptz, dq_action text) ON COMMIT DROP`;
}

export function copyIntoTypedStage(table: TargetTable, form: RowForm): string {
  return `COPY ${TYPED_STAGE} (${table.columns.map((_, i) => `c${i}`).join(', ')}, dq_ord, dq_ts, dq_action) FROM STDIN${FORMAT[form]}`;
}

/**
 * The last record of each key among the staged ones, as the jsonb loader picks it: the newest
 * `meta.ts`, and of equal times the one that came later in the files.
 */
function lastOfEachKey(table: TargetTable, select: string): string {
  const keys = table.columns.flatMap((c, i) => (c.key ? [`c${i}`] : []));
  return `SELECT DISTINCT ON (${keys.join(', ')}) ${select}
  FROM ${TYPED_STAGE}
  ORDER BY ${keys.join(', ')}, dq_ts DESC NULLS LAST, dq_ord DESC`;
}

/** A snapshot from the typed stage into the emptied table: every key's last record, unless that is a delete. */
export function insertSnapshotFromTyped(table: TargetTable): string {
  const names = table.columns.map((c) => quoteIdent(c.name));
  const values = table.columns.map((_, i) => `c${i}`);
  return `INSERT INTO ${qualifiedName(table.namespace, table.table)} (${names.join(', ')})
SELECT ${values.join(', ')}
FROM (${lastOfEachKey(table, '*')}) last
WHERE dq_action IS DISTINCT FROM 'D'`;
}

/** A change set's last record of each key, with its action: the same table (`dq_last`) the jsonb loader makes. */
export function createLastFromTyped(table: TargetTable, lastTable: string): string {
  const values = table.columns.map((_, i) => `c${i}`);
  return `CREATE TEMP TABLE ${lastTable} ON COMMIT DROP AS
${lastOfEachKey(table, `dq_action AS action, ${values.join(', ')}`)}`;
}

/** Memory for building the key after a load (sorting it in memory is far faster), never less than the server's own. */
export const KEY_BUILD_MEMORY = `SELECT set_config('maintenance_work_mem', '262144kB', true)
  FROM pg_settings WHERE name = 'maintenance_work_mem' AND setting::bigint < 262144`;

/**
 * The primary key of a table (parameter: its qualified name): its name, and whether its index is
 * plain (no included columns, no storage options, the default tablespace, not deferrable), so
 * that adding it again by name and columns makes it as it was.
 */
export const PRIMARY_KEY_OF = `SELECT c.conname AS name,
    (i.reloptions IS NULL AND i.reltablespace = 0 AND NOT c.condeferrable AND x.indnatts = x.indnkeyatts) AS plain
  FROM pg_constraint c JOIN pg_class i ON i.oid = c.conindid JOIN pg_index x ON x.indexrelid = c.conindid
  WHERE c.conrelid = to_regclass($1) AND c.contype = 'p'`;
