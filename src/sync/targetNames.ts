// Names from the service as a target can hold them. Table and column names are untrusted text:
// a name that no database stores (empty, holding a NUL, or a lone UTF-16 surrogate, which has
// no UTF-8 form) is refused, and so are two names the target would take for one: DuckDB does
// not tell ASCII upper from lower case apart (`t1`, `T1`), PostgreSQL keeps the first 63 bytes
// of a name. Two service tables that would be one target table are refused (and the one the
// meta table already records under its own name syncs on), so neither replaces the other's
// rows; two columns that would be one column refuse their table. Every check runs before the
// table's job is made, and names the table and the names involved.

import { DqError } from '../client/errors';
import type { SyncedTable, TargetNaming, TargetTable } from './syncTarget';

/** A name as messages show it: quoted, a NUL or a control character as its escape. */
export function shownName(name: string): string {
  return JSON.stringify(name);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why no database could hold this name, or undefined when one can. */
export function unusableName(name: string): string | undefined {
  if (name.length === 0) return 'is empty';
  if (name.includes('\u0000')) return 'holds a NUL character';
  if (LONE_SURROGATE.test(name)) return 'holds half of a UTF-16 surrogate pair, which has no UTF-8 form';
  return undefined;
}

/** The key of the target table `<namespace>.<table>`: tables of one key are one table there. */
export function tableKey(naming: TargetNaming, namespace: string, table: string): string {
  return `${naming.nameKey(namespace)}\u0000${naming.nameKey(table)}`;
}

/** Refuses a namespace or table name no database stores; before anything is asked of the service for it. */
export function checkTableName(namespace: string, table: string): void {
  for (const [what, name] of [['namespace', namespace], ['table', table]] as const) {
    const why = unusableName(name);
    if (why === undefined) continue;
    throw new DqError('invalidResponse', `The ${what} name ${shownName(name)} ${why}, so no database can hold the table ${shownName(namespace)}.${shownName(table)}.`, {
      hint: 'Leave the table out of the sync (name the tables to sync), and report the name to the provider.',
    });
  }
}

/** The other names in `others` that are one table with `table` in the target. */
function sameTable(naming: TargetNaming, namespace: string, table: string, others: Iterable<{ namespace: string; table: string }>): string[] {
  const key = tableKey(naming, namespace, table);
  const found: string[] = [];
  for (const o of others) {
    if ((o.namespace !== namespace || o.table !== table) && tableKey(naming, o.namespace, o.table) === key) found.push(`${o.namespace}.${o.table}`);
  }
  return found;
}

/**
 * The tables of one run that the target would hold as one table, each with the error that
 * refuses it. A table the meta table already records under its own name is not refused: it
 * owns the target table, and the others are refused as stored under its name.
 */
export function collidingTables(naming: TargetNaming & { label: string }, namespace: string, tables: readonly string[], synced: readonly SyncedTable[]): Map<string, DqError> {
  const refused = new Map<string, DqError>();
  const own = new Set(synced.filter((s) => s.namespace === namespace).map((s) => s.table));
  const all = tables.map((table) => ({ namespace, table }));
  for (const table of tables) {
    const others = sameTable(naming, namespace, table, all);
    if (others.length === 0 || own.has(table)) continue;
    const owner = others.find((o) => own.has(o.slice(namespace.length + 1)));
    if (owner !== undefined) {
      refused.set(table, syncedAs(naming, namespace, table, owner));
      continue;
    }
    const names = [`${namespace}.${table}`, ...others].map(shownName).join(' and ');
    refused.set(
      table,
      new DqError('usage', `The tables ${names} would be one table in ${naming.label}: ${naming.namingRule}. Neither was synced, so neither replaces the other's rows.`, {
        hint: `Sync them to different targets, naming one table per run (dq sync ${namespace} <table> --to <target>).`,
      }),
    );
  }
  return refused;
}

/** Refuses a table that would be stored as a table the meta table records under another name. */
export function checkNotSyncedAs(naming: TargetNaming & { label: string }, namespace: string, table: string, synced: readonly SyncedTable[]): void {
  const [other] = sameTable(naming, namespace, table, synced);
  if (other !== undefined) throw syncedAs(naming, namespace, table, other);
}

function syncedAs(naming: TargetNaming & { label: string }, namespace: string, table: string, other: string): DqError {
  return new DqError('usage', `${shownName(`${namespace}.${table}`)} would be stored as the table ${shownName(other)} already synced in ${naming.label}: ${naming.namingRule}. It was not synced, so the rows of ${shownName(other)} stay as they are.`, {
    hint: `Sync ${namespace}.${table} to another target (--to).`,
  });
}

/** Refuses a table whose columns no database stores, or that the target would take for one column. */
export function checkColumnNames(naming: TargetNaming & { label: string }, table: TargetTable): void {
  const name = `${table.namespace}.${table.table}`;
  const hint = 'The other tables sync on. Report the table and its schema version to the provider.';
  const unusable = table.columns.flatMap((c) => {
    const why = unusableName(c.name);
    return why === undefined ? [] : [`${shownName(c.name)} ${why}`];
  });
  if (unusable.length > 0) {
    throw new DqError('invalidResponse', `The schema of ${name} names columns no database can hold: ${unusable.join('; ')}.`, { hint });
  }
  const refused = table.columns.flatMap((c) => {
    const why = naming.columnNameProblem?.(c.name);
    return why === undefined ? [] : [`${shownName(c.name)} ${why}`];
  });
  if (refused.length > 0) {
    throw new DqError('usage', `The schema of ${name} names columns the target ${naming.label} cannot take: ${refused.join('; ')}. It was not synced.`, {
      hint: `Sync ${name} to another kind of target (--to), where the names fit. ${hint}`,
    });
  }
  const byKey = new Map<string, string[]>();
  for (const c of table.columns) {
    const key = naming.nameKey(c.name);
    byKey.set(key, [...(byKey.get(key) ?? []), c.name]);
  }
  const clashes = [...byKey.values()].filter((names) => names.length > 1).map((names) => names.map(shownName).join(' and '));
  if (clashes.length > 0) {
    throw new DqError('invalidResponse', `The schema of ${name} has columns that would be one column in ${naming.label}: ${clashes.join('; ')} (${naming.namingRule}).`, {
      hint: `Sync ${name} to another kind of target (--to), where the names stay apart. ${hint}`,
    });
  }
}
