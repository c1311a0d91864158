// Times in an exported CSV written as the service writes them in its own CSV results:
// `2026-07-23T19:54:17Z` (a fraction only when there is one), not DuckDB's `2026-07-23 19:54:17+00`.

import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { quoteIdent } from './sqlText';

/** DuckDB's text of an instant in UTC (`2026-07-23 19:54:17.5+00`) to ISO 8601 with `Z`. */
const TO_ISO = `'^(\\S+) (\\S+?)\\+00(:00)?$', '\\1T\\2Z'`;

/**
 * The statement that writes `sql`'s rows with every top-level `TIMESTAMP WITH TIME ZONE`
 * column as ISO 8601 text in UTC; `sql` itself when it has none.
 */
export async function withServiceTimes(conn: DuckDBConnection, sql: string, params: DuckDBValue[]): Promise<string> {
  const described = (await conn.runAndReadAll(`DESCRIBE ${sql}`, params)).getRowObjectsJson();
  const instants = described.filter((c) => String(c.column_type) === 'TIMESTAMP WITH TIME ZONE').map((c) => String(c.column_name));
  if (instants.length === 0) return sql;
  const replaced = instants.map((name) => `regexp_replace(CAST(${quoteIdent(name)} AS VARCHAR), ${TO_ISO}) AS ${quoteIdent(name)}`);
  return `SELECT * REPLACE (${replaced.join(', ')}) FROM (${sql}\n)`;
}
