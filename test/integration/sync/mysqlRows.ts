// Reading what the MySQL target wrote, behind its back, for the MySQL sync tests: a synced
// table's rows in the form the fixture's reference holds them (bigint as its decimal text,
// DATETIME(6) as milliseconds since the epoch computed by the server, so a stray microsecond
// shows as a fraction, TINYINT(1) as a boolean, JSON parsed), and the meta table as stored.

import * as assert from 'node:assert/strict';
import type { MariadbServer } from '../../support/mariadbServer';
import { keyCountOf, type TableRows } from './syncFixture';

export const quote = (name: string): string => `\`${name.replace(/`/g, '``')}\``;

/** The MySQL table of a service table. */
export const mysqlTable = (namespace: string, table: string): string => `${namespace}__${table}`;

interface Described {
  name: string;
  type: string;
  column_type: string;
}

/** The columns of a table in order, with which hold JSON (MariaDB's JSON is LONGTEXT with a json_valid check). */
async function describe(db: MariadbServer, name: string): Promise<(Described & { json: boolean })[]> {
  const columns = await db.admin<Described>(
    `SELECT COLUMN_NAME AS name, DATA_TYPE AS type, COLUMN_TYPE AS column_type FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
    [name],
  );
  const checks = await db.admin<{ clause: string }>(
    `SELECT CHECK_CLAUSE AS clause FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = ?`,
    [name],
  );
  const json = new Set(checks.map((c) => /json_valid\(`(.*)`\)/i.exec(c.clause)?.[1]?.replace(/``/g, '`')).filter((n) => n !== undefined));
  return columns.map((c) => ({ ...c, json: c.type === 'json' || json.has(c.name) }));
}

/** A synced table's rows, each value in the form the fixture's reference holds it. */
export async function mysqlRows(db: MariadbServer, namespace: string, table: string): Promise<TableRows> {
  const name = mysqlTable(namespace, table);
  const described = await describe(db, name);
  assert.ok(described.length > 0, `${name} exists in MySQL`);
  const readers = described.map((c): { sql: (id: string) => string; value: (v: unknown) => unknown } => {
    if (c.json) return { sql: (id) => `CAST(${id} AS CHAR)`, value: (v) => JSON.parse(String(v)) };
    switch (c.type) {
      case 'bigint':
        return { sql: (id) => `CAST(${id} AS CHAR)`, value: (v) => v };
      case 'int':
      case 'double':
        return { sql: (id) => id, value: (v) => Number(v) };
      case 'tinyint':
        assert.equal(c.column_type, 'tinyint(1)', `${name}.${c.name} is a boolean`);
        return { sql: (id) => id, value: (v) => Number(v) === 1 };
      case 'longtext':
      case 'varchar':
        return { sql: (id) => id, value: (v) => v };
      case 'datetime':
        return { sql: (id) => `CAST(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', ${id}) / 1000 AS CHAR)`, value: (v) => Number(v) };
      default:
        return assert.fail(`${name}.${c.name} has the type ${c.type}, which this comparison does not read`);
    }
  });
  const select = described.map((c, i) => `${readers[i].sql(quote(c.name))} AS c${i}`);
  const raw = await db.admin<Record<string, unknown>>(`SELECT ${select.join(', ')} FROM ${quote(name)}`);
  const keyCount = keyCountOf(namespace, table);
  const rows = new Map<string, unknown[]>();
  for (const r of raw) {
    const values = described.map((_, i) => (r[`c${i}`] === null ? null : readers[i].value(r[`c${i}`])));
    const key = JSON.stringify(values.slice(0, keyCount));
    assert.ok(!rows.has(key), `${name} holds the key ${key} twice`);
    rows.set(key, values);
  }
  return { columns: described.map((c) => c.name), rows };
}

/** The meta table as stored. */
export interface RawMetaRow {
  namespace: string;
  table: string;
  target_schema: string;
  target_table: string;
  point: string;
  schema_version: number;
  row_count: string;
  ran_at: string;
}

export const RAW_META = `SELECT namespace, \`table\`, target_schema, target_table, DATE_FORMAT(point, '%Y-%m-%dT%H:%i:%sZ') AS point,
    schema_version, CAST(row_count AS CHAR) AS row_count, CAST(ran_at AS CHAR) AS ran_at FROM dq_sync_state ORDER BY namespace, \`table\``;

/** The tables of the database, by name. */
export async function tablesOf(db: MariadbServer): Promise<string[]> {
  return (await db.admin<{ name: string }>(`SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME`)).map((r) => r.name);
}

/** Drops every table of the test database: a fresh start. */
export async function emptyDatabase(db: MariadbServer): Promise<void> {
  const names = await tablesOf(db);
  if (names.length > 0) await db.admin(`DROP TABLE ${names.map(quote).join(', ')}`);
}
