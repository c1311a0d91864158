// A view's filters and the user's own WHERE, checked before and judged after the query that
// reads them: a mistake of the user's is told as such, in the words of what they typed.

import type { DuckDBConnection } from '@duckdb/node-api';
import { EngineError, toEngineError } from './engineErrors';
import type { ResultColumn, View } from './engineProtocol';
import { quoteIdent, typedFilterValues } from './sqlText';

/** A filter value that does not read as its column's type is the user's to correct, not a failure of the data. */
export async function checkFilterValues(conn: DuckDBConnection, view: View, columns: ResultColumn[]): Promise<void> {
  for (const { filter, column, type } of typedFilterValues(view, columns)) {
    const reader = await conn.runAndReadAll(`SELECT TRY_CAST(? AS ${type}) IS NULL`, [filter.value ?? '']);
    if (reader.getRowsJson()[0][0] === true) {
      throw new EngineError('syntax', `The filter on ${column.name} needs a value of type ${column.type}, not "${filter.value ?? ''}". Change the filter.`);
    }
  }
}

/**
 * Runs the query of a view. When it fails and the view has the user's WHERE, the failure is
 * judged as the WHERE's or the files' (engineErrors.ts); one of the WHERE's is told again as
 * the WHERE alone fails it, on one row of NULLs of the result's types, so DuckDB points into
 * the WHERE as typed rather than into the engine's query around it.
 */
export async function withUsersWhere<T>(conn: DuckDBConnection, view: View, columns: ResultColumn[], task: () => Promise<T>): Promise<T> {
  await oneCondition(conn, view.where);
  try {
    return await task();
  } catch (err) {
    const where = view.where?.trim();
    if (!where || err instanceof EngineError) throw err;
    const failure = toEngineError(err, { where });
    if (failure.kind !== 'syntax') throw failure;
    const nulls = columns.map((c) => `CAST(NULL AS ${c.sqlType}) AS ${quoteIdent(c.name)}`).join(', ');
    // prepared: one statement, whatever the WHERE holds
    const check = async (): Promise<unknown> => (await conn.prepare(`SELECT count(*) FROM (SELECT ${nulls}) WHERE (\n${where}\n)`)).run();
    const alone = await check().then(
      () => undefined,
      (e: unknown) => toEngineError(e, { where }),
    );
    throw alone?.kind === 'syntax' ? alone : failure;
  }
}

/**
 * A WHERE is one condition: text that closes it and goes on with statements of its own (a `;`
 * outside quotes) is refused rather than run. One that does not parse is left to the query,
 * whose error says where.
 */
async function oneCondition(conn: DuckDBConnection, where: string | undefined): Promise<void> {
  const text = where?.trim();
  if (!text) return;
  const statements = await conn.extractStatements(`SELECT 1 WHERE (\n${text}\n)`).then(
    (extracted) => extracted.count,
    () => 1,
  );
  if (statements > 1) {
    throw new EngineError('syntax', 'The WHERE condition holds more than one statement (a ";" outside quotes). Write one condition, such as "value.http_status" = 404; run other statements in the SQL console.');
  }
}
